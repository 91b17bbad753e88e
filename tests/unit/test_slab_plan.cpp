// Slab plans of out-of-core runs (solver/slab_plan.hpp): slabs cover the block exactly and evenly, the device
// buffers hold every slab with its halo and stay within the budget, the minimum budget named in the error is
// workable and one byte less is not, and the default time_block follows its rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

namespace eddy {
namespace {

/// Which planes of a visit end right, on a line of planes (own planes [0, L), halo H on both sides), under the rules
/// at the head of solver/slab_plan.hpp, computing at each step only the planes within the given widths of the own
/// ones. A plane is right when its slots hold what an in-core run holds there; a plane not computed at a step keeps
/// stale slots, so it is wrong after that step; the buffer's outermost planes never update. Returns f's rightness on
/// planes -1 .. L (the block's ghost planes and the own ones) and T's on the own planes, in that order.
std::vector<bool> right_after_visit(const VisitWidths& w, bool first_odd, int substeps, int own, int halo) {
  const int steps = int(w.fused.size());
  const int n = own + 2 * halo;  // plane p of the line is plane p - halo of the slab
  std::vector<bool> f(static_cast<std::size_t>(n), true), t(static_cast<std::size_t>(n), true),
      u(static_cast<std::size_t>(n), false);
  auto in_box = [&](int p, int width) {
    const int x = p - halo;
    return p >= 1 && p < n - 1 && x >= -width && x < own + width;
  };
  auto right = [](const std::vector<bool>& v, int p) { return p >= 0 && p < int(v.size()) && v[std::size_t(p)]; };
  for (int s = 0; s < steps; ++s) {
    const bool odd = (s % 2 == 1) != first_odd;
    std::vector<bool> computed(static_cast<std::size_t>(n)), next_f(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) {
      const bool inputs = odd ? right(f, p - 1) && right(f, p) && right(f, p + 1) && t[std::size_t(p)]
                              : f[std::size_t(p)] && t[std::size_t(p)];
      computed[std::size_t(p)] = in_box(p, w.fused[std::size_t(s)]) && inputs;
    }
    for (int p = 0; p < n; ++p) {
      // Even: a cell writes its own slots; odd: the slots of a plane are written by the cells within 1 plane.
      next_f[std::size_t(p)] =
          odd ? right(computed, p - 1) && right(computed, p) && right(computed, p + 1) : computed[std::size_t(p)];
      u[std::size_t(p)] = computed[std::size_t(p)];
    }
    f = next_f;
    for (int j = 0; j < substeps; ++j) {
      std::vector<bool> next_t(static_cast<std::size_t>(n));
      for (int p = 0; p < n; ++p) {
        next_t[std::size_t(p)] = in_box(p, w.scalar[std::size_t(s)][std::size_t(j)]) && right(t, p - 1) &&
                                 right(t, p) && right(t, p + 1) && right(u, p - 1) && right(u, p) && right(u, p + 1);
      }
      t = next_t;
    }
    if (substeps == 0) t.assign(std::size_t(n), true);  // no temperature: the buoyancy reads nothing
  }
  std::vector<bool> result;
  for (int x = -1; x <= own; ++x) result.push_back(f[std::size_t(x + halo)]);
  for (int x = 0; x < own; ++x) result.push_back(t[std::size_t(x + halo)]);
  return result;
}

/// True when a visit with widths `w` hands back right every plane that a visit updating every plane of the buffer
/// at every step hands back right (the ghost planes where that is right at all), and every own plane.
bool hands_back_what_updating_everything_does(const VisitWidths& w, bool first_odd, int substeps, int own, int halo) {
  VisitWidths everything = w;
  for (int& width : everything.fused) width = 1 << 20;
  for (auto& step : everything.scalar)
    for (int& width : step) width = 1 << 20;
  const std::vector<bool> narrow = right_after_visit(w, first_odd, substeps, own, halo);
  const std::vector<bool> full = right_after_visit(everything, first_odd, substeps, own, halo);
  for (std::size_t k = 0; k < narrow.size(); ++k) {
    const bool own_plane = k >= 1 && k <= std::size_t(own);  // f's own planes
    const bool temperature = k >= std::size_t(own + 2);
    if ((own_plane || temperature) && !full[k]) return false;  // the halo itself is too thin: no plan works
    if (full[k] && !narrow[k]) return false;
  }
  return true;
}

TEST(SlabPlan, VisitWidthsHandBackEveryPlaneRightAndSkipTheRest) {
  for (int substeps = 0; substeps <= 3; ++substeps) {
    for (int steps = 1; steps <= 9; ++steps) {
      for (const bool first_odd : {false, true}) {
        const int halo = halo_planes(steps, std::max(1, substeps));
        const VisitWidths w = visit_widths(steps, first_odd, substeps);
        ASSERT_EQ(int(w.fused.size()), steps);
        EXPECT_TRUE(hands_back_what_updating_everything_does(w, first_odd, substeps, 5, halo))
            << steps << " steps, first odd " << first_odd << ", " << substeps << " sub-steps";
        // The widths never reach past the halo, and the last step computes only a few planes beyond the own ones.
        for (const int width : w.fused) EXPECT_LE(width, halo);
        EXPECT_LE(w.fused.back(), 2 + substeps);
        for (int s = 1; s < steps; ++s) EXPECT_LE(w.fused[std::size_t(s)], w.fused[std::size_t(s - 1)]);
      }
    }
  }
}

TEST(SlabPlan, AnyNarrowerVisitWidthLosesAPlane) {
  // The widths are the least that work, and the model above can fail: one plane less at any one step of the
  // stream-collide kernel or of a sub-step loses a plane handed back.
  for (int substeps = 0; substeps <= 2; ++substeps) {
    for (const bool first_odd : {false, true}) {
      const int steps = 5, halo = halo_planes(steps, std::max(1, substeps));
      const VisitWidths w = visit_widths(steps, first_odd, substeps);
      for (int s = 0; s < steps; ++s) {
        VisitWidths narrower = w;
        --narrower.fused[std::size_t(s)];
        EXPECT_FALSE(hands_back_what_updating_everything_does(narrower, first_odd, substeps, 5, halo))
            << "step " << s << " of the kernel, first odd " << first_odd << ", " << substeps << " sub-steps";
        for (int j = 0; j < substeps; ++j) {
          narrower = w;
          --narrower.scalar[std::size_t(s)][std::size_t(j)];
          EXPECT_FALSE(hands_back_what_updating_everything_does(narrower, first_odd, substeps, 5, halo))
              << "step " << s << ", sub-step " << j << ", first odd " << first_odd << ", " << substeps << " sub-steps";
        }
      }
    }
  }
}

}  // namespace
}  // namespace eddy
