// The one backend switch. Everything that differs between CPU (OpenMP), CUDA and HIP lives in this header and in
// the launch primitives (kernels/parallel_for.hpp, sort_pairs.hpp, pair_tiles.hpp, stencil_tiles.hpp); physics code
// never uses the preprocessor.
//
// Exactly one of EDDY_BACKEND_CPU, EDDY_BACKEND_CUDA, EDDY_BACKEND_HIP is defined by CMake (option EDDY_BACKEND).
//
// It provides:
//  - EDDY_HOST_DEVICE: marks per-cell functions callable from host and device code;
//  - EDDY_UNROLL: full unrolling of loops over the lattice directions, spelled for each compiler;
//  - EDDY_ALWAYS_INLINE: forces inlining of a per-cell function into its kernel;
//  - EDDY_GPU_CHECK(call): the checked wrapper for every GPU runtime call (throws DeviceError with file, line,
//    call text and the runtime's error string);
//  - eddy::atomic_add, eddy::atomic_fetch_add, eddy::atomic_min, eddy::atomic_xor: relaxed atomic integer addition
//    (64-bit; fetch_add returns the old value), minimum and exclusive or (32-bit) usable in kernels on every backend;
//  - eddy::backend: memory, copies and synchronisation with the same names on every backend. On the CPU
//    backend "device" memory is ordinary (64-byte aligned) host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "solver/errors.hpp"  // DeviceError: host code only

/// EDDY_UNROLL: fully unroll the next loop over lattice directions (constant trip count), so per-direction
/// constants fold and the 19 populations stay in registers.
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__clang__)
#define EDDY_UNROLL _Pragma("unroll")
#else
#define EDDY_UNROLL _Pragma("GCC unroll 32")
#endif

/// EDDY_ALWAYS_INLINE: inline this per-cell function into every kernel whatever the compiler's size heuristics say
/// (g++ 12 stopped inlining collide() into the cpu kernels once its source grew: docs/performance.md, "Tuning notes").
#if defined(__CUDACC__) || defined(__HIPCC__)
#define EDDY_ALWAYS_INLINE __forceinline__
#else
#define EDDY_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

#if defined(EDDY_BACKEND_CUDA)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define EDDY_HOST_DEVICE __host__ __device__
#define EDDY_GPU_RUNTIME_PREFIX cuda
#elif defined(EDDY_BACKEND_HIP)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define EDDY_HOST_DEVICE __host__ __device__
#define EDDY_GPU_RUNTIME_PREFIX hip
#elif defined(EDDY_BACKEND_CPU)
#define EDDY_HOST_DEVICE
#else
#error "define one of EDDY_BACKEND_CPU, EDDY_BACKEND_CUDA, EDDY_BACKEND_HIP (set by CMake's EDDY_BACKEND)"
#endif

namespace eddy {

/// The 16-bit IEEE half type of this backend (fp16 storage), with conversions usable in host and device code.
#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)
using half_t = __half;
EDDY_HOST_DEVICE inline float half_to_float(half_t h) { return __half2float(h); }
EDDY_HOST_DEVICE inline half_t float_to_half(float f) { return __float2half_rn(f); }
#else
using half_t = _Float16;
inline float half_to_float(half_t h) { return static_cast<float>(h); }
inline half_t float_to_half(float f) { return static_cast<half_t>(f); }
#endif

namespace backend {

/// "cpu", "cuda" or "hip".
const char* name();
/// True when this build runs kernels on a GPU.
constexpr bool is_gpu() {
#if defined(EDDY_BACKEND_CPU)
  return false;
#else
  return true;
#endif
}

/// Description of the compute device: name, memory in bytes (total / free), compute units.
struct DeviceInfo {
  std::string name;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  int compute_units = 0;  ///< SMs / CUs, or OpenMP threads on cpu
  int count = 0;          ///< devices visible (1 on cpu)
};

/// Number of GPUs visible (1 on the CPU backend; 0 when a GPU build finds none, never throws for that).
int device_count();
/// Information on device `index`; throws DeviceError when no device is visible.
DeviceInfo device_info(int index = 0);
/// Selects device `index` for this thread (no-op on cpu).
void select_device(int index);
/// The device selected for this thread (0 on cpu).
int current_device();

/// Allocates `bytes` of device memory. Throws OutOfMemoryError naming the size and the free
/// memory when it does not fit.
void* allocate(std::size_t bytes);
void release(void* ptr) noexcept;
/// Synchronous copies: each returns once its data have arrived, so work queued next on any stream sees them.
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);
/// Waits for all queued device work on every stream; also reports asynchronous kernel errors.
void synchronize();

/// An in-order queue of device work that runs concurrently with other streams (non-blocking with respect to the
/// default stream). On the CPU backend work runs at once and a Stream is a placeholder.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  /// cudaStream_t / hipStream_t (nullptr on cpu).
  void* handle() const { return handle_; }
  /// Waits for the work queued on this stream.
  void synchronize() const;

