// Storage formats of the populations. Kernels hold shifted populations g_i = f_i - w_i (kernels/equilibrium.hpp)
// and compute in compute_t<T>; Stored<T> converts between the stored T and that arithmetic type.
//   float  : g stored as is, arithmetic in float;
//   double : g stored as is, arithmetic in double;
//   fp16   : g * 2^14 stored as IEEE half, arithmetic in float. The scale keeps |g| down to ~4e-9 out of half's
//            subnormal range while |g| up to 4 (far beyond any stable flow: |g_i| <= ~0.1 at Ma 0.3) stays below
//            half's largest value 65504; half keeps 11 significant bits of each g.
#pragma once

#include "kernels/backend.hpp"

namespace eddy {

template <class T>
struct Stored;

template <>
struct Stored<float> {
  using compute = float;
  EDDY_HOST_DEVICE static float load(float s) { return s; }
  EDDY_HOST_DEVICE static float store(float g) { return g; }
};

template <>
struct Stored<double> {
  using compute = double;
  EDDY_HOST_DEVICE static double load(double s) { return s; }
  EDDY_HOST_DEVICE static double store(double g) { return g; }
};

template <>
struct Stored<half_t> {
  using compute = float;
  static constexpr float kScale = 16384.0f;  // 2^14
  EDDY_HOST_DEVICE static float load(half_t s) { return half_to_float(s) * (1.0f / kScale); }
  EDDY_HOST_DEVICE static half_t store(float g) { return float_to_half(g * kScale); }
};

/// Arithmetic type for storage type T.
template <class T>
using compute_t = typename Stored<T>::compute;

}  // namespace eddy
