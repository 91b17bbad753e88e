// Storage formats (kernels/storage.hpp), the scaled collision the fused kernel runs on them (kernels/collision.hpp)
// and the random bits of fp16's stochastic rounding (kernels/rounding_bits.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "kernels/collision.hpp"
#include "kernels/rounding_bits.hpp"
#include "kernels/storage.hpp"

namespace eddy {
namespace {

using d3q19::Q;
using Half = Stored<half_t>;

TEST(ScaledCollision, EqualsThePlainCollisionTimesTheScale) {
  // The kernels keep fp16 populations as 2^14 g through the collision. A power-of-two scale is exact in every
  // product and sum, so the scaled collision must give 2^14 times the plain one bit for bit (a term left unscaled,
  // such as a source or equilibrium part, breaks this).
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  for (const bool trt : {false, true}) {
    Relaxation<double> p{1.0 / 0.57, 0.0, {2e-5, -1e-5, 3e-6}};
    p.omega_minus = trt ? trt_omega_minus(p.omega_plus, 3.0 / 16.0) : p.omega_plus;
    double plain[Q], scaled[Q];
    for (int i = 0; i < Q; ++i) {
      plain[i] = noise(rng);
      scaled[i] = Half::kScale * plain[i];
    }
    double rho_plain, u_plain[3], rho_scaled, u_scaled[3];
    collide(plain, p, rho_plain, u_plain);
    collide(scaled, p, rho_scaled, u_scaled, double(Half::kScale));
    EXPECT_EQ(rho_scaled, rho_plain);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(u_scaled[a], u_plain[a]) << "axis " << a;
    for (int i = 0; i < Q; ++i) EXPECT_EQ(scaled[i], Half::kScale * plain[i]) << "direction " << i;
  }
}

TEST(Fp16Storage, StochasticRoundingIsUnbiasedOverAllThresholds) {
  // A scaled value 1 + k/8 ulp above 1.0 (ulp of half at 1.0: 2^-10) must round up for exactly k/8 of the 2^13
  // thresholds and down otherwise, so that the mean of the stored value is the value itself.
  const std::uint32_t thresholds = Half::kDroppedMask + 1u;
  for (int k = 0; k <= 8; ++k) {
    const float scaled = 1.0f + float(k) / 8.0f * 0x1p-10f;
    double sum = 0;
    int up = 0;
    for (std::uint32_t r = 0; r < thresholds; ++r) {
      const float stored = half_to_float(Half::store_scaled(scaled, r));
      ASSERT_TRUE(stored == 1.0f || stored == 1.0f + 0x1p-10f) << "k " << k << " r " << r << ": " << stored;
      up += stored > 1.0f;
      sum += stored;
    }
    EXPECT_EQ(up, int(thresholds) * k / 8) << "k " << k;
    EXPECT_DOUBLE_EQ(sum / thresholds, double(scaled)) << "k " << k;
  }
  // Negative values round in magnitude the same way.
  EXPECT_EQ(half_to_float(Half::store_scaled(-1.5f * 0x1p-10f - 1.0f, Half::kDroppedMask)), -1.0f - 0x1p-9f);
}

TEST(Fp16Storage, NonFiniteValuesPassThroughWithZeroBits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(half_to_float(Half::store_scaled(nan, 0u))));
  EXPECT_TRUE(std::isnan(half_to_float(Half::store_scaled(-nan, 0u))));
  EXPECT_EQ(half_to_float(Half::store_scaled(inf, Half::kDroppedMask)), inf);
  EXPECT_EQ(half_to_float(Half::store_scaled(-inf, Half::kDroppedMask)), -inf);
  // Beyond half's largest value 65504: infinity, which the run's NaN check then reports.
  EXPECT_EQ(half_to_float(Half::store_scaled(1e6f, 0u)), inf);
}

TEST(RoundingBits, DrawsThirteenVariedBitsAndOnlyZerosForANonFiniteCell) {
  const RoundingKey key{17u, {1, 1, 1}};
  RoundingBits live(key, 3, 4, 5, true);
  std::uint32_t seen_or = 0, seen_and = ~0u;
  for (int i = 0; i < Q; ++i) {
    const std::uint32_t r = live.next();
    EXPECT_LE(r, Half::kDroppedMask);
    seen_or |= r;
    seen_and &= r;
  }
  EXPECT_EQ(seen_or, Half::kDroppedMask) << "some of the 13 bits never set in 19 draws";
  EXPECT_EQ(seen_and, 0u) << "some of the 13 bits always set in 19 draws";
  RoundingBits dead(key, 3, 4, 5, false);
  for (int i = 0; i < Q; ++i) EXPECT_EQ(dead.next(), 0u);
}

TEST(RoundingBits, FiniteMomentsTest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(finite_moments(1.0f, {0.1f, -0.2f, 0.0f}));
  EXPECT_FALSE(finite_moments(nan, {0.1f, -0.2f, 0.0f}));
  EXPECT_FALSE(finite_moments(1.0f, {0.1f, inf, 0.0f}));
  EXPECT_FALSE(finite_moments(1.0f, {0.1f, 0.0f, -nan}));
  EXPECT_FALSE(finite_moments(-inf, {0.0f, 0.0f, 0.0f}));
}

}  // namespace
}  // namespace eddy
