// Storage formats of the populations. Kernels hold shifted populations g_i = f_i - w_i (kernels/equilibrium.hpp)
// and compute in compute_t<T>; Stored<T> converts between the stored T and that arithmetic type.
//   float  : g stored as is, arithmetic in float;
//   double : g stored as is, arithmetic in double;
//   fp16   : g * 2^14 stored as IEEE half, arithmetic in float. The scale keeps |g| down to ~4e-9 out of half's
//            subnormal range while |g| up to 4 (far beyond any stable flow: |g_i| <= ~0.1 at Ma 0.3) stays below
//            half's largest value 65504; half keeps 11 significant bits of each g.
//
// fp16 rounding. Round-to-nearest makes a weak steady flow stall: once a population's change per step (a body
// force adds ~w_i 3 c_i.F, ~1e-6 for a Poiseuille channel) is below half a unit in the last place (~5e-7 at
// |g| ~ 1e-3), every step rounds it back and the flow freezes short of its steady state (measured: a Poiseuille
// channel of width 64 stopped 40 % below its peak velocity). The kernels therefore store with stochastic rounding:
// g is rounded up or down to a neighbouring half with probabilities proportional to its distance from the other
// one, so the rounding error has zero mean and small increments accumulate on average (Connolly, Higham & Mary
// 2021, SIAM J. Sci. Comput. 43(1), A566; Croci et al. 2022, R. Soc. Open Sci. 9, 211631). The random bits come
// from kernels/rounding_bits.hpp, a pure function of global cell and step, so runs stay deterministic and
// independent of the decomposition. float and double ignore them.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/backend.hpp"

namespace eddy {

template <class T>
struct Stored;

// Interface of Stored<T>:
//   kScale: the stored value is g * kScale (1 for float and double);
//   load(s) -> g, store(g): unscaled, round to nearest (initial states, read-outs, test set-up);
//   load_scaled(s) -> g * kScale, store_scaled(g * kScale, random_bits): the fused kernel's path, which keeps
//     populations scaled through the collision (kernels/collision.hpp), so no value is multiplied on its way in
//     or out. random_bits: fp16's stochastic rounding threshold, below 2^kDroppedBits, and 0 for a value that is
//     not finite (kernels/rounding_bits.hpp draws 0 for a whole cell whose moments are not finite).

/// float and double: g stored as is; the arithmetic itself rounds to nearest, so the random bits are unused.
template <class T>
struct StoredAsIs {
  using compute = T;
  static constexpr T kScale = T(1);
  EDDY_HOST_DEVICE static T load(T s) { return s; }
  EDDY_HOST_DEVICE static T store(T g) { return g; }
  EDDY_HOST_DEVICE static T load_scaled(T s) { return s; }
  EDDY_HOST_DEVICE static T store_scaled(T g, std::uint32_t /*random_bits*/) { return g; }
};

template <>
struct Stored<float> : StoredAsIs<float> {};

template <>
struct Stored<double> : StoredAsIs<double> {};

template <>
struct Stored<half_t> {
  using compute = float;
  static constexpr float kScale = 16384.0f;  // 2^14
  /// Bits of a float's significand below half precision (23 - 10).
  static constexpr std::uint32_t kDroppedBits = 13;
  static constexpr std::uint32_t kDroppedMask = (1u << kDroppedBits) - 1u;

  EDDY_HOST_DEVICE static float load(half_t s) { return half_to_float(s) * (1.0f / kScale); }
  /// Round to nearest (initial states, test set-up).
  EDDY_HOST_DEVICE static half_t store(float g) { return float_to_half(g * kScale); }
  EDDY_HOST_DEVICE static float load_scaled(half_t s) { return half_to_float(s); }
  /// Stochastic rounding of `scaled` = g * 2^14 with `random_bits` (uniform below 2^kDroppedBits): they are added
  /// to its magnitude below half's last place, which is then cut off, so |g| rounds up with probability equal to
  /// the cut-off fraction. The result is exactly representable, so the final conversion does not round again.
  /// Exact for scaled values in half's normal range (|g| >= 2^-28); below it the subnormal conversion rounds to
  /// nearest. Infinity passes through; NaN passes through when random_bits is 0 (the caller's duty: a NaN's
  /// all-ones significand would carry into the sign bit), and a value beyond half's range becomes infinity.
  EDDY_HOST_DEVICE static half_t store_scaled(float scaled, std::uint32_t random_bits) {
    std::uint32_t bits;
    std::memcpy(&bits, &scaled, sizeof bits);
    bits = (bits + random_bits) & ~kDroppedMask;
    float rounded;
    std::memcpy(&rounded, &bits, sizeof rounded);
    return float_to_half(rounded);
  }
};

/// Arithmetic type for storage type T.
template <class T>
using compute_t = typename Stored<T>::compute;

}  // namespace eddy
