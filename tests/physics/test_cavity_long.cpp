// Heavy cavity validations (GPU machine): 2D cavity at Re = 1000 against Ghia et al. (1982) and against the
// spectral solution of Botella & Peyret (1998), Computers & Fluids 27, 421, Tables 9 and 10.
// Label "long": not part of the default suite (./scripts/test.sh); run with  ctest -L long.
#include <gtest/gtest.h>

#include <iostream>

#include "tests/physics/cavity_reference.hpp"

namespace eddy {
namespace {

TEST(CavityLong, Re1000AtN256) {
  EDDY_REQUIRE_DEVICE();
  const test::CenterlineReference botella{"botella_peyret1998_re1000_vertical_centerline.csv", "y", "u",
                                          "botella_peyret1998_re1000_horizontal_centerline.csv", "x", "v"};
  const auto e = test::cavity_vs_reference(256, 1000.0, 100.0, Precision::float32, {test::ghia1982("1000"), botella});
  std::cout << "[ ghia ] Re 1000, N 256, float: RMS error vs Ghia u " << e[0].u_rms << ", v " << e[0].v_rms
            << "; vs Botella & Peyret u " << e[1].u_rms << ", v " << e[1].v_rms << "\n";
  EXPECT_LT(e[0].u_rms, 0.015);
  EXPECT_LT(e[0].v_rms, 0.015);
  EXPECT_LT(e[1].u_rms, 0.01);
  EXPECT_LT(e[1].v_rms, 0.01);
}

}  // namespace
}  // namespace eddy
