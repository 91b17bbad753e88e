// Division of 32-bit unsigned integers by a divisor fixed before a launch, for index arithmetic in kernels: GPUs have
// no integer divide instruction, and `/` by a runtime value compiles to a sequence of about 20 instructions; this
// takes a multiply-high, a subtract, an add and two shifts.
//
// Method: Granlund & Montgomery (1994), "Division by invariant integers using multiplication", PLDI '94, sec. 4,
// Fig. 4.1 (unsigned division, N = 32 bits). With l = ceil(log2 d):
//   m = floor(2^32 (2^l - d) / d) + 1,   t = mulhi(m, n),   q = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0)
// gives q = floor(n / d) for every 0 <= n < 2^32 and 1 <= d < 2^32 (m < 2^32 because 2^(l-1) < d <= 2^l).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "kernels/backend.hpp"

namespace eddy {

struct FastDivisor {
  std::uint32_t d = 1;    ///< the divisor
  std::uint32_t m = 1;    ///< the magic multiplier
  std::uint32_t sh1 = 0;  ///< min(l, 1)
  std::uint32_t sh2 = 0;  ///< max(l - 1, 0)

  FastDivisor() = default;
  /// Throws std::invalid_argument for d = 0.
  explicit FastDivisor(std::uint32_t divisor) : d(divisor) {
    if (divisor == 0) throw std::invalid_argument("FastDivisor: division by zero");
    std::uint32_t l = 0;
    while ((std::uint64_t(1) << l) < divisor) ++l;
    m = std::uint32_t((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - divisor) / divisor + 1);
    sh1 = l < 1 ? l : 1;
    sh2 = l > 1 ? l - 1 : 0;
  }

  /// floor(n / d).
  EDDY_HOST_DEVICE std::uint32_t divide(std::uint32_t n) const {
    const std::uint32_t t = std::uint32_t((std::uint64_t(m) * n) >> 32);
    return (t + ((n - t) >> sh1)) >> sh2;
  }
};

}  // namespace eddy
