// MPI tests of the ghost particles (solver/particle_ghosts.hpp; CTest label mpi, 4 ranks): a dense pile of
// inertial, two-way coupled spheres with soft-sphere contacts, periodic in x and z with walls in y, run on one rank
// and on 2, 3 and 4 ranks (splits along each axis, 2 x 2 x 1, z4) gives bitwise the same particle positions and
// velocities and the same fluid, in float and double, with the cell list and over all pairs, and with the softened
// pair gravity over all particles (gathered from every rank); the particle count is conserved. The set-up is
// checked to be meaningful: many touching pairs straddle the rank boundaries of each split and the periodic faces.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::Row;
using test::world_rank;
using test::world_size;

constexpr int kSize = 12;
constexpr double kDiameter = 1.0;

/// 600 spheres of one cell in the lower half of a 12^3 box (about 34 % by volume there), sinking onto the
/// y = 0 wall and drifting along x and z across the periodic faces, under a moving lid at y = 12.
CaseConfig pile_case(Precision precision, ContactSearch search, PairForce pair) {
  CaseConfig c = test::box_case(kSize, kSize, kSize, 0.56);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.precision = precision;
  c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.0}};  // a lid at y = 12 shears the fluid along x
  c.velocity = 0.05;
  ParticleConfig& p = c.particles;
  p.enabled = true;
  p.kind = ParticleKind::inertial;
  p.count = 600;
  p.seed = 17;
  p.box_min = {0.0, 0.5, 0.0};
  p.box_max = {double(kSize), 7.0, double(kSize)};
  p.diameter = kDiameter;
  p.density = 2.0;
  p.gravity = {1e-3, -1.5e-3, 5e-4};
  p.two_way = true;
  p.contacts = true;
  p.contact_stiffness = 0.02;
  p.contact_damping = 0.01;
  p.contact_search = search;
  if (pair == PairForce::gravity) {
    p.pair_force = PairForce::gravity;
    p.gravity_constant = 1e-5;
    p.softening = 1.0;
  }
  finalize_case(c);
  return c;
}

struct Run {
  std::vector<Row> particles;  ///< on rank 0
  std::vector<double> fluid;   ///< rho, ux, uy, uz over the global grid, on rank 0
  std::int64_t count = 0;
};

Run run(const CaseConfig& config, int steps, MPI_Comm comm) {
  const Decomposition d = comm == MPI_COMM_NULL ? serial_decomposition(config) : decompose(config, comm);
  const MPI_Comm gather = comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm;
  auto sim = Simulation::create(config, d);
  sim->advance(steps);
  Run r;
  r.count = sim->particle_count();
  r.particles = test::gather_rows(test::rows_of(sim->particles()), gather);
  const MacroscopicFields f = sim->fields();
  std::vector<double> local = f.rho;
  for (const auto& u : f.u) local.insert(local.end(), u.begin(), u.end());
  r.fluid = test::gather_global(f, local, 4, gather);
  return r;
}

/// Touching pairs (distance below one diameter, minimum image on the periodic x and z) of `rows`: in all, across the
/// periodic faces, and across the block boundaries of `dims` (the two particles in different blocks).
struct Touching {
  int pairs = 0, periodic = 0, across_ranks = 0;
};

int block_coordinate(int n, int p, double x) {
  const int base = n / p, extra = n % p;
  int first = 0;
  for (int c = 0; c < p; ++c) {
    const int count = base + (c < extra ? 1 : 0);
    if (x < first + count) return c;
    first += count;
  }
  return p - 1;
}

Touching touching(const std::vector<Row>& rows, const std::array<int, 3>& dims) {
  Touching t;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      double r2 = 0.0;
      bool wrapped = false;
      for (int a = 0; a < 3; ++a) {
        double d = rows[i][1 + a] - rows[j][1 + a];
        if (a != 1 && std::abs(d) > 0.5 * kSize) {
          d -= std::copysign(double(kSize), d);
          wrapped = true;
        }
        r2 += d * d;
      }
      if (r2 >= kDiameter * kDiameter) continue;
      ++t.pairs;
      t.periodic += wrapped ? 1 : 0;
      bool split = false;
      for (int a = 0; a < 3; ++a)
        split = split ||
                block_coordinate(kSize, dims[a], rows[i][1 + a]) != block_coordinate(kSize, dims[a], rows[j][1 + a]);
      t.across_ranks += split ? 1 : 0;
    }
  }
  return t;
}

