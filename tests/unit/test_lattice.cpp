// D3Q19 velocity set: weights, velocity moments up to fourth order, opposite directions, block indexing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/fast_divisor.hpp"
#include "tests/reference/reference_lbm.hpp"

namespace eddy {
namespace {

using d3q19::c;
using d3q19::Q;
using d3q19::w;

TEST(Lattice, WeightsSumToOne) {
  double sum = 0.0;
  for (int i = 0; i < Q; ++i) sum += w<double>(i);
  EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST(Lattice, OddMomentsVanish) {
  for (int a = 0; a < 3; ++a) {
    double first = 0.0;
    for (int i = 0; i < Q; ++i) first += w<double>(i) * c(i, a);
    EXPECT_NEAR(first, 0.0, 1e-15) << "axis " << a;
    for (int b = 0; b < 3; ++b)
      for (int g = 0; g < 3; ++g) {
        double third = 0.0;
        for (int i = 0; i < Q; ++i) third += w<double>(i) * c(i, a) * c(i, b) * c(i, g);
        EXPECT_NEAR(third, 0.0, 1e-15);
      }
  }
}

TEST(Lattice, SecondMomentIsCs2Identity) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double m = 0.0;
      for (int i = 0; i < Q; ++i) m += w<double>(i) * c(i, a) * c(i, b);
      EXPECT_NEAR(m, a == b ? 1.0 / 3.0 : 0.0, 1e-15) << a << "," << b;
    }
}

TEST(Lattice, FourthMomentIsIsotropic) {
  // sum_i w_i c_ia c_ib c_ig c_id = c_s^4 (d_ab d_gd + d_ag d_bd + d_ad d_bg)   (Krueger et al. 2017, eq. 3.60)
  const double cs4 = 1.0 / 9.0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int g = 0; g < 3; ++g)
        for (int d = 0; d < 3; ++d) {
          double m = 0.0;
          for (int i = 0; i < Q; ++i) m += w<double>(i) * c(i, a) * c(i, b) * c(i, g) * c(i, d);
          const double expected = cs4 * ((a == b) * (g == d) + (a == g) * (b == d) + (a == d) * (b == g));
          EXPECT_NEAR(m, expected, 1e-15);
        }
}

TEST(Lattice, OppositeDirections) {
  for (int i = 0; i < Q; ++i) {
    const int o = d3q19::opp(i);
    EXPECT_EQ(d3q19::opp(o), i);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(c(o, a), -c(i, a)) << "direction " << i;
  }
}

TEST(Lattice, VelocitiesAreTheNineteenDistinctNeighbours) {
  for (int i = 0; i < Q; ++i) {
    const int norm2 = c(i, 0) * c(i, 0) + c(i, 1) * c(i, 1) + c(i, 2) * c(i, 2);
    EXPECT_LE(norm2, 2);
    EXPECT_DOUBLE_EQ(w<double>(i), norm2 == 0 ? 1.0 / 3 : (norm2 == 1 ? 1.0 / 18 : 1.0 / 36));
    for (int j = 0; j < i; ++j)
      EXPECT_FALSE(c(i, 0) == c(j, 0) && c(i, 1) == c(j, 1) && c(i, 2) == c(j, 2)) << i << " repeats " << j;
  }
}

/// 2^58 times a weight of R, as an integer: every weight of R is a multiple of 2^-58 (float's of 2^-29, double's 1/36
/// of 2^-58), so the scaled value is an integer below 2^57 and sums of 19 of them are exact in 64 bits.
template <class R>
std::int64_t scaled_weight(R weight) {
  const double scaled = std::ldexp(double(weight), 58);
  EXPECT_EQ(scaled, std::floor(scaled)) << weight;
  return std::int64_t(scaled);
}

