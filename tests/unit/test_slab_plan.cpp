// Slab plans of out-of-core runs (solver/slab_plan.hpp): slabs cover the block exactly and evenly, the device
// buffers hold every slab with its halo and stay within the budget, the minimum budget named in the error is
// workable and one byte less is not, and the default time_block follows its rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "io/case_config.hpp"
#include "solver/slab_plan.hpp"

namespace eddy {
namespace {

SlabRequest request(int nz, bool walls, std::int64_t budget, int time_block = 0, int slabs = 0) {
  SlabRequest r;
  r.nz = nz;
  r.plane_bytes = 1000;
  r.wall_below = walls;
  r.wall_above = walls;
  r.budget = budget;
  r.time_block = time_block;
  r.slabs = slabs;
  r.budget_name = "numerics.device_memory_limit";
  return r;
}

/// Checks what every plan must satisfy.
void expect_consistent(const SlabPlan& plan, const SlabRequest& r) {
  ASSERT_GE(plan.slabs(), 1);
  EXPECT_EQ(plan.first.front(), 1);
  EXPECT_EQ(plan.first.back(), r.nz + 1);
  int thinnest = r.nz, thickest = 0;
  for (int j = 0; j < plan.slabs(); ++j) {
    thinnest = std::min(thinnest, plan.planes(j));
    thickest = std::max(thickest, plan.planes(j));
    int lo = 0, hi = 0;
    plan.device_range(j, plan.halo, r, lo, hi);
    EXPECT_LE(hi - lo, plan.buffer_planes) << "slab " << j << " does not fit its buffer";
    EXPECT_EQ(lo, r.wall_below ? std::max(plan.first[j] - plan.halo, 0) : plan.first[j] - plan.halo);
  }
  EXPECT_GE(thinnest, 1);
  EXPECT_LE(thickest - thinnest, 1) << "slabs are not even";
  EXPECT_EQ(plan.halo, plan.time_block + 1);
  EXPECT_EQ(plan.device_bytes, (std::int64_t(kSlabBuffers) * plan.buffer_planes + (plan.slabs() > 1 ? 2 * plan.halo : 0)) *
                                   std::int64_t(r.plane_bytes));
  EXPECT_LE(plan.device_bytes, r.budget);
}

TEST(SlabPlan, CoversTheBlockWithinTheBudget) {
  for (const int nz : {1, 2, 7, 35, 100, 961}) {
    for (const bool walls : {true, false}) {
      for (const int k : {1, 2, 5}) {
        for (const std::int64_t planes : {40, 100, 1000, 5000}) {
          SlabRequest r = request(nz, walls, planes * 1000, k);
          if (minimum_slab_budget(r) > r.budget) {
            EXPECT_THROW(plan_slabs(r), InputError) << nz << " " << walls << " " << k << " " << planes;
            continue;
          }
          const SlabPlan plan = plan_slabs(r);
          expect_consistent(plan, r);
          // The fewest slabs: one fewer does not fit (or there is only one).
          if (plan.slabs() > 1) {
            SlabRequest fewer = r;
            fewer.slabs = plan.slabs() - 1;
            EXPECT_THROW(plan_slabs(fewer), InputError) << nz << " " << walls << " " << k << " " << planes;
          }
        }
      }
    }
  }
}

TEST(SlabPlan, TheNamedMinimumRunsAndOneByteLessDoesNot) {
  for (const int nz : {3, 35, 200}) {
    for (const bool walls : {true, false}) {
      SlabRequest r = request(nz, walls, 1, 2);
      std::string message;
      try {
        plan_slabs(r);
      } catch (const InputError& e) {
        message = e.what();
      }
      const std::int64_t minimum = minimum_slab_budget(r);
      EXPECT_NE(message.find("too small for even one slab"), std::string::npos) << message;
      EXPECT_NE(message.find("(" + std::to_string(minimum) + " bytes)"), std::string::npos) << message;
      r.budget = minimum;
      expect_consistent(plan_slabs(r), r);
      r.budget = minimum - 1;
      EXPECT_THROW(plan_slabs(r), InputError);
    }
  }
}

TEST(SlabPlan, DefaultTimeBlockKeepsTwoHalosOfOwnPlanes) {
  // A budget of P planes: buffers of 2 (k + 1) halo planes around at least 2 (k + 1) own ones, and the carry.
  for (const std::int64_t planes : {14, 50, 130, 236, 1000}) {
    const SlabRequest r = request(2000, false, planes * 1000);
    const SlabPlan plan = plan_slabs(r);
    expect_consistent(plan, r);
    const int expected = int(std::clamp<std::int64_t>(planes / 10 - 1, 1, 32));
    EXPECT_EQ(plan.time_block, expected) << planes;
    if (expected > 1 && expected < 32) EXPECT_GE(plan.planes(0), 2 * plan.halo) << planes;
  }
  // Bounded by a quarter of the block when halos are redundant work, and by the next rank's block they come from.
  EXPECT_EQ(plan_slabs(request(40, false, 1000000)).time_block, 9);
  EXPECT_EQ(plan_slabs(request(40, true, 1000000)).time_block, 32);
  SlabRequest thin = request(100, false, 1000000);
  thin.neighbour_planes = 6;
  EXPECT_EQ(plan_slabs(thin).time_block, 5);
  thin.time_block = 6;
  try {
    plan_slabs(thin);
    FAIL() << "a halo of 7 planes from a 6-plane block was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("use time_block <= 5"), std::string::npos) << e.what();
  }
  // A periodic block thinner than its halo wraps it (no neighbour rank): accepted.
  EXPECT_EQ(plan_slabs(request(1, false, 1000000, 3)).halo, 4);
  // More slabs than planes.
  try {
    plan_slabs(request(4, true, 1000000, 1, 5));
    FAIL() << "5 slabs of a 4-plane block were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("numerics.slabs = 5 is more than the 4 z-planes"), std::string::npos)
        << e.what();
  }
}

TEST(SlabPlan, GivenSlabsThatDoNotFitAreRefused) {
  SlabRequest r = request(100, true, 30 * 1000, 2, 2);  // two slabs of 50 planes need buffers of 53
  try {
    plan_slabs(r);
    FAIL() << "2 slabs of 50 planes fitted in 30 planes";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("numerics.slabs = 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace eddy
