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
                      "HIP_VISIBLE_DEVICES), or build with -DEDDY_BACKEND=cpu");
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

int current_device() {
  int index = 0;
  EDDY_GPU_CHECK(gpu(GetDevice)(&index));
  return index;
}

void* allocate(std::size_t bytes) {
  void* ptr = nullptr;
  const auto status = gpu(Malloc)(&ptr, bytes == 0 ? 1 : bytes);
  if (status == gpu(ErrorMemoryAllocation)) {
    (void)gpu(GetLastError)();
    std::size_t free_bytes = 0, total_bytes = 0;
    (void)gpu(MemGetInfo)(&free_bytes, &total_bytes);
    throw OutOfMemoryError("out of GPU memory: could not allocate " + std::to_string(bytes) + " bytes (" +
                           std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
                           " bytes free); use a smaller domain or more GPUs");
  }
  EDDY_GPU_CHECK(status);
  return ptr;
}

void release(void* ptr) noexcept { (void)gpu(Free)(ptr); }

// A plain Memcpy runs on the legacy default stream, which eddy's non-blocking streams do not wait for, and from
// pageable host memory (and device to device) it may return before the data have arrived: wait for it, so that work
// queued next on any stream sees the copy (a restored state was read half-copied under load before this wait).
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyHostToDevice)));
  EDDY_GPU_CHECK(gpu(StreamSynchronize)(nullptr));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyDeviceToHost)));
}
void copy_on_device(void* dst, const void* src, std::size_t bytes) {
  EDDY_GPU_CHECK(gpu(Memcpy)(dst, src, bytes, gpu(MemcpyDeviceToDevice)));
  EDDY_GPU_CHECK(gpu(StreamSynchronize)(nullptr));
}
void synchronize() { EDDY_GPU_CHECK(gpu(DeviceSynchronize)()); }

namespace {
gpu(Stream_t) stream_of(const Stream& stream) { return static_cast<gpu(Stream_t)>(stream.handle()); }
}  // namespace

Stream::Stream() {
  gpu(Stream_t) s = nullptr;
  EDDY_GPU_CHECK(gpu(StreamCreateWithFlags)(&s, gpu(StreamNonBlocking)));
  handle_ = s;
}
Stream::~Stream() { (void)gpu(StreamDestroy)(static_cast<gpu(Stream_t)>(handle_)); }
void Stream::synchronize() const { EDDY_GPU_CHECK(gpu(StreamSynchronize)(stream_of(*this))); }

Event::Event(bool timing) {
  gpu(Event_t) e = nullptr;
  EDDY_GPU_CHECK(gpu(EventCreateWithFlags)(&e, timing ? gpu(EventDefault) : gpu(EventDisableTiming)));
  handle_ = e;
}
double Event::seconds_between(const Event& start, const Event& end) {
  float ms = 0.0f;
  EDDY_GPU_CHECK(
      gpu(EventElapsedTime)(&ms, static_cast<gpu(Event_t)>(start.handle_), static_cast<gpu(Event_t)>(end.handle_)));
  return 1e-3 * double(ms);
}
Event::~Event() { (void)gpu(EventDestroy)(static_cast<gpu(Event_t)>(handle_)); }
void Event::record(const Stream& stream) {
  EDDY_GPU_CHECK(gpu(EventRecord)(static_cast<gpu(Event_t)>(handle_), stream_of(stream)));
}
void Event::wait(const Stream& stream) const {
  EDDY_GPU_CHECK(gpu(StreamWaitEvent)(stream_of(stream), static_cast<gpu(Event_t)>(handle_), 0));
}
void Event::synchronize() const { EDDY_GPU_CHECK(gpu(EventSynchronize)(static_cast<gpu(Event_t)>(handle_))); }

void* allocate_pinned(std::size_t bytes) {
  void* ptr = nullptr;
  const auto status = gpu(HostAlloc)(&ptr, bytes == 0 ? 1 : bytes, 0);
  if (status == gpu(ErrorMemoryAllocation)) {
    (void)gpu(GetLastError)();
    throw OutOfMemoryError("out of pinned host memory: could not allocate " + std::to_string(bytes) + " bytes");
  }
  EDDY_GPU_CHECK(status);
  return ptr;
}
void release_pinned(void* ptr) noexcept { (void)gpu(FreeHost)(ptr); }

void copy_to_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream) {
  EDDY_GPU_CHECK(gpu(MemcpyAsync)(dst, src, bytes, gpu(MemcpyHostToDevice), stream_of(stream)));
}
void copy_to_host_async(void* dst, const void* src, std::size_t bytes, const Stream& stream) {
  EDDY_GPU_CHECK(gpu(MemcpyAsync)(dst, src, bytes, gpu(MemcpyDeviceToHost), stream_of(stream)));
}
void copy_on_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream) {
  EDDY_GPU_CHECK(gpu(MemcpyAsync)(dst, src, bytes, gpu(MemcpyDeviceToDevice), stream_of(stream)));
}

void order_streams(void* waiting, void* producing) {
  if (waiting == producing) return;  // a stream is ordered with itself
  static gpu(Event_t) event = [] {   // one per process (one device each); recorded and waited on at once
    gpu(Event_t) e = nullptr;
    EDDY_GPU_CHECK(gpu(EventCreateWithFlags)(&e, gpu(EventDisableTiming)));
    return e;
  }();
  EDDY_GPU_CHECK(gpu(EventRecord)(event, static_cast<gpu(Stream_t)>(producing)));
  EDDY_GPU_CHECK(gpu(StreamWaitEvent)(static_cast<gpu(Stream_t)>(waiting), event, 0));
}

void check_launch(const char* what, const char* file, int line) {
  const auto status = gpu(GetLastError)();
  if (status != gpu(Success)) {
    throw_device_error(what, file, line, gpu(GetErrorName)(status), gpu(GetErrorString)(status), false);
  }
}

}  // namespace eddy::backend
