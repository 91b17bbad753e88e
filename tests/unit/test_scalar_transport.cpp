// The scalar transport kernel (kernels/scalar_launchers.hpp) on this build's backend against a plain CPU reference
// written face by face (each face's flux computed once and given to both cells), on random T and u with fixed-value
// and adiabatic walls, a periodic axis and a solid body; its column walk against its cell-by-cell form, bit for bit;
// and the velocity the fused kernel writes for it (VelocityOutView) against the moments of the same populations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/launchers.hpp"
#include "kernels/scalar_launchers.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// Walls: x_min fixed (T = 0.7), x_max adiabatic, y_min fixed (-0.4), y_max fixed (0.2), z periodic.
CaseConfig walled_box() {
  CaseConfig c = test::box_case(10, 9, 7, 0.8);
  test::make_periodic(c, 2);
  finalize_case(c);
  return c;
}

constexpr bool kFixed[6] = {true, false, true, true, false, false};
constexpr double kWallT[6] = {0.7, 0.0, -0.4, 0.2, 0.0, 0.0};

/// Face-based reference in double: for every pair of face neighbours (P, N = P + e_a) with P or N interior and
/// fluid, the diffusive flux kappa (T_N - T_P) leaves N and enters P, and the advective term -u_f (T_N - T_P) / 2
/// goes to both; wall faces add kappa times the one-sided gradient at the wall.
std::vector<double> reference_step(const std::vector<CellFlag>& flags, const BlockShape& s,
                                   const std::vector<double>& t, const std::vector<double> (&u)[3], double kappa,
                                   double dt) {
  std::vector<double> inflow(t.size(), 0.0);
  auto interior = [&](int x, int y, int z) {
    return x >= 1 && y >= 1 && z >= 1 && x <= s.n[0] && y <= s.n[1] && z <= s.n[2];
  };
  for (int z = 0; z <= s.n[2]; ++z)
    for (int y = 0; y <= s.n[1]; ++y)
      for (int x = 0; x <= s.n[0]; ++x)
        for (int a = 0; a < 3; ++a) {
          const int q[3] = {x + (a == 0), y + (a == 1), z + (a == 2)};
          const std::int64_t p = s.index(x, y, z), n = s.index(q[0], q[1], q[2]);
          const bool p_in = interior(x, y, z), n_in = interior(q[0], q[1], q[2]);
          if (!p_in && !n_in) continue;
          const bool p_solid = is_solid(flags[p]), n_solid = is_solid(flags[n]);
          if (p_solid && n_solid) continue;
          if (p_solid || n_solid) {  // a wall face: P solid means the wall is on N's low side
            const int face = 2 * a + (n_solid ? 1 : 0);
            if (!kFixed[face]) continue;
            const std::int64_t cell = n_solid ? p : n, behind = n_solid ? p - (n - p) : n + (n - p);
            const double gradient = is_solid(flags[behind]) ? 2.0 * (kWallT[face] - t[cell])
                                                            : (8.0 * kWallT[face] - 9.0 * t[cell] + t[behind]) / 3.0;
            inflow[cell] += kappa * gradient;
            continue;
          }
          // Diffusion moves kappa (T_N - T_P) from N to P; advection in advective form changes both cells by
          // -u_f (T_N - T_P) / 2 (u . grad T with the face value's difference, on either side of the face).
          const double diffusion = kappa * (t[n] - t[p]);
          const double advection = -0.5 * (u[a][p] + u[a][n]) * 0.5 * (t[n] - t[p]);
          inflow[p] += diffusion + advection;
          inflow[n] += -diffusion + advection;
        }
  std::vector<double> next = t;
  for (std::size_t k = 0; k < t.size(); ++k) next[k] = t[k] + dt * inflow[k];
  return next;
}

/// A box longer than two column chunks along z (kColumnChunk = 16), rows of a length that is no multiple of a warp,
/// walls as walled_box and a halfway-walled sphere inside (so wall fluxes arise on every axis, away from the faces).
CaseConfig walled_box_with_sphere() {
  CaseConfig c = test::box_case(45, 13, 37, 0.8);
  test::make_periodic(c, 2);
  c.solids.push_back(test::halfway_ball({21.3, 6.6, 17.2}, 4.1));
  finalize_case(c);
  return c;
}

/// Random T in [-1, 1] and u in [-0.05, 0.05] on every cell of `cells` (values representable in R).
template <class R>
void random_fields(std::size_t cells, std::vector<double>& t, std::vector<double> (&u)[3]) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> value(-1.0, 1.0), speed(-0.05, 0.05);
  t.resize(cells);
  for (auto& v : t) v = R(value(rng));
  for (auto& component : u) {
    component.resize(cells);
    for (auto& v : component) v = R(speed(rng));
  }
}

