// Storage allocated through a template with an allocation policy, as Quicksilver's
// MemoryControl::allocate<T> and qs_vector<T> do, instantiated for several element types (one of
// them a class with a constructor, so `new T[size]` differs between the instantiations' trees).
#ifndef STORAGE_HPP
#define STORAGE_HPP

#include <cstdio>

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("file=%s: line=%d ERROR\n", __FILE__, __LINE__);                                 \
    }                                                                                              \
  } while (0)

namespace Storage {
enum Policy { HOST, DEVICE, UNDEFINED };

template <typename T> T *allocate(const int size, const Policy policy) {
  if (size == 0) {
    return nullptr;
  }
  T *tmp = nullptr;
  switch (policy) {
  case Policy::HOST:
    tmp = new T[size];
    break;
  default:
    CHECK(false);
    break;
  }
  return tmp;
}

template <typename T> void release(T *data, const Policy policy) {
  switch (policy) {
  case Policy::HOST:
    delete[] data;
    break;
  default:
    CHECK(false);
    break;
  }
}
} // namespace Storage

template <typename T> class Vault {
public:
  explicit Vault(int capacity) : capacity_(capacity) {
    data_ = Storage::allocate<T>(capacity, Storage::HOST);
  }
  ~Vault() { Storage::release<T>(data_, Storage::HOST); }
  void push(const T &item) {
    CHECK(size_ < capacity_);
    data_[size_] = item;
    size_++;
  }
  T &operator[](int i) { return data_[i]; }
  int size() const { return size_; }

private:
  T *data_ = nullptr;
  int size_ = 0;
  int capacity_ = 0;
};

#endif