 private:
  void* handle_ = nullptr;
};

/// A marker in a stream: record() it in one stream, then make another stream wait() for it.
class Event {
 public:
  /// `timing`: the event also records when it was reached (for seconds_between); otherwise it is lighter.
  explicit Event(bool timing = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& stream);
  /// Work queued on `stream` after this call starts only when the recorded point has been reached.
  void wait(const Stream& stream) const;
  /// Blocks the host until the recorded point has been reached (at once when nothing was recorded).
  void synchronize() const;
  /// Seconds from reaching `start` to reaching `end`: both created with timing, recorded and reached (synchronize
  /// first). On cpu, where work runs at once, the host clock when record() ran.
  static double seconds_between(const Event& start, const Event& end);

 private:
  void* handle_ = nullptr;
  double host_seconds_ = 0.0;  // cpu: steady clock at record()
};

/// Page-locked host memory (for fast, asynchronous transfers); ordinary aligned memory on cpu. Throws DeviceError.
void* allocate_pinned(std::size_t bytes);
void release_pinned(void* ptr) noexcept;
/// Asynchronous copies queued on `stream` (synchronous memcpy on cpu).
void copy_to_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream);
void copy_to_host_async(void* dst, const void* src, std::size_t bytes, const Stream& stream);
void copy_on_device_async(void* dst, const void* src, std::size_t bytes, const Stream& stream);
/// Makes the work queued later on the runtime stream `waiting` wait for the work queued so far on the runtime stream
/// `producing`, through an event, without blocking the host: raw cudaStream_t / hipStream_t handles (Stream::handle,
/// or another library's), nullptr for the default stream. No-op on cpu, where work runs at once.
void order_streams(void* waiting, void* producing);
/// Checks the last kernel launch (no-op on cpu). `what` names the kernel in the error.
void check_launch(const char* what, const char* file, int line);

/// Largest threads per block along x that kernels/parallel_for.hpp may use (its launch bound).
inline constexpr int kMaxBlockSizeX = 512;
namespace detail {
inline int block_size_x_setting = 128;  // one per program (C++17 inline variable)
}  // namespace detail
/// Threads per block along x of the GPU box launches (default 128; ignored on cpu). A tuning knob for
/// `eddy bench --block-x`: throws std::invalid_argument unless `threads` is a multiple of 32 in [32, 512].
inline void set_block_size_x(int threads) {
  if (threads < 32 || threads > kMaxBlockSizeX || threads % 32 != 0) {
    throw std::invalid_argument("GPU block width must be a multiple of 32 between 32 and " +
                                std::to_string(kMaxBlockSizeX) + " (got " + std::to_string(threads) + ")");
  }
  detail::block_size_x_setting = threads;
}
inline int block_size_x() { return detail::block_size_x_setting; }

namespace detail {
inline bool odd_step_staging_setting = true;
}  // namespace detail
/// Whether the fused kernel's odd step stores its x-shifted populations through shared memory on GPUs, so that every
/// store is sector-aligned (kernels/odd_step_stage.hpp; default on, ignored on cpu). A tuning knob for
/// `eddy bench --odd-step staged|direct`: both give bitwise the same populations.
inline void set_odd_step_staging(bool staged) { detail::odd_step_staging_setting = staged; }
inline bool odd_step_staging() { return detail::odd_step_staging_setting; }
/// The staged odd step's threads per block: with another block_size_x() the odd step runs directly.
inline constexpr int kOddStepStageWidth = 128;

}  // namespace backend

