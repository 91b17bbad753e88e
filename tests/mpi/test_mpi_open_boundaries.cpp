// Open faces (velocity_inlet, pressure_outlet, outflow, free_slip) on several ranks: the pass after the exchange
// (kernels/open_boundaries.hpp) reads a face cell's neighbours along the face from the ghost planes that the exchange
// filled, so runs decomposed along x (the inlet and the outlet on different ranks), y and z (rank boundaries cutting
// the faces, across a periodic face too), 2 x 2 x 1, 2 x 1 x 2 and 4 x 1 x 1 give bitwise the populations, density
// and velocity of one rank, after an even and an odd number of steps, with overlap on and off, in float and fp16;
// so do bodies that reach the open faces (interpolated and half-way walls; the open-face pass before the late
// interpolated links, whose split into early and late must not depend on the rank count).
// Blocks one cell thick next to a pressure outlet are refused on every rank alike (RankCountError).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::run_split;
using test::world_rank;
using test::world_size;

FaceBoundary open_face(FaceKind kind) {
  FaceBoundary b;
  b.kind = kind;
  return b;
}

/// 16 x 12 x 8: x_min a parabolic inlet with a ramp, x_max a pressure outlet, y_min free slip, y_max a convective
/// outflow (or, with `two_outlets`, a second pressure outlet, whose moments the pass sums while the fused kernel
/// writes x_max's); z walls (the inlet's duct profile) or periodic (a plane Poiseuille profile, links across the z
/// face). With `sponge`, sponge layers (kernels/sponge_layers.hpp) before the inlet, the outlet and the outflow, which
/// every split cuts, so each rank's layers come from its block's global offset.
CaseConfig open_case(Precision precision, bool periodic_z, bool two_outlets = false, bool sponge = false) {
  CaseConfig c = test::box_case(16, 12, 8, 0.7);
  c.faces[0] = open_face(FaceKind::velocity_inlet);
  c.faces[0].profile = InletProfile::parabolic;
  c.faces[0].speed = 0.08;
  c.faces[0].ramp_time = 12;
  c.faces[1] = open_face(FaceKind::pressure_outlet);
  c.faces[1].density = 1.002;
  c.faces[2] = open_face(FaceKind::free_slip);
  c.faces[3] = open_face(FaceKind::outflow);
  c.faces[3].scheme = OutflowScheme::convective;
  c.faces[3].convection_velocity = 0.05;
  if (two_outlets) {
    c.faces[3] = open_face(FaceKind::pressure_outlet);
    c.faces[3].density = 1.002;  // x_max's: outlets meeting at an edge hold one density
  }
  if (sponge) {
    c.faces[0].sponge = 5.0;
    c.faces[0].sponge_tau = 0.9;
    c.faces[1].sponge = 6.0;
    c.faces[1].sponge_tau = 1.1;
    c.faces[3].sponge = 4.0;
    c.faces[3].sponge_tau = 0.8;
  }
  if (periodic_z) test::make_periodic(c, 2);
  c.body_force = {2e-5, -1e-5, 0.0};
  c.precision = precision;
  c.velocity = 0.08;
  finalize_case(c);
  return c;
}

/// Populations (19), density and velocity (4) of the whole grid on rank 0 of `comm`, in global order.
std::vector<double> global_state(Simulation& sim, MPI_Comm comm) {
  const MacroscopicFields f = sim.fields();
  std::vector<double> moments(f.rho);
  for (int a = 0; a < 3; ++a) moments.insert(moments.end(), f.u[a].begin(), f.u[a].end());
  std::vector<double> all = test::gather_global(f, sim.populations(), 19, comm);
  const std::vector<double> m = test::gather_global(f, moments, 4, comm);
  all.insert(all.end(), m.begin(), m.end());
  return all;
}

