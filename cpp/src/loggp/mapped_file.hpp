// A read-only memory map of a whole file (private to the loggp part). GOAL text files of
// 2^20-rank schedules are several GB: mapping them lets the kernel drop pages already parsed
// instead of holding a full copy in the heap.
#pragma once

#include <cstddef>
#include <string>

#include "parjava/error.hpp"

namespace parjava::loggp {

class MappedFile {
public:
  MappedFile(const std::string &path, ErrorKind kind);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  MappedFile(MappedFile &&) = delete;
  MappedFile &operator=(MappedFile &&) = delete;

  [[nodiscard]] const char *data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  void advise_sequential() const noexcept;
  // The bytes before `upto` will not be read again soon: give their pages back (a later read
  // faults them in from the file again), so parsing a multi-GB file does not keep it resident.
  void release_before(const char *upto) noexcept;
  // The bytes [offset, offset + bytes) of the file will be read soon: start reading them from the
  // disk now (MADV_WILLNEED starts the I/O and returns), so a parse that is slower than the page
  // cache but faster than one-page-at-a-time readahead does not wait for every fault.
  void will_need(std::size_t offset, std::size_t bytes) const noexcept;

private:
  const char *data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t released_ = 0; // bytes from data_ already given back (a multiple of the page size)
};

} // namespace parjava::loggp
