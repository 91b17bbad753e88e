// GPU backend of eddy::backend (kernels/backend.hpp), one source for CUDA and HIP: runtime names are spelled
// gpu(Name) and map to cudaName / hipName. Every runtime call goes through EDDY_GPU_CHECK.
#include <string>

#include "kernels/backend.hpp"

namespace eddy::backend {

const char* name() { return EDDY_BACKEND_NAME; }

int device_count() {
  int count = 0;
  if (gpu(GetDeviceCount)(&count) != gpu(Success)) {
    (void)gpu(GetLastError)();  // no driver or no device: report zero devices, clear the sticky error
    return 0;
  }
  return count;
}

DeviceInfo device_info(int index) {
  DeviceInfo info;
  info.count = device_count();
  if (info.count == 0) {
    throw DeviceError(std::string("no ") + name() + " GPU is visible (check the driver, CUDA_VISIBLE_DEVICES / " +
                          "HIP_VISIBLE_DEVICES), or build with -DEDDY_BACKEND=cpu",
                      false);
  }
  GpuDeviceProperties prop{};
  EDDY_GPU_CHECK(gpu(GetDeviceProperties)(&prop, index));
  info.name = prop.name;
  info.compute_units = prop.multiProcessorCount;
  EDDY_GPU_CHECK(gpu(SetDevice)(index));
  EDDY_GPU_CHECK(gpu(MemGetInfo)(&info.free_memory, &info.total_memory));
  return info;
}

void select_device(int index) { EDDY_GPU_CHECK(gpu(SetDevice)(index)); }

void* allocate(std::size_t bytes) {
  void* ptr = nullptr;
  const auto status = gpu(Malloc)(&ptr, bytes == 0 ? 1 : bytes);
  if (status == gpu(ErrorMemoryAllocation)) {
    (void)gpu(GetLastError)();
    std::size_t free_bytes = 0, total_bytes = 0;
    (void)gpu(MemGetInfo)(&free_bytes, &total_bytes);
    throw DeviceError("out of GPU memory: could not allocate " + std::to_string(bytes) + " bytes (" +
                          std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
                          " bytes free); use a smaller domain or more GPUs",
                      true);
  }
  EDDY_GPU_CHECK(status);
  return ptr;
}

void release(void* ptr) noexcept { (void)gpu(Free)(ptr); }

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyHostToDevice)));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyDeviceToHost)));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyDeviceToDevice)));
}
void synchronize() { EDDY_GPU_CHECK(gpu(DeviceSynchronize)()); }

void check_launch(const char* what, const char* file, int line) {
  const auto status = gpu(GetLastError)();
  if (status != gpu(Success)) {
    throw_device_error(what, file, line, gpu(GetErrorName)(status), gpu(GetErrorString)(status), false);
  }
}

}  // namespace eddy::backend
