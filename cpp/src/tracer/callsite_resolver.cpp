// DWARF line lookup with elfutils' libdwfl (callsite_resolver.hpp). Each binary is reported as
// its own Dwfl at base 0, so module addresses are the ELF virtual addresses; a file offset is
// turned into a virtual address through the PT_LOAD segment that contains it.
#include "parjava/tracer/callsite_resolver.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <string>

namespace parjava::tracer {

struct CallSiteResolver::Module {
  Dwfl *dwfl = nullptr;
  Dwfl_Module *module = nullptr;
  std::string error;      // the binary could not be opened
  std::size_t misses = 0; // addresses without line information
  ~Module() {
    if (dwfl != nullptr) {
      dwfl_end(dwfl);
    }
  }
};

namespace {

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

// The ELF virtual address of a file offset, through the PT_LOAD segment holding it.
std::optional<GElf_Addr> vaddr_of_offset(Elf *elf, std::uint64_t offset) {
  std::size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_LOAD) {
      continue;
    }
    if (offset >= phdr.p_offset && offset < phdr.p_offset + phdr.p_filesz) {
      return offset - phdr.p_offset + phdr.p_vaddr;
    }
  }
  return std::nullopt;
}

std::string demangle(const char *name) {
  if (name == nullptr) {
    return {};
  }
  int status = 0;
  char *plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status == 0 && plain != nullptr) {
    std::string result(plain);
    std::free(plain); // NOLINT(cppcoreguidelines-no-malloc): allocated by __cxa_demangle
    return result;
  }
  return name;
}

} // namespace

CallSiteResolver::CallSiteResolver() = default;
CallSiteResolver::~CallSiteResolver() = default;

CallSiteResolver::Module *CallSiteResolver::module_for(const std::string &binary) {
  auto &slot = modules_[binary];
  if (slot) {
    return slot.get();
  }
  slot = std::make_unique<Module>();
  Module &m = *slot;
  m.dwfl = dwfl_begin(&kCallbacks);
  if (m.dwfl == nullptr) {
    m.error = dwfl_errmsg(-1);
    return &m;
  }
  dwfl_report_begin(m.dwfl);
  m.module = dwfl_report_elf(m.dwfl, binary.c_str(), binary.c_str(), -1, 0, false);
  dwfl_report_end(m.dwfl, nullptr, nullptr);
  if (m.module == nullptr) {
    m.error = dwfl_errmsg(-1);
  }
  return &m;
}

std::optional<SourceLine> CallSiteResolver::resolve_return_address(const std::string &binary,
                                                                   std::uint64_t return_offset) {
  // The return address follows the call instruction; one byte back is inside the call.
  return return_offset == 0 ? std::nullopt : resolve(binary, return_offset - 1);
}

std::optional<SourceLine> CallSiteResolver::resolve(const std::string &binary,
                                                    std::uint64_t offset) {
  const auto key = std::make_pair(binary, offset);
  if (const auto it = cache_.find(key); it != cache_.end()) {
    return it->second;
  }
  std::optional<SourceLine> result;
  Module *m = module_for(binary);
  if (m->module != nullptr) {
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(m->module, &bias);
    const auto vaddr = elf != nullptr ? vaddr_of_offset(elf, offset) : std::nullopt;
    if (vaddr) {
      const Dwarf_Addr address = *vaddr + bias;
      if (Dwfl_Line *line = dwfl_module_getsrc(m->module, address); line != nullptr) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
        if (file != nullptr && lineno > 0) {
          result = SourceLine{file, static_cast<std::uint32_t>(lineno),
                              demangle(dwfl_module_addrname(m->module, address))};
        }
      }
    }
  }
  if (!result && m != nullptr) {
    ++m->misses;
  }
  cache_.emplace(key, result);
  return result;
}

std::map<std::string, std::string> CallSiteResolver::failures() const {
  std::map<std::string, std::string> out;
  for (const auto &[binary, m] : modules_) {
    if (!m->error.empty()) {
      out.emplace(binary, m->error);
    } else if (m->misses > 0) {
      out.emplace(binary, std::to_string(m->misses) +
                              " address(es) without DWARF line information (compile with -g)");
    }
  }
  return out;
}

} // namespace parjava::tracer