// The collision's rest population takes the weight w_rest_head + w_rest_tail in its mass-carrying terms
// (kernels/collision.hpp): with the 18 others (w<R>) the weights must sum to exactly 1, which w<R>(0) does not
// (float: 1 + 2^-26, double: 1 - 2^-54), and the two parts must be 1/3 to R's precision. The other identities the
// collision relies on hold for w: 4.5 w_i and 9 w_i (i > 0) round to exactly 1/4, 1/8 and 1/2, 1/4.
template <class R>
void expect_weight_identities(std::int64_t nearest_excess) {
  constexpr std::int64_t one = std::int64_t(1) << 58;
  std::int64_t moving = 0;
  for (int i = 1; i < Q; ++i) moving += scaled_weight(w<R>(i));
  EXPECT_EQ(scaled_weight(w<R>(0)) + moving - one, nearest_excess);
  EXPECT_EQ(scaled_weight(d3q19::w_rest_head<R>()) + scaled_weight(d3q19::w_rest_tail<R>()) + moving, one);
  EXPECT_NEAR(double(d3q19::w_rest_head<R>()) + double(d3q19::w_rest_tail<R>()), 1.0 / 3.0,
              std::numeric_limits<R>::epsilon() / 3.0);
  for (int i = 1; i < Q; ++i) {
    EXPECT_EQ(R(4.5) * w<R>(i), i <= 6 ? R(0.25) : R(0.125)) << "direction " << i;
    EXPECT_EQ(R(9) * w<R>(i), i <= 6 ? R(0.5) : R(0.25)) << "direction " << i;
  }
}

TEST(Lattice, RestWeightPartsMakeTheWeightsSumToOne) {
  expect_weight_identities<float>(std::int64_t(1) << 32);   // 2^-26
  expect_weight_identities<double>(-(std::int64_t(1) << 4));  // -2^-54
}

TEST(Lattice, OracleTableMatchesKernelTable) {
  for (int i = 0; i < Q; ++i) {
    for (int a = 0; a < 3; ++a) EXPECT_EQ(reference::kVelocity[i][a], c(i, a));
    EXPECT_DOUBLE_EQ(reference::kWeight[i], w<double>(i));
  }
}

TEST(Block, IndexingWithGhostLayer) {
  const BlockShape s{{4, 3, 2}};
  // Rows of 6 cells are padded to a pitch of 8.
  EXPECT_EQ(s.pitch(), 8);
  EXPECT_EQ(s.n_cells(), 8 * 5 * 4);
  EXPECT_EQ(s.interior_cells(), 24);
  EXPECT_EQ(s.index(0, 0, 0), 0);
  EXPECT_EQ(s.index(1, 0, 0), 1);
  EXPECT_EQ(s.index(0, 1, 0), 8);
  EXPECT_EQ(s.index(0, 0, 1), 8 * 5);
  EXPECT_EQ(s.index(5, 4, 3), s.n_cells() - 3);  // the last row's two padding cells follow
  EXPECT_EQ(s.index(2, 1, 1) + s.offset(1, -1, 1), s.index(3, 0, 2));
  for (int nx : {1, 5, 6, 7, 13, 510, 512}) {
    const BlockShape t{{nx, 2, 2}};
    EXPECT_EQ(t.pitch() % BlockShape::kRowAlignment, 0);
    EXPECT_GE(t.pitch(), nx + 2);
    EXPECT_LT(t.pitch(), nx + 2 + BlockShape::kRowAlignment);
  }
  const Box in = s.interior();
  EXPECT_EQ(in.cells(), 24);
  EXPECT_EQ(in.lo[0], 1);
  EXPECT_EQ(in.hi[2], 3);
}

TEST(FastDivisor, QuotientsEqualIntegerDivision) {
  // Divisors of the block extents in use (rows and planes of ghost-layered blocks), powers of two and their
  // neighbours, and the largest; dividends near 0, near multiples of d and near 2^32.
  std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 10, 14, 66, 130, 258, 514, 1026, 266256, 264196, 0xffffffffu};
  for (int b = 2; b < 32; ++b) {
    for (std::int64_t off : {-1, 0, 1}) divisors.push_back(std::uint32_t((std::int64_t(1) << b) + off));
  }
  std::mt19937 rng(7);
  for (const std::uint32_t d : divisors) {
    const FastDivisor fast(d);
    std::vector<std::uint32_t> dividends = {0u, 1u, d - 1u, d, d + 1u, 0xffffffffu, 0xfffffffeu, 0x80000000u};
    for (std::uint32_t q : {2u, 3u, 1000u, 0xffffffffu / d}) {
      const std::uint64_t n = std::uint64_t(q) * d;
      for (std::int64_t off : {-1, 0, 1}) {
        if (std::int64_t(n) + off >= 0 && std::int64_t(n) + off <= 0xffffffffll) dividends.push_back(std::uint32_t(n + off));
      }
    }
    for (int k = 0; k < 2000; ++k) dividends.push_back(rng());
    for (const std::uint32_t n : dividends) ASSERT_EQ(fast.divide(n), n / d) << n << " / " << d;
  }
  EXPECT_THROW(FastDivisor(0), std::invalid_argument);
}

}  // namespace
}  // namespace eddy
