// fitting_dims (solver/decomposition.hpp): MPI_Dims_create's balanced split when it fits the grid, otherwise the
// factorisation that fits with the least halo area.
#include <gtest/gtest.h>

#include "solver/decomposition.hpp"

namespace eddy {
namespace {

using Dims = std::array<int, 3>;

TEST(FittingDims, KeepsABalancedSplitThatFits) {
  EXPECT_EQ(fitting_dims(4, {64, 64, 64}, {1, 2, 2}), (Dims{1, 2, 2}));
  EXPECT_EQ(fitting_dims(2, {8, 8, 1}, {1, 2, 1}), (Dims{1, 2, 1}));
}

TEST(FittingDims, FindsASplitThatFitsWhenTheBalancedOneDoesNot) {
  // The report's case: 3 ranks on 2 x 64 x 2 were split [1, 1, 3], three ranks on an axis of two cells.
  EXPECT_EQ(fitting_dims(3, {2, 64, 2}, {1, 1, 3}), (Dims{1, 3, 1}));
  // 16 ranks on 2 x 2 x 64 offered [4, 2, 2]: of the splits that fit, [1, 1, 16] cuts the least (15 planes of 4
  // cells = 60) against [2, 1, 8] (128 + 7 * 4 = 156) and [2, 2, 4] (2 * 128 + 3 * 4 = 268).
  EXPECT_EQ(fitting_dims(16, {2, 2, 64}, {4, 2, 2}), (Dims{1, 1, 16}));
  // A tie (the same area either way) goes to the slower axis.
  EXPECT_EQ(fitting_dims(3, {2, 10, 10}, {3, 1, 1}), (Dims{1, 1, 3}));
}

TEST(FittingDims, LeavesASplitThatCannotFitForTheCheck) {
  EXPECT_EQ(fitting_dims(7, {2, 2, 2}, {1, 1, 7}), (Dims{1, 1, 7}));
}

}  // namespace
}  // namespace eddy
