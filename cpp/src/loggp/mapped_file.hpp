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

private:
  const char *data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace parjava::loggp