/// advance_scalar on the device from host fields; returns t_next (ghost cells left at -99).
template <class R>
std::vector<R> device_step(const std::vector<CellFlag>& flags, const BlockShape& s, const std::vector<double>& t,
                           const std::vector<double> (&u)[3], const ScalarWalls<R>& walls, double kappa, double dt) {
  const std::size_t cells = std::size_t(s.n_cells());
  DeviceBuffer<CellFlag> device_flags(cells);
  device_flags.upload(flags);
  DeviceBuffer<R> device_t(cells), device_next(cells),
      device_u[3] = {DeviceBuffer<R>(cells), DeviceBuffer<R>(cells), DeviceBuffer<R>(cells)};
  device_t.upload(std::vector<R>(t.begin(), t.end()));
  device_next.upload(std::vector<R>(cells, R(-99)));
  for (int a = 0; a < 3; ++a) device_u[a].upload(std::vector<R>(u[a].begin(), u[a].end()));
  const R* const u_ptr[3] = {device_u[0].data(), device_u[1].data(), device_u[2].data()};
  advance_scalar(device_t.data(), device_next.data(), u_ptr, FlagView{device_flags.data()}, s, s.interior(), walls,
                 R(kappa), R(dt));
  return device_next.download();
}

template <class R>
void expect_matches_reference(const CaseConfig& c, double tolerance) {
  const Decomposition d = serial_decomposition(c);
  const BlockShape s = block_shape(d);
  const std::vector<CellFlag> flags = build_flags(c, d);
  std::vector<double> t, u[3];
  random_fields<R>(std::size_t(s.n_cells()), t, u);
  const double kappa = 0.11, dt = 0.5;
  const std::vector<double> expected = reference_step(flags, s, t, u, kappa, dt);
  ScalarWalls<R> walls{};
  for (int f = 0; f < 6; ++f) {
    walls.fixed[f] = kFixed[f];
    walls.value[f] = R(kWallT[f]);
  }
  const std::vector<R> got = device_step<R>(flags, s, t, u, walls, kappa, dt);
  double worst = 0.0;
  int checked = 0, solid = 0, beside_solid = 0;
  for (int z = 1; z <= s.n[2]; ++z)
    for (int y = 1; y <= s.n[1]; ++y)
      for (int x = 1; x <= s.n[0]; ++x) {
        const std::int64_t k = s.index(x, y, z);
        if (is_solid(flags[k])) {
          ++solid;
          EXPECT_EQ(got[k], R(t[k])) << "solid cell (" << x << ", " << y << ", " << z << ") must keep its T";
          continue;
        }
        beside_solid += flags[k] == kFluidNearSolid;
        worst = std::max(worst, std::abs(double(got[k]) - expected[k]));
        ++checked;
      }
  EXPECT_EQ(checked + solid, c.size[0] * c.size[1] * c.size[2]);
  EXPECT_EQ(solid > 0, !c.solids.empty());
  EXPECT_GT(beside_solid, 0);
  EXPECT_LT(worst, tolerance) << "max |kernel - face-based reference| over the interior";
  EXPECT_EQ(got[s.index(0, 3, 3)], R(-99)) << "ghost cells must not be written";
}

TEST(ScalarTransport, MatchesFaceBasedReferenceInDouble) {
  EDDY_REQUIRE_DEVICE();
  expect_matches_reference<double>(walled_box(), 1e-14);
}

TEST(ScalarTransport, MatchesFaceBasedReferenceInFloat) {
  EDDY_REQUIRE_DEVICE();
  expect_matches_reference<float>(walled_box(), 1e-6);
}

TEST(ScalarTransport, MatchesFaceBasedReferenceAroundABodyOverSeveralColumnChunks) {
  EDDY_REQUIRE_DEVICE();
  expect_matches_reference<double>(walled_box_with_sphere(), 1e-14);
  expect_matches_reference<float>(walled_box_with_sphere(), 1e-6);
}