TEST(MpiOpenBoundaries, BitwiseEqualToOneRank) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> layouts[] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {2, 1, 2}, {4, 1, 1}, {1, 1, 4}};
  struct Variant {
    bool periodic_z, two_outlets;
    Precision precision;
    bool sponge = false;
  };
  for (const Variant v : {Variant{false, false, Precision::float32}, Variant{false, false, Precision::float16},
                          Variant{true, false, Precision::float32}, Variant{true, false, Precision::float16},
                          Variant{false, true, Precision::float32}, Variant{false, false, Precision::float32, true}}) {
    const CaseConfig config = open_case(v.precision, v.periodic_z, v.two_outlets, v.sponge);
    for (const int steps : {30, 31}) {
      std::vector<double> reference;
      if (world_rank() == 0) {
        auto serial = Simulation::create(config);
        serial->advance(steps);
        const MacroscopicFields f = serial->fields();
        std::vector<double> moments(f.rho);
        for (int a = 0; a < 3; ++a) moments.insert(moments.end(), f.u[a].begin(), f.u[a].end());
        reference = serial->populations();
        reference.insert(reference.end(), moments.begin(), moments.end());
        EXPECT_GT(serial->diagnose().max_speed, 0.02) << "the inlet drives the flow";
      }
      for (const auto& dims : layouts) {
        const int ranks = dims[0] * dims[1] * dims[2];
        if (world_size() % ranks != 0) continue;
        if (v.two_outlets && dims[2] > 1) continue;  // the outlets' faces are x and y (CI time)
        for (const bool overlap : {true, false}) {
          const std::vector<double> state =
              run_split(config, dims, overlap, steps, [&](Simulation& s, MPI_Comm g) { return global_state(s, g); });
          if (world_rank() != 0) continue;
          EXPECT_EQ(state, reference) << "ranks " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", overlap "
                                      << overlap << ", steps " << steps << ", precision " << int(v.precision)
                                      << ", periodic z " << v.periodic_z << ", two outlets " << v.two_outlets
                                      << ", sponge " << v.sponge;
        }
      }
    }
  }
}

/// open_case with [[solid]] bodies that reach the open faces (their cut links meet the open links; the order of the
/// two passes, docs/boundaries.md): a cylinder whose axis runs out through the inlet, a box standing on the pressure
/// outlet and cut by the rank boundaries of y and z splits, a sphere cut by the free-slip face, and a half-way box
/// on the convective outflow.
CaseConfig open_solids_case(Precision precision, bool periodic_z) {
  CaseConfig c = open_case(precision, periodic_z);
  SolidConfig nozzle;
  nozzle.name = "nozzle";
  nozzle.shape = SolidShape::cylinder;
  nozzle.start = {-2.0, 7.3, 3.6};
  nozzle.end = {4.4, 7.3, 3.6};
  nozzle.radius = 1.7;
  SolidConfig step;
  step.name = "step";
  step.shape = SolidShape::box;
  step.min = {12.6, 3.3, 2.4};
  step.max = {17.0, 7.7, 5.6};
  SolidConfig cap;
  cap.name = "cap";
  cap.shape = SolidShape::sphere;
  cap.center = {7.2, 0.7, 4.1};
  cap.radius = 2.4;
  SolidConfig weir;
  weir.name = "weir";
  weir.shape = SolidShape::box;
  weir.min = {8.0, 10.4, 1.0};
  weir.max = {11.0, 13.0, 6.0};
  weir.wall = SolidWall::halfway;
  nozzle.forces = step.forces = true;
  c.solids = {nozzle, step, cap, weir};
  finalize_case(c);
  return c;
}

