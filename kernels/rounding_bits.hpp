// Random bits for the stochastic rounding of fp16 storage (kernels/storage.hpp).
//
// Each cell update draws one 32-bit hash of (global cell coordinates, time step) and then one value per population
// from a linear congruential generator seeded with it. The bits depend only on where and when a cell is updated, so
// a run gives the same result on every decomposition and every backend. Quality needed is modest: the low 13
// bits of each draw set a rounding threshold, and successive draws feed different populations.
//   hash: the 32-bit finalizer of MurmurHash3 (Appleby, public domain), applied to a multiplicative mix of the inputs;
//   generator: x <- 1664525 x + 1013904223 mod 2^32 (Numerical Recipes, 2nd ed., sec. 7.1), high bits used.
#pragma once

#include <cstdint>
#include <limits>

#include "kernels/backend.hpp"

namespace eddy {

/// Identifies the draws of one time step: the step number and the global index of the block's interior cell
/// (1, 1, 1) (block-local coordinates of a cell + origin - 1 = its global coordinates).
struct RoundingKey {
  std::uint32_t step;
  int origin[3];
};

/// False when rho or u is NaN or infinite (or so large that rho^2 + |u|^2 overflows): the test RoundingBits
/// takes for a cell. A NaN or infinite population makes its moment sums so.
template <class R>
EDDY_HOST_DEVICE inline bool finite_moments(R rho, const R (&u)[3]) {
  return rho * rho + u[0] * u[0] + u[1] * u[1] + u[2] * u[2] <= std::numeric_limits<R>::max();
}

class RoundingBits {
 public:
  /// Draws for the cell at block-local (x, y, z). `finite`: false when the cell's moments are not finite; every
  /// draw is then 0, so a NaN is stored unchanged (Stored<half_t>::store_scaled). One test per cell instead of one
  /// per stored value: a NaN or infinite population makes the moments non-finite.
  EDDY_HOST_DEVICE RoundingBits(const RoundingKey& key, int x, int y, int z, bool finite) {
    std::uint32_t h = std::uint32_t(x + key.origin[0] - 1) * 0x9e3779b1u;
    h ^= std::uint32_t(y + key.origin[1] - 1) * 0x85ebca77u;
    h ^= std::uint32_t(z + key.origin[2] - 1) * 0xc2b2ae3du;
    h ^= key.step * 0x27d4eb2fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    // A zero state with a zero increment stays zero: the generator then draws only zeros.
    state_ = finite ? h : 0u;
    increment_ = finite ? 1013904223u : 0u;
  }
  /// Next value, below 2^13: the generator's 13 high bits (the well-mixed ones).
  EDDY_HOST_DEVICE std::uint32_t next() {
    state_ = state_ * 1664525u + increment_;
    return state_ >> 19;
  }

 private:
  std::uint32_t state_;
  std::uint32_t increment_;
};

}  // namespace eddy
