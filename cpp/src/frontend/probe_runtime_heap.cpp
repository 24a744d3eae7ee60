// The estimation runtime's count of the program's heap (probe_runtime.hpp; the working set of
// the loop nests the loader scales across cache levels, docs/frontend.md "cache levels"): the
// C code appended to parjava_probes.c.
#include "probe_runtime.hpp"

namespace parjava::frontend {

std::string_view probe_runtime_heap_source() {
  return R"PJ(
/* The program's live heap, which every timed sample reads as the working set of what encloses
   it. Counted at the allocator rather than at the program's own calls: the probes saw only a
   bare `p = malloc(n)`, while C++ allocates through `new`, std::vector and helpers such as
   CloverLeaf's `return static_cast<T *>(std::malloc(n))`, so a C++ program's nests had no
   working set and kept their cost per iteration at every size. The estimation binary defines
   the allocation functions, which the dynamic linker then takes for every library too, and
   forwards them to glibc's own; a freed block leaves by its usable size, as it came. What
   MPI_Init allocates is taken out (3.4 MB with Open MPI 4.1: as much as this machine's L2),
   and the runtime's own tables are allocated around the count. Weak: a program with its own
   allocator keeps it (the working set is then unknown, as without this). */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <errno.h>
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *block, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_free(void *block);

/* malloc_usable_size() of a block in use, from the size word glibc keeps before it (its low bits
   are flags; an mmapped chunk has a second header word): the call cost more than the count
   itself on the small blocks miniAMR allocates millions of (tests/programs/alloc_wrapper). */
static __inline__ long long pj_block_bytes(const void *block) {
  size_t word = ((const size_t *)block)[-1];
  size_t chunk = word & ~(size_t)7;
  return (long long)((word & 2) != 0 ? chunk - 2 * sizeof(size_t) : chunk - sizeof(size_t));
}

static __inline__ void *pj_counted(void *block) {
  if (block != 0) pj_live_add(pj_block_bytes(block));
  return block;
}

__attribute__((weak)) void *malloc(size_t size) { return pj_counted(__libc_malloc(size)); }

__attribute__((weak)) void *calloc(size_t n, size_t size) {
  return pj_counted(__libc_calloc(n, size));
}

__attribute__((weak)) void free(void *block) {
  if (block == 0) return;
  pj_live_add(-pj_block_bytes(block));
  __libc_free(block);
}

__attribute__((weak)) void *realloc(void *block, size_t size) {
  long long before = block != 0 ? pj_block_bytes(block) : 0;
  void *moved = __libc_realloc(block, size);
  if (moved != 0) {
    pj_live_add(pj_block_bytes(moved) - before);
  } else if (size == 0) {
    pj_live_add(-before); /* glibc's realloc(p, 0) frees p */
  }
  return moved;
}

__attribute__((weak)) void *reallocarray(void *block, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    errno = ENOMEM;
    return 0;
  }
  return realloc(block, bytes);
}

__attribute__((weak)) void *memalign(size_t alignment, size_t size) {
  return pj_counted(__libc_memalign(alignment, size));
}

__attribute__((weak)) void *aligned_alloc(size_t alignment, size_t size) {
  return pj_counted(__libc_memalign(alignment, size));
}

__attribute__((weak)) int posix_memalign(void **out, size_t alignment, size_t size) {
  void *block;
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  block = __libc_memalign(alignment, size);
  if (block == 0) return ENOMEM;
  *out = pj_counted(block);
  return 0;
}

__attribute__((weak)) void *valloc(size_t size) { return pj_counted(__libc_valloc(size)); }
__attribute__((weak)) void *pvalloc(size_t size) { return pj_counted(__libc_pvalloc(size)); }

void *pj_raw_malloc(size_t size) { return __libc_malloc(size); }
void *pj_raw_calloc(size_t n, size_t size) { return __libc_calloc(n, size); }
void *pj_raw_realloc(void *block, size_t size) { return __libc_realloc(block, size); }
void pj_raw_free(void *block) { __libc_free(block); }

/* The heap as the shared count has it, with this thread's balance in. */
static long long pj_heap_now(void) {
  long long pending = pj_live_pending;
  pj_live_pending = 0;
  return __atomic_add_fetch(&pj_live, pending, __ATOMIC_RELAXED);
}

long long pj_heap_mark(void) { return pj_heap_now(); }
void pj_heap_forget_since(long long mark) {
  __atomic_add_fetch(&pj_live, -(pj_heap_now() - mark), __ATOMIC_RELAXED);
}
#else
void *pj_raw_malloc(size_t size) { return malloc(size); }
void *pj_raw_calloc(size_t n, size_t size) { return calloc(n, size); }
void *pj_raw_realloc(void *block, size_t size) { return realloc(block, size); }
void pj_raw_free(void *block) { free(block); }
long long pj_heap_mark(void) { return 0; }
void pj_heap_forget_since(long long mark) { (void)mark; }
#endif
)PJ";
}

} // namespace parjava::frontend
