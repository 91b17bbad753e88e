// CPU backend of eddy::backend (kernels/backend.hpp): "device" memory is 64-byte aligned host memory, copies are
// memcpy, kernels are OpenMP loops (kernels/parallel_for.hpp).
#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

#include "kernels/backend.hpp"
#include "solver/host_memory.hpp"

namespace eddy::backend {

const char* name() { return "cpu"; }

int device_count() { return 1; }

namespace {
std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "CPU";
}

}  // namespace

DeviceInfo device_info(int /*index*/) {
  DeviceInfo info;
  info.name = cpu_model_name();
  info.total_memory = host_meminfo_bytes("MemTotal:");
  info.free_memory = host_available_memory();
  info.compute_units = omp_get_max_threads();
  info.count = 1;
  return info;
}

void select_device(int /*index*/) {}
int current_device() { return 0; }

void* allocate(std::size_t bytes) {
  constexpr std::size_t kAlign = 64;
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* ptr = std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded);
  if (ptr == nullptr) {
    const DeviceInfo info = device_info(0);
    throw OutOfMemoryError("out of host memory: could not allocate " + std::to_string(bytes) + " bytes (" +
                           std::to_string(info.free_memory) + " bytes available); use a smaller domain");
  }
  return ptr;
}

void release(void* ptr) noexcept { std::free(ptr); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void copy_to_host(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void copy_on_device(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void synchronize() {}

Stream::Stream() = default;
Stream::~Stream() = default;
void Stream::synchronize() const {}
Event::Event(bool /*timing*/) {}
Event::~Event() = default;
void Event::record(const Stream& /*stream*/) {
  host_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double Event::seconds_between(const Event& start, const Event& end) { return end.host_seconds_ - start.host_seconds_; }
void Event::wait(const Stream& /*stream*/) const {}
void Event::synchronize() const {}

void* allocate_pinned(std::size_t bytes) { return allocate(bytes); }
void release_pinned(void* ptr) noexcept { release(ptr); }
void copy_to_device_async(void* dst, const void* src, std::size_t bytes, const Stream& /*stream*/) {
  std::memcpy(dst, src, bytes);
}
void copy_to_host_async(void* dst, const void* src, std::size_t bytes, const Stream& /*stream*/) {
  std::memcpy(dst, src, bytes);
}
void copy_on_device_async(void* dst, const void* src, std::size_t bytes, const Stream& /*stream*/) {
  std::memcpy(dst, src, bytes);
}
void order_streams(void* /*waiting*/, void* /*producing*/) {}
void check_launch(const char* /*what*/, const char* /*file*/, int /*line*/) {}

}  // namespace eddy::backend
