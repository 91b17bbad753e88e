// The discrete adjoint across ranks (solver/adjoint.hpp): the gradient of a velocity mismatch after 20 steps (states
// kept every 6) with respect to the per-cell force and the starting populations, on 2 and 4 ranks split along x, y
// and z, is bitwise the one-rank gradient (the adjoint's ghosts are filled from the neighbours as the forward
// halo's are, and every cell's arithmetic is its own); the objective, a sum over the ranks, agrees to 1e-13. Both
// for the final state's objective and for one summed over a window of states, for the force on a half-way box
// that straddles the ranks' borders (objective solid_force), with a porosity field (dL/dalpha too), and for a
// channel's pressure drop between a velocity inlet and a pressure outlet (the open faces' adjoint).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "solver/adjoint.hpp"
#include "solver/decomposition.hpp"
#include "solver/moment_readout.hpp"
#include "solver/simulation.hpp"
#include "tests/force_field_support.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::group_of;
using test::world_rank;
using test::world_size;

CaseConfig adjoint_case(bool solid = false, bool open = false) {
  CaseConfig c = test::box_case(12, 8, 8, 0.7);
  if (open) {  // a channel: parabolic inlet on x_min, pressure outlet on x_max, walls on y, periodic z
    c.faces[0].kind = FaceKind::velocity_inlet;
    c.faces[0].profile = InletProfile::parabolic;
    c.faces[0].speed = 0.05;
    c.faces[1].kind = FaceKind::pressure_outlet;
    c.faces[1].density = 0.998;
    test::make_periodic(c, 2);
    c.body_force = {1e-5, 2e-6, 0.0};
    c.precision = Precision::float64;
    c.velocity = 0.05;
    finalize_case(c);
    return c;
  }
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  if (solid) {  // cells x 4..7, y 2..4, z 2..5: across the splits at x = 6 and z = 4
    SolidConfig box;
    box.name = "block";
    box.shape = SolidShape::box;
    box.min = {4.0, 2.0, 2.0};
    box.max = {8.0, 5.0, 6.0};
    box.wall = SolidWall::halfway;
    c.solids = {box};
  }
  c.faces[3] = {FaceKind::moving_wall, {0.04, 0.0, 0.01}};
  c.body_force = {2e-5, 0.0, -1e-5};
  c.precision = Precision::float64;
  c.velocity = 0.04;
  finalize_case(c);
  return c;
}

struct GlobalGradient {
  double objective = 0.0;
  std::vector<double> force, state, initial, porosity;  // global cells, [c * N + global index]; initial: rho0, u0
};