/// The column walk's fast path (kFluid cells: T and u_z carried along z, interior_rate) against the cell-by-cell
/// form ScalarStep::rate, which every cell takes once flagged kFluidNearSolid: in a periodic box with no wall the
/// two sum the same terms in the same order, so T_next must agree bit for bit on every cell.
template <class R>
void expect_column_walk_is_cell_by_cell() {
  CaseConfig c = test::box_case(41, 10, 35, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  finalize_case(c);
  const Decomposition d = serial_decomposition(c);
  const BlockShape s = block_shape(d);
  const std::vector<CellFlag> flags = build_flags(c, d);
  std::vector<CellFlag> near = flags;
  int fast = 0;
  for (int z = 1; z <= s.n[2]; ++z)
    for (int y = 1; y <= s.n[1]; ++y)
      for (int x = 1; x <= s.n[0]; ++x) {
        fast += flags[s.index(x, y, z)] == kFluid;
        near[s.index(x, y, z)] = kFluidNearSolid;
      }
  ASSERT_EQ(fast, 41 * 10 * 35) << "every interior cell of a periodic box has only fluid neighbours";
  std::vector<double> t, u[3];
  random_fields<R>(std::size_t(s.n_cells()), t, u);
  const ScalarWalls<R> walls{};
  const std::vector<R> walked = device_step<R>(flags, s, t, u, walls, 0.11, 0.5);
  const std::vector<R> by_cell = device_step<R>(near, s, t, u, walls, 0.11, 0.5);
  int differing = 0;
  for (std::size_t k = 0; k < walked.size(); ++k) differing += std::memcmp(&walked[k], &by_cell[k], sizeof(R)) != 0;
  EXPECT_EQ(differing, 0) << "cells whose T_next differs between the two forms";
  EXPECT_NE(walked[s.index(5, 5, 5)], R(t[s.index(5, 5, 5)])) << "the step changed nothing";
}

TEST(ScalarTransport, ColumnWalkGivesTheCellByCellBits) {
  EDDY_REQUIRE_DEVICE();
  expect_column_walk_is_cell_by_cell<float>();
  expect_column_walk_is_cell_by_cell<double>();
}

/// The fused kernel's velocity output equals u of compute_moments on the populations it collides (same formula, the
/// Guo F/2 shift with the per-cell buoyancy included).
TEST(ScalarTransport, FusedKernelWritesTheMomentsVelocity) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = test::periodic_taylor_green_3d(12, 10, 8, 0.7, 0.05);
  const Decomposition d = serial_decomposition(c);
  const BlockShape s = block_shape(d);
  const std::size_t cells = std::size_t(s.n_cells());
  DeviceBuffer<double> f(std::size_t(d3q19::Q) * cells);
  const PopulationView<double> a{f.data(), s.n_cells()};
  DeviceBuffer<CellFlag> flags(cells);
  flags.upload(build_flags(c, d));
  initialize_populations(a, s, initial_field(c, d));
  // A buoyancy field: T varies along x, force along y.
  std::vector<double> t(cells);
  for (std::size_t k = 0; k < cells; ++k) t[k] = 0.01 * double(k % 13);
  DeviceBuffer<double> device_t(cells);
  device_t.upload(t);
  ForceFieldView<double> force;
  force.scalar = device_t.data();
  force.buoyancy[1] = 2e-4;
  force.reference = 0.05;
  const Relaxation<double> relax = relaxation<double>(c);
  const WallVelocities<double> walls = wall_velocities<double>(c);
  DeviceBuffer<double> moments(4 * std::size_t(s.interior_cells()));
  const std::size_t n = std::size_t(s.interior_cells());
  const MomentView<double> out{moments.data(), {moments.data() + n, moments.data() + 2 * n, moments.data() + 3 * n}};
  compute_moments(a, PopulationLayout::own, FlagView{flags.data()}, s, relax.force, walls, out, 1, s.n[2] + 1, nullptr,
                  force);
  DeviceBuffer<double> u[3] = {DeviceBuffer<double>(cells), DeviceBuffer<double>(cells), DeviceBuffer<double>(cells)};
  VelocityOutView<double> velocity_out;
  for (int k = 0; k < 3; ++k) velocity_out.u[k] = u[k].data();
  stream_collide(a, PopulationLayout::own, FlagView{flags.data()}, s, s.interior(), relax, walls,
                 RoundingKey{0, {0, 0, 0}}, nullptr, false, force, velocity_out);
  const std::vector<double> expected = moments.download();
  double worst = 0.0, largest = 0.0;
  for (int k = 0; k < 3; ++k) {
    const std::vector<double> got = u[k].download();
    std::size_t i = 0;
    for (int z = 1; z <= s.n[2]; ++z)
      for (int y = 1; y <= s.n[1]; ++y)
        for (int x = 1; x <= s.n[0]; ++x, ++i) {
          worst = std::max(worst, std::abs(got[s.index(x, y, z)] - expected[(k + 1) * n + i]));
          largest = std::max(largest, std::abs(expected[(k + 1) * n + i]));
        }
  }
  EXPECT_GT(largest, 1e-3);
  EXPECT_LT(worst, 1e-15) << "kernel velocity vs compute_moments";
}

}  // namespace
}  // namespace eddy
