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

#include "kernels/backend.hpp"

namespace eddy {

/// Identifies the draws of one time step: the step number and the global index of the block's interior cell
/// (1, 1, 1) (block-local coordinates of a cell + origin - 1 = its global coordinates).
struct RoundingKey {
  std::uint32_t step;
  int origin[3];
};

class RoundingBits {
 public:
  /// Draws for the cell at block-local (x, y, z).
  EDDY_HOST_DEVICE RoundingBits(const RoundingKey& key, int x, int y, int z) {
    std::uint32_t h = std::uint32_t(x + key.origin[0] - 1) * 0x9e3779b1u;
    h ^= std::uint32_t(y + key.origin[1] - 1) * 0x85ebca77u;
    h ^= std::uint32_t(z + key.origin[2] - 1) * 0xc2b2ae3du;
    h ^= key.step * 0x27d4eb2fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    state_ = h;
  }
  /// Next value; its low 13 bits are the generator's high bits (the well-mixed ones).
  EDDY_HOST_DEVICE std::uint32_t next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 19;
  }

 private:
  std::uint32_t state_;
};

}  // namespace eddy