/// Atomic 64-bit integer addition *address += value (wrapping modulo 2^64, relaxed ordering: only the final sum
/// matters), from any thread of a kernel: atomicAdd on cuda/hip device code, the GCC/Clang builtin
/// __atomic_fetch_add on the host (cpu backend, OpenMP threads). Used for fixed-point sums whose result must not
/// depend on the order of the additions (kernels/particles.hpp, ForceDepositView).
EDDY_HOST_DEVICE inline void atomic_add(unsigned long long* address, unsigned long long value) {
#if (defined(EDDY_BACKEND_CUDA) && defined(__CUDA_ARCH__)) || \
    (defined(EDDY_BACKEND_HIP) && defined(__HIP_DEVICE_COMPILE__))
  atomicAdd(address, value);
#else
  __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
#endif
}

/// Atomic 64-bit integer fetch-and-add: returns the old *address and adds `value` (relaxed ordering), from any thread
/// of a kernel: atomicAdd on cuda/hip device code, __atomic_fetch_add on the host. Used to hand out slots of an
/// output list (kernels/particle_ghosts.cpp, the voxeliser's work items in kernels/mesh_voxels.cpp), whose order
/// then depends on the threads' timing: its readers sort, or do not depend on the order.
EDDY_HOST_DEVICE inline unsigned long long atomic_fetch_add(unsigned long long* address, unsigned long long value) {
#if (defined(EDDY_BACKEND_CUDA) && defined(__CUDA_ARCH__)) || \
    (defined(EDDY_BACKEND_HIP) && defined(__HIP_DEVICE_COMPILE__))
  return atomicAdd(address, value);
#else
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
#endif
}

/// Atomic 32-bit minimum *address = min(*address, value) (relaxed ordering), from any thread of a kernel:
/// atomicMin on cuda/hip device code, a compare-and-swap loop on the host (cpu backend, OpenMP threads). Used for
/// the rare report of the first unstable step (StabilityView, kernels/views.hpp).
EDDY_HOST_DEVICE inline void atomic_min(unsigned int* address, unsigned int value) {
#if (defined(EDDY_BACKEND_CUDA) && defined(__CUDA_ARCH__)) || \
    (defined(EDDY_BACKEND_HIP) && defined(__HIP_DEVICE_COMPILE__))
  atomicMin(address, value);
#else
  unsigned int seen = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (value < seen &&
         !__atomic_compare_exchange_n(address, &seen, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

/// Atomic 32-bit exclusive or *address ^= value (relaxed ordering), from any thread of a kernel: atomicXor on
/// cuda/hip device code, __atomic_fetch_xor on the host. The result does not depend on the order of the calls (the
/// voxeliser's crossing parities, kernels/mesh_voxels.cpp).
EDDY_HOST_DEVICE inline void atomic_xor(unsigned int* address, unsigned int value) {
#if (defined(EDDY_BACKEND_CUDA) && defined(__CUDA_ARCH__)) || \
    (defined(EDDY_BACKEND_HIP) && defined(__HIP_DEVICE_COMPILE__))
  atomicXor(address, value);
#else
  __atomic_fetch_xor(address, value, __ATOMIC_RELAXED);
#endif
}

/// Throws DeviceError "<file>:<line>: <call> failed: <error string>" when a GPU runtime call fails.
[[noreturn]] void throw_device_error(const char* call, const char* file, int line, const char* error_name,
                                     const char* error_string, bool out_of_memory);

}  // namespace eddy

#if defined(EDDY_BACKEND_CUDA)
namespace eddy::backend {
using GpuDeviceProperties = cudaDeviceProp;  // the one runtime type whose name differs beyond the prefix
}
#elif defined(EDDY_BACKEND_HIP)
namespace eddy::backend {
using GpuDeviceProperties = hipDeviceProp_t;
}
#endif

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)
#define EDDY_GPU_CONCAT2(a, b) a##b
#define EDDY_GPU_CONCAT(a, b) EDDY_GPU_CONCAT2(a, b)
/// Runtime names shared by CUDA and HIP, spelled once: gpu(Malloc) -> cudaMalloc / hipMalloc.
#define gpu(name) EDDY_GPU_CONCAT(EDDY_GPU_RUNTIME_PREFIX, name)
#define EDDY_GPU_CHECK(call)                                                                     \
  do {                                                                                           \
    auto eddy_gpu_status_ = (call);                                                              \
    if (eddy_gpu_status_ != gpu(Success)) {                                                      \
      ::eddy::throw_device_error(#call, __FILE__, __LINE__, gpu(GetErrorName)(eddy_gpu_status_), \
                                 gpu(GetErrorString)(eddy_gpu_status_),                          \
                                 eddy_gpu_status_ == gpu(ErrorMemoryAllocation));                \
    }                                                                                            \
  } while (0)
#endif