/// The populations of the fluid cells (solid cells hold what the exchange copied into them, which differs with the
/// rank boundaries and which nothing reads), density and velocity on rank 0 of `comm` in global order, then the
/// bodies' force sums.
std::vector<double> fluid_state(Simulation& sim, const std::vector<std::int32_t>& labels, MPI_Comm comm) {
  const std::vector<unsigned long long> forces = global_solid_force_sums(sim);  // collective, before the fields
  const std::vector<double> all = global_state(sim, comm);
  std::vector<double> out;
  const std::size_t n = labels.size();
  if (all.empty()) return out;
  for (std::size_t k = 0; k < 19 * n; ++k)
    if (labels[k % n] == 0) out.push_back(all[k]);
  out.insert(out.end(), all.begin() + std::ptrdiff_t(19 * n), all.end());
  for (unsigned long long f : forces) out.push_back(double(f));
  return out;
}

TEST(MpiOpenBoundaries, BodiesReachingOpenFacesBitwiseEqualToOneRank) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> layouts[] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {4, 1, 1}};
  for (const bool periodic_z : {false, true}) {
    const Precision precision = periodic_z ? Precision::float16 : Precision::float32;
    const CaseConfig config = open_solids_case(precision, periodic_z);
    const std::vector<std::int32_t> labels = solid_labels(config, serial_decomposition(config));
    for (const int steps : {30, 31}) {
      std::vector<double> reference;
      if (world_rank() == 0) {
        auto serial = Simulation::create(config);
        serial->advance(steps);
        EXPECT_TRUE(serial->diagnose().finite);
        reference = fluid_state(*serial, labels, MPI_COMM_SELF);
      }
      for (const auto& dims : layouts) {
        const int ranks = dims[0] * dims[1] * dims[2];
        if (world_size() % ranks != 0) continue;
        for (const bool overlap : {true, false}) {
          const std::vector<double> state = run_split(
              config, dims, overlap, steps, [&](Simulation& s, MPI_Comm g) { return fluid_state(s, labels, g); });
          if (world_rank() != 0) continue;
          EXPECT_EQ(state, reference) << "ranks " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", overlap "
                                      << overlap << ", steps " << steps << ", precision " << int(precision)
                                      << ", periodic z " << periodic_z;
        }
      }
    }
  }
}

// Taking the population array before an odd step fills the ghost layer again (in case the caller writes through
// it); the fill that an MPI neighbour's message unpacks must not overwrite the ghost nodes of open faces where the
// open faces meet a rank boundary (kernels/halo_pack.hpp), nor must a periodic copy (one rank along z, periodic).
TEST(MpiOpenBoundaries, ReadingThePopulationArrayBetweenStepsChangesNothing) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> layouts[] = {{1, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 1, 2}};
  const int steps = 12;
  for (const bool periodic_z : {false, true}) {
    const CaseConfig config = open_case(Precision::float32, periodic_z);
    std::vector<double> reference;
    if (world_rank() == 0) {
      auto serial = Simulation::create(config);
      serial->advance(steps);
      reference = global_state(*serial, MPI_COMM_SELF);
    }
    for (const auto& dims : layouts) {
      if (world_size() % (dims[0] * dims[1] * dims[2]) != 0) continue;
      const std::vector<double> state = run_split(config, dims, true, 0, [&](Simulation& s, MPI_Comm g) {
        for (int step = 0; step < steps; ++step) {
          s.advance(1);
          (void)s.population_array();
        }
        return global_state(s, g);
      });
      if (world_rank() != 0) continue;
      EXPECT_EQ(state, reference) << "ranks " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", periodic z "
                                  << periodic_z;
    }
  }
}

TEST(MpiOpenBoundaries, ThinBlocksAtAPressureOutletAreRefused) {
  // 6 cells over 4 ranks along x: blocks of 2, 2, 1, 1; the last one touches the outlet x_max.
  CaseConfig c = open_case(Precision::float32, false);
  c.size[0] = 6;
  finalize_case(c);
  Decomposition d = serial_decomposition(c);
  d.dims = {4, 1, 1};
  EXPECT_THROW(check_open_decomposition(c, d), RankCountError);
  d.dims = {3, 1, 1};  // 2, 2, 2
  EXPECT_NO_THROW(check_open_decomposition(c, d));
}

}  // namespace
}  // namespace eddy
