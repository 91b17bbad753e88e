// Open boundaries at GPU sizes (label long; run on the H200, scripts/gpu_check.sh): the Poiseuille channel between a
// parabolic velocity inlet and a pressure outlet (tests/physics/open_channel.hpp) at H = 16, 32, 64: the velocity and
// the pressure drop still converge at second order (2 H^2 / nu steps each, 7e8 cell updates at H = 64, double).
#include <gtest/gtest.h>

#include "tests/physics/open_channel.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(OpenBoundariesLong, PoiseuilleBetweenInletAndOutletConvergesAtSecondOrderOnFinerGrids) {
  EDDY_REQUIRE_DEVICE();
  test::expect_second_order_channel({16, 32, 64});
}

}  // namespace
}  // namespace eddy