/// Calls fn(c, group) for each layout: c is `config` with parallel.ranks = dims, group the first dims[0] dims[1]
/// dims[2] world ranks (the others wait; collective over the world).
template <class Fn>
void for_each_split(const CaseConfig& config, const std::vector<std::array<int, 3>>& layouts, Fn fn) {
  for (const auto& dims : layouts) {
    const int ranks = dims[0] * dims[1] * dims[2];
    if (ranks > world_size()) continue;
    CaseConfig c = config;
    c.parallel.ranks = dims;
    MPI_Comm group = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() < ranks ? 0 : MPI_UNDEFINED, world_rank(), &group);
    if (group != MPI_COMM_NULL) {
      fn(static_cast<const CaseConfig&>(c), group);
      MPI_Comm_free(&group);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

const std::vector<std::array<int, 3>> kEveryAxis = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {3, 1, 1},
                                                    {1, 3, 1}, {1, 1, 3}, {2, 2, 1}, {1, 1, 4}};

void expect_same_as_one_rank(const CaseConfig& config, int steps, const std::vector<std::array<int, 3>>& layouts) {
  Run reference, start;
  if (world_rank() == 0) {
    reference = run(config, steps, MPI_COMM_NULL);
    start = run(config, 0, MPI_COMM_NULL);
    ASSERT_EQ(reference.particles.size(), std::size_t(config.particles.count));
    EXPECT_EQ(reference.count, config.particles.count);
  }
  for_each_split(config, layouts, [&](const CaseConfig& c, MPI_Comm group) {
    const auto& dims = c.parallel.ranks;
    const std::string name = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
    const Run decomposed = run(c, steps, group);
    if (world_rank() != 0) return;
    EXPECT_EQ(decomposed.count, config.particles.count) << name;
    ASSERT_EQ(decomposed.particles.size(), reference.particles.size()) << name;
    std::size_t differ = 0;
    for (std::size_t k = 0; k < reference.particles.size(); ++k)
      differ += decomposed.particles[k] != reference.particles[k];
    EXPECT_EQ(differ, 0u) << name << ": particles that differ from one rank";
    std::size_t fluid_differ = 0;
    for (std::size_t k = 0; k < reference.fluid.size(); ++k) fluid_differ += decomposed.fluid[k] != reference.fluid[k];
    EXPECT_EQ(fluid_differ, 0u) << name << ": fluid values (rho, u) that differ from one rank";
    // Meaningful: contacts across this split's rank boundaries and across the periodic faces, at the start and
    // at the end.
    for (const Run* r : {&start, &reference}) {
      const Touching t = touching(r->particles, dims);
      EXPECT_GE(t.across_ranks, 10) << name << ": touching pairs across rank boundaries";
      EXPECT_GE(t.periodic, 10) << name << ": touching pairs across the periodic faces";
    }
  });
}

TEST(MpiGhostParticles, CellListContactsMatchOneRankInDouble) {
  EDDY_REQUIRE_DEVICE();
  expect_same_as_one_rank(pile_case(Precision::float64, ContactSearch::cell_list, PairForce::none), 120, kEveryAxis);
}

TEST(MpiGhostParticles, CellListContactsMatchOneRankInFloat) {
  EDDY_REQUIRE_DEVICE();
  const std::vector<std::array<int, 3>> layouts = {{1, 2, 1}, {3, 1, 1}, {2, 2, 1}, {1, 1, 4}};
  expect_same_as_one_rank(pile_case(Precision::float32, ContactSearch::cell_list, PairForce::none), 120, layouts);
}

TEST(MpiGhostParticles, AllPairsContactsAndPairGravityMatchOneRank) {
  EDDY_REQUIRE_DEVICE();
  const std::vector<std::array<int, 3>> layouts = {{2, 1, 1}, {1, 3, 1}, {2, 2, 1}, {1, 1, 4}};
  expect_same_as_one_rank(pile_case(Precision::float64, ContactSearch::all_pairs, PairForce::none), 80, layouts);
  expect_same_as_one_rank(pile_case(Precision::float32, ContactSearch::cell_list, PairForce::gravity), 80, layouts);
}

}  // namespace
}  // namespace eddy