/// The gradient on `sim`'s block (the velocity mismatch of the final state, or summed over the last `window`
/// states; with `solid`, the force on the case's solid along an oblique direction instead), every rank's cells summed
/// into global arrays on rank 0 of `comm` (zeros elsewhere: a sum of one value and zeros is that value).
GlobalGradient global_gradient(Simulation& sim, const CaseConfig& config, MPI_Comm comm, std::int64_t window,
                               bool solid, bool porous, bool open) {
  const Decomposition& d = sim.decomposition();
  const std::size_t global = std::size_t(config.size[0]) * config.size[1] * config.size[2];
  const std::int64_t n = std::int64_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  std::vector<std::int64_t> index(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const std::array<int, 3> g = interior_to_global(k, d.local_size, d.offset);
    index[std::size_t(k)] = g[0] + std::int64_t(config.size[0]) * (g[1] + std::int64_t(config.size[1]) * g[2]);
  }
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> force(3 * global), target(3 * global);
  for (double& f : force) f = 1e-4 * unit(rng);
  for (double& t : target) t = 0.01 * unit(rng);
  test::set_force_field(sim, [&](int a, std::int64_t k) { return force[a * global + std::size_t(index[k])]; });
  std::vector<double> alpha(global);
  for (double& a : alpha) a = 0.05 + 0.05 * unit(rng);
  if (porous) test::set_porosity(sim, [&](std::int64_t k) { return alpha[std::size_t(index[k])]; });
  sim.advance(15);
  Objective objective;
  objective.kind = ObjectiveKind::velocity_mismatch;
  objective.window = window;
  objective.target.resize(3 * std::size_t(n));
  for (int a = 0; a < 3; ++a)
    for (std::int64_t k = 0; k < n; ++k) objective.target[a * n + k] = target[a * global + std::size_t(index[k])];
  if (open) {  // the pressure drop between x in [1, 3) and [8, 11)
    objective.kind = ObjectiveKind::pressure_drop;
    objective.region = true;
    objective.lo = {1, 0, 0};
    objective.hi = {3, config.size[1], config.size[2]};
    objective.down_lo = {8, 0, 0};
    objective.down_hi = {11, config.size[1], config.size[2]};
  }
  if (solid) {
    objective.kind = ObjectiveKind::solid_force;
    objective.solid = 0;
    objective.direction = {1.0, 0.3, -0.2};
  }
  const GradientResult r = gradient(sim, 20, objective, {6});
  GlobalGradient out;
  out.objective = r.objective;
  std::vector<double> f(3 * global, 0.0), s(std::size_t(d3q19::Q) * global, 0.0), e(4 * global, 0.0),
      p(porous ? global : 0, 0.0);
  for (std::int64_t k = 0; k < n; ++k) {
    for (int a = 0; a < 3; ++a) f[a * global + std::size_t(index[k])] = r.force[a * n + k];
    for (int i = 0; i < d3q19::Q; ++i) s[i * global + std::size_t(index[k])] = r.state[i * n + k];
    e[std::size_t(index[k])] = r.initial_density[std::size_t(k)];
    for (int a = 0; a < 3; ++a) e[(1 + a) * global + std::size_t(index[k])] = r.initial_velocity[a * n + k];
    if (porous) p[std::size_t(index[k])] = r.porosity[std::size_t(k)];
  }
  if (comm == MPI_COMM_NULL) {
    out.force = f;
    out.state = s;
    out.initial = e;
    out.porosity = p;
    return out;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  out.force.assign(f.size(), 0.0);
  out.state.assign(s.size(), 0.0);
  MPI_Reduce(f.data(), out.force.data(), int(f.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Reduce(s.data(), out.state.data(), int(s.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  out.initial.assign(e.size(), 0.0);
  MPI_Reduce(e.data(), out.initial.data(), int(e.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  out.porosity.assign(p.size(), 0.0);
  if (porous) MPI_Reduce(p.data(), out.porosity.data(), int(p.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  return out;
}

// window, solid force objective, porosity field, open faces (a channel and its pressure drop)
class MpiAdjoint : public ::testing::TestWithParam<std::tuple<std::int64_t, bool, bool, bool>> {};

TEST_P(MpiAdjoint, GradientOnSeveralRanksIsBitwiseTheOneRankGradient) {
  EDDY_REQUIRE_DEVICE();
  const auto [window, solid, porous, open] = GetParam();
  const CaseConfig config = adjoint_case(solid, open);
  GlobalGradient reference;
  if (world_rank() == 0) {
    auto serial = Simulation::create(config);
    reference = global_gradient(*serial, config, MPI_COMM_NULL, window, solid, porous, open);
  }
  const std::array<std::array<int, 3>, 4> layouts = {{{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 1, 2}}};
  for (const std::array<int, 3>& dims : layouts) {
    const int ranks = dims[0] * dims[1] * dims[2];
    if (world_size() % ranks != 0) continue;
    MPI_Comm group = group_of(ranks);
    CaseConfig c = config;
    c.parallel.ranks = dims;
    GlobalGradient split;
    {
      auto sim = Simulation::create(c, decompose(c, group));
      split = global_gradient(*sim, c, group, window, solid, porous, open);
    }
    MPI_Comm_free(&group);
    if (world_rank() != 0) continue;
    const std::string layout = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
    EXPECT_NEAR(split.objective, reference.objective, 1e-13 * reference.objective) << layout;
    std::size_t force_mismatches = 0, state_mismatches = 0, initial_mismatches = 0;
    for (std::size_t k = 0; k < reference.force.size(); ++k) force_mismatches += split.force[k] != reference.force[k];
    for (std::size_t k = 0; k < reference.state.size(); ++k) state_mismatches += split.state[k] != reference.state[k];
    for (std::size_t k = 0; k < reference.initial.size(); ++k) {
      initial_mismatches += split.initial[k] != reference.initial[k];
    }
    std::size_t porosity_mismatches = 0;
    for (std::size_t k = 0; k < reference.porosity.size(); ++k) {
      porosity_mismatches += split.porosity[k] != reference.porosity[k];
    }
    EXPECT_EQ(porosity_mismatches, 0u) << layout << ": dL/dalpha values that differ from the one-rank gradient";
    EXPECT_EQ(force_mismatches, 0u) << layout << ": dL/dF values that differ from the one-rank gradient";
    EXPECT_EQ(state_mismatches, 0u) << layout << ": dL/ds^0 values that differ from the one-rank gradient";
    EXPECT_EQ(initial_mismatches, 0u) << layout << ": dL/drho0, dL/du0 values that differ from the one-rank gradient";
  }
  if (world_rank() == 0) {  // the comparison is meaningful: the gradient is not zero
    double largest = 0.0;
    for (double g : reference.force) largest = std::max(largest, std::abs(g));
    EXPECT_GT(largest, 1e-3);
  }
}

// The final state's objective, and one summed over the last 9 states (the sweep's segments of 6 steps: 12..17 and
// 18..19 and the final state 20).
INSTANTIATE_TEST_SUITE_P(FinalState, MpiAdjoint,
                         ::testing::Values(std::make_tuple(std::int64_t(1), false, false, false)));
INSTANTIATE_TEST_SUITE_P(Window, MpiAdjoint, ::testing::Values(std::make_tuple(std::int64_t(9), false, false, false)));
INSTANTIATE_TEST_SUITE_P(SolidForce, MpiAdjoint,
                         ::testing::Values(std::make_tuple(std::int64_t(9), true, false, false)));
INSTANTIATE_TEST_SUITE_P(Porosity, MpiAdjoint, ::testing::Values(std::make_tuple(std::int64_t(1), false, true, false)));
// A channel between a velocity inlet and a pressure outlet, split along the flow and across it (the outlet's links
// reading cells of the other rank), its pressure drop summed over a window.
INSTANTIATE_TEST_SUITE_P(OpenFaces, MpiAdjoint, ::testing::Values(std::make_tuple(std::int64_t(5), false, true, true)));

}  // namespace
}  // namespace eddy
