// 2D lid-driven cavity (N x N x 1, periodic z) against Ghia, Ghia & Shin (1982), J. Comput. Phys. 48, 387,
// Tables I and II: u along the vertical centreline and v along the horizontal centreline, interpolated to Ghia's
// stations with a cubic spline; RMS error over the interior stations below 1.5 % of the lid speed at Re = 100.
// Reference files (tests/data) are copied from the project's shared reference set with their source headers.
#include <gtest/gtest.h>

#include <iostream>

#include "solver/simulation.hpp"
#include "tests/physics/cavity_reference.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::cavity_vs_reference;
using test::GhiaErrors;

TEST(CavityGhia, Re100AtN64) {
  EDDY_REQUIRE_DEVICE();
  const GhiaErrors e = cavity_vs_reference(64, 100.0, 30.0, Precision::float32, {test::ghia1982("100")}).at(0);
  std::cout << "[ ghia ] Re 100, N 64, float: RMS error u " << e.u_rms << ", v " << e.v_rms << " (lid speed 1)\n";
  EXPECT_LT(e.u_rms, 0.015);
  EXPECT_LT(e.v_rms, 0.015);
}

TEST(CavityGhia, Re100AtN64Fp16Storage) {
  // fp16 storage (scaled f_i - w_i in 16 bits, arithmetic in float): within 2 % of the lid speed.
  EDDY_REQUIRE_DEVICE();
  const GhiaErrors e = cavity_vs_reference(64, 100.0, 30.0, Precision::float16, {test::ghia1982("100")}).at(0);
  std::cout << "[ ghia ] Re 100, N 64, fp16: RMS error u " << e.u_rms << ", v " << e.v_rms << " (lid speed 1)\n";
  EXPECT_LT(e.u_rms, 0.02);
  EXPECT_LT(e.v_rms, 0.02);
}

}  // namespace
}  // namespace eddy
