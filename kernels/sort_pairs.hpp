// sort_pairs: (key, value) pairs sorted by key on the device, for the particles' cell lists
// (kernels/particle_contacts.cpp). CUB on cuda (CUDA toolkit), rocPRIM on hip (package librocprim-dev), the C++17
// parallel algorithms on cpu (libstdc++ runs them on TBB, linked by CMake where found; serially otherwise).
// Included only by kernel sources (kernels/*.cpp), which CMake compiles with the backend's device compiler.
// Memory traffic: a radix sort's passes over keys and values (GPU libraries); on cpu one pack, the sort, one unpack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/backend.hpp"
#if defined(EDDY_BACKEND_CUDA)
#include <cub/device/device_radix_sort.cuh>
#elif defined(EDDY_BACKEND_HIP)
#include <rocprim/device/device_radix_sort.hpp>
#else
#include <algorithm>
#include <execution>
#endif

namespace eddy {

namespace detail {
/// Checks the arguments every backend's sort_pairs shares; throws std::length_error / std::invalid_argument.
inline void check_sort_pairs_arguments(std::int64_t n, int end_bit) {
  if (n < 0 || n > std::int64_t(0x7fffffff)) {
    throw std::length_error("sort_pairs: " + std::to_string(n) + " pairs (at most 2^31 - 1 are supported)");
  }
  if (end_bit < 1 || end_bit > 64) {
    throw std::invalid_argument("sort_pairs: end_bit must be in [1, 64] (got " + std::to_string(end_bit) + ")");
  }
}
inline void check_sort_pairs_scratch(std::size_t have, std::size_t need) {
  if (have < need) {
    throw std::invalid_argument("sort_pairs: scratch of " + std::to_string(have) + " bytes, " + std::to_string(need) +
                                " needed (sort_pairs_scratch_bytes)");
  }
}
}  // namespace detail

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

namespace detail {
/// One library call for the size query (scratch == nullptr) and the sort.
inline gpu(Error_t) radix_sort_pairs(void* scratch, std::size_t& bytes, const std::uint64_t* keys_in,
                                     std::uint64_t* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                                     std::int64_t n, int end_bit, gpu(Stream_t) queue) {
#if defined(EDDY_BACKEND_CUDA)
  return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out, int(n), 0, end_bit,
                                         queue);
#else
  return rocprim::radix_sort_pairs(scratch, bytes, keys_in, keys_out, values_in, values_out, std::size_t(n), 0u,
                                   unsigned(end_bit), queue);
#endif
}
}  // namespace detail

/// Bytes of device scratch sort_pairs needs for `n` pairs with keys < 2^end_bit (a host-side query, no device
/// work; the GPU libraries size it by both). Throws std::length_error when n > 2^31 - 1.
inline std::size_t sort_pairs_scratch_bytes(std::int64_t n, int end_bit = 64) {
  detail::check_sort_pairs_arguments(n, end_bit);
  std::size_t bytes = 0;
  EDDY_GPU_CHECK(detail::radix_sort_pairs(
      nullptr, bytes, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
      static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), n, end_bit, nullptr));
  return bytes;
}

/// Sorts `n` (key, value) pairs by key, ascending: keys_out / values_out receive keys_in / values_in reordered
/// (device arrays of n entries; in and out must not overlap). Only bits [0, end_bit) of the keys are compared:
/// keys must be < 2^end_bit (fewer bits, fewer radix passes). Equal keys keep their input order (radix sorts are
/// stable); the cpu backend orders them by value instead, so both agree when the keys are unique or values_in is
/// ascending. `scratch`: device memory of at least sort_pairs_scratch_bytes(n, end_bit) bytes, else
/// std::invalid_argument. cub::DeviceRadixSort::SortPairs on cuda, rocprim::radix_sort_pairs on hip,
/// asynchronous in `stream`. Throws std::length_error when n > 2^31 - 1, DeviceError when the library call fails.
inline void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::int64_t n, int end_bit, void* scratch, std::size_t scratch_bytes,
                       const backend::Stream* stream = nullptr) {
  detail::check_sort_pairs_scratch(scratch_bytes, sort_pairs_scratch_bytes(n, end_bit));
  if (n == 0) return;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  std::size_t bytes = scratch_bytes;
  EDDY_GPU_CHECK(detail::radix_sort_pairs(scratch, bytes, keys_in, keys_out, values_in, values_out, n, end_bit, queue));
}

#else

namespace detail {
struct SortPair {
  std::uint64_t key;
  std::uint32_t value;
};
}  // namespace detail

inline std::size_t sort_pairs_scratch_bytes(std::int64_t n, int end_bit = 64) {
  detail::check_sort_pairs_arguments(n, end_bit);
  return std::size_t(n) * sizeof(detail::SortPair);
}

/// cpu: the pairs are packed into `scratch`, sorted with std::sort(std::execution::par_unseq) by (key, value) and
/// unpacked. Synchronous.
inline void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::int64_t n, int end_bit, void* scratch, std::size_t scratch_bytes,
                       const backend::Stream* /*stream*/ = nullptr) {
  detail::check_sort_pairs_scratch(scratch_bytes, sort_pairs_scratch_bytes(n, end_bit));
  auto* pairs = static_cast<detail::SortPair*>(scratch);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) pairs[k] = detail::SortPair{keys_in[k], values_in[k]};
  std::sort(std::execution::par_unseq, pairs, pairs + n, [](const detail::SortPair& a, const detail::SortPair& b) {
    return a.key < b.key || (a.key == b.key && a.value < b.value);
  });
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    keys_out[k] = pairs[k].key;
    values_out[k] = pairs[k].value;
  }
}

#endif

}  // namespace eddy
