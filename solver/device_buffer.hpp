// DeviceBuffer<T>: RAII owner of an array in device memory (host memory on the CPU backend).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/backend.hpp"

namespace eddy {

/// Owns `size` elements of T on the device. Allocation failures throw DeviceError (out_of_memory) naming the
/// size; the buffer is never left half-allocated. Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size) : data_(static_cast<T*>(backend::allocate(size * sizeof(T)))), size_(size) {}
  ~DeviceBuffer() { backend::release(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  /// Exchanges the memory (and so the contents) of this buffer and `other`, a buffer of another element type and
  /// the same number of bytes; nothing is copied. std::logic_error if the sizes differ.
  template <class U>
  void swap_memory(DeviceBuffer<U>& other) {
    if (other.bytes() != bytes() || bytes() % sizeof(U) != 0) {
      throw std::logic_error("DeviceBuffer::swap_memory: buffers of " + std::to_string(bytes()) + " and " +
                             std::to_string(other.bytes()) + " bytes");
    }
    T* mine = data_;
    data_ = reinterpret_cast<T*>(other.data_);
    other.data_ = reinterpret_cast<U*>(mine);
  }

  /// Copies host data (host.size() must equal size()) to the device, after all queued device work.
  void upload(const std::vector<T>& host) {
    backend::synchronize();
    backend::copy_to_device(data_, host.data(), bytes());
  }
  /// Copies the whole buffer to a new host vector once all queued device work (on every stream) is done.
  std::vector<T> download() const {
    std::vector<T> host(size_);
    backend::synchronize();
    backend::copy_to_host(host.data(), data_, bytes());
    return host;
  }

 private:
  template <class U>
  friend class DeviceBuffer;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Owns `size` elements of T in page-locked host memory (backend::allocate_pinned; ordinary memory on cpu), for
/// asynchronous transfers. Contents start uninitialised. Move-only; throws DeviceError when it cannot be allocated.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t size)
      : data_(static_cast<T*>(backend::allocate_pinned(size * sizeof(T)))), size_(size) {}
  ~PinnedBuffer() { backend::release_pinned(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept { swap(other); }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  void swap(PinnedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace eddy
