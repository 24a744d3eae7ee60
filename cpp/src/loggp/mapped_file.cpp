#include "mapped_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace parjava::loggp {

MappedFile::MappedFile(const std::string &path, ErrorKind kind) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(kind, "cannot open " + path + ": " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw Error(kind, "cannot read " + path + ": not a regular file");
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ > 0) {
    void *map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error(kind, "cannot map " + path + " into memory: " + std::strerror(err));
    }
    data_ = static_cast<const char *>(map);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) {
    ::munmap(const_cast<char *>(data_), size_);
  }
}

void MappedFile::release_before(const char *upto) noexcept {
  if (data_ == nullptr || upto < data_) {
    return;
  }
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t end = static_cast<std::size_t>(upto - data_) / page * page;
  if (end > released_) {
    // MADV_DONTNEED on a private read-only file mapping only drops the page-cache references of
    // this process; the data stays the file's.
    ::madvise(const_cast<char *>(data_) + released_, end - released_, MADV_DONTNEED);
    released_ = end;
  }
}

void MappedFile::will_need(std::size_t offset, std::size_t bytes) const noexcept {
  if (data_ == nullptr || offset >= size_) {
    return;
  }
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t begin = offset / page * page;
  const std::size_t end = std::min(size_, offset + bytes);
  ::madvise(const_cast<char *>(data_) + begin, end - begin, MADV_WILLNEED);
}

void MappedFile::advise_sequential() const noexcept {
  if (data_ != nullptr) {
    ::madvise(const_cast<char *>(data_), size_, MADV_SEQUENTIAL);
  }
}

} // namespace parjava::loggp
