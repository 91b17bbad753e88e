// for_each_target_tiled: all pairs (target, source) with the sources staged in tiles, for the particles' all-pairs
// contacts and pair gravity (kernels/particle_pairs.cpp). Included only by kernel sources (kernels/*.cpp), which
// CMake compiles with the backend's device compiler.
// Memory traffic on GPUs: each block reads every source once (n_targets / kPairTileSize * n_sources source loads in
// all) and each target once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/backend.hpp"

namespace eddy {

/// Threads per block of for_each_target_tiled on GPUs, and the number of sources one block stages in shared memory
/// per round.
inline constexpr int kPairTileSize = 128;

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

template <class F>
__global__ void __launch_bounds__(kPairTileSize)
    target_tiled_kernel(F f, std::int64_t n_targets, std::int64_t n_sources) {
  using Source = typename F::Source;
  __shared__ Source tile[kPairTileSize];
  const std::int64_t i = std::int64_t(blockIdx.x) * kPairTileSize + threadIdx.x;
  const bool active = i < n_targets;
  typename F::Accumulator acc{};
  if (active) acc = f.start(i);
  for (std::int64_t base = 0; base < n_sources; base += kPairTileSize) {
    const std::int64_t j = base + threadIdx.x;
    if (j < n_sources) tile[threadIdx.x] = f.source(j);
    __syncthreads();
    const int count = n_sources - base < kPairTileSize ? int(n_sources - base) : kPairTileSize;
    if (active) {
      for (int k = 0; k < count; ++k) f.interact(acc, i, tile[k]);
    }
    __syncthreads();
  }
  if (active) f.finish(i, acc);
}

/// All pairs (target i, source j): for every target i in [0, n_targets), acc = f.start(i); then
/// f.interact(acc, i, f.source(j)) for j = 0, 1, ..., n_sources - 1 in that order; then f.finish(i, acc).
/// The functor provides the types F::Source (what a target needs of a source: a small trivially copyable struct,
/// e.g. position and mass) and F::Accumulator, and EDDY_HOST_DEVICE members
///   Source source(std::int64_t j) const;
///   Accumulator start(std::int64_t i) const;
///   void interact(Accumulator& acc, std::int64_t i, const Source& s) const;
///   void finish(std::int64_t i, const Accumulator& acc) const;
/// On GPUs one thread per target; each block stages kPairTileSize sources at a time in shared memory and every
/// thread of the block reads them from there (n_sources / kPairTileSize global loads per block instead of n_sources
/// per thread). On cpu an OpenMP loop over targets. Every backend accumulates the sources in index order, so cpu and
/// GPU sum in the same order. Cost: n_targets * n_sources interactions.
template <class F>
void for_each_target_tiled(std::int64_t n_targets, std::int64_t n_sources, const F& f, const char* name,
                           const backend::Stream* stream = nullptr) {
  static_assert(std::is_trivially_default_constructible<typename F::Source>::value &&
                    std::is_trivially_copyable<typename F::Source>::value,
                "F::Source lives in shared memory: it must be a plain struct (no constructors, no initialisers)");
  if (n_targets <= 0) return;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const std::int64_t blocks = (n_targets + kPairTileSize - 1) / kPairTileSize;
  target_tiled_kernel<<<unsigned(blocks), kPairTileSize, 0, queue>>>(f, n_targets, n_sources);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

template <class F>
void for_each_target_tiled(std::int64_t n_targets, std::int64_t n_sources, const F& f, const char* /*name*/,
                           const backend::Stream* /*stream*/ = nullptr) {
  static_assert(std::is_trivially_default_constructible<typename F::Source>::value &&
                    std::is_trivially_copyable<typename F::Source>::value,
                "F::Source lives in shared memory on GPUs: it must be a plain struct");
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n_targets; ++i) {
    typename F::Accumulator acc = f.start(i);
    for (std::int64_t j = 0; j < n_sources; ++j) f.interact(acc, i, f.source(j));
    f.finish(i, acc);
  }
}

#endif

}  // namespace eddy
