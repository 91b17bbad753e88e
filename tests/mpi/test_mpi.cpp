// MPI tests (CTest label mpi), run with 4 ranks by mpiexec:
//  - the halo exchange fills every ghost population that streams into a block with its owner's value, for every
//    face, edge and corner, periodic and not;
//  - runs decomposed along x, y, z, 2 x 2 x 1 and 4 x 1 x 1 give bitwise the same density and velocity as one rank
//    (cavity with its moving lid crossing rank boundaries, and periodic Taylor-Green), for every transport that this
//    build has and with overlap on and off;
//  - the same with a solid sphere cut by the rank boundaries (and by a periodic face).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <map>

#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/halo_exchange.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_gpu_support.hpp"
#include "solver/simulation.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::group_of;
using test::world_rank;
using test::world_size;

CaseConfig cavity_case() {
  CaseConfig c = test::box_case(14, 12, 10, 0.0);
  c.tau = 0.0;
  c.velocity = 0.1;
  c.reynolds = 60.0;
  c.faces[3] = {FaceKind::moving_wall, {0.1, 0.0, 0.0}};   // the lid, crossing every x and z rank boundary
  c.faces[4] = {FaceKind::moving_wall, {0.0, 0.05, 0.0}};  // a second moving wall meeting it at an edge
  c.body_force = {0.0, 0.0, 1e-6};
  finalize_case(c);
  return c;
}

CaseConfig taylor_green_case() {
  CaseConfig c = test::box_case(16, 16, 16, 0.56);  // low viscosity: the vortex is still strong after 200 steps
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.velocity = 0.05;
  c.initial = {InitialKind::taylor_green_3d, 0.05};
  finalize_case(c);
  return c;
}

/// The turbulent channel's start (kernels/initialize.cpp, turbulent_channel) with its body force: walls at y,
/// x and z periodic; the modes are functions of the global position, so every split starts alike.
CaseConfig channel_case() {
  CaseConfig c = test::box_case(16, 12, 10, 0.56);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.velocity = 0.05;
  c.initial = {InitialKind::turbulent_channel, 0.05, 1.0};
  c.body_force = {2e-6, 0.0, 0.0};
  finalize_case(c);
  return c;
}

/// Global fields (rho, ux, uy, uz back to back) assembled on rank 0 of `comm` from every rank's block.
std::vector<double> gather_fields(const MacroscopicFields& f, MPI_Comm comm) {
  std::vector<double> local = f.rho;
  for (int a = 0; a < 3; ++a) local.insert(local.end(), f.u[a].begin(), f.u[a].end());
  return test::gather_global(f, local, 4, comm);
}

std::vector<double> run_fields(CaseConfig config, std::array<int, 3> dims, HaloTransport transport, bool overlap,
                               int steps, MPI_Comm comm) {
  config.parallel.ranks = dims;
  config.parallel.transport = transport;
  config.parallel.overlap = overlap;
  const Decomposition d = decompose(config, comm);
  auto sim = Simulation::create(config, d);
  sim->advance(steps);
  return gather_fields(sim->fields(), comm);
}

/// host and device always (device = MPI on device pointers: plain memory on cpu, CUDA-aware MPI on GPUs when the
/// MPI reports support); nccl when EDDY_TEST_NCCL=1 (GPU machine, one rank per GPU).
std::vector<HaloTransport> test_transports() {
  std::vector<HaloTransport> t = {HaloTransport::host};
  if (!backend::is_gpu() || mpi_cuda_aware() != 0) t.push_back(HaloTransport::device);
  const char* nccl = std::getenv("EDDY_TEST_NCCL");
  if (nccl != nullptr && std::string(nccl) == "1") t.push_back(HaloTransport::nccl);
  return t;
}

struct Layout {
  std::array<int, 3> dims;
  const char* name;
};

const Layout kLayouts[] = {{{2, 1, 1}, "x2"},   {{1, 2, 1}, "y2"}, {{1, 1, 2}, "z2"},
                           {{2, 2, 1}, "x2y2"}, {{4, 1, 1}, "x4"}, {{1, 1, 4}, "z4"}};

void expect_bitwise_equal_to_one_rank(const CaseConfig& config, int steps) {
  std::vector<double> reference;
  if (world_rank() == 0) {
    auto serial = Simulation::create(config);  // one rank, no MPI at all
    serial->advance(steps);
    const MacroscopicFields f = serial->fields();
    reference = f.rho;
    for (int a = 0; a < 3; ++a) reference.insert(reference.end(), f.u[a].begin(), f.u[a].end());
  }
  for (const Layout& layout : kLayouts) {
    const int ranks = layout.dims[0] * layout.dims[1] * layout.dims[2];
    if (world_size() % ranks != 0) continue;
    for (HaloTransport transport : test_transports()) {
      for (bool overlap : {true, false}) {
        MPI_Comm group = group_of(ranks);
        const std::vector<double> fields = run_fields(config, layout.dims, transport, overlap, steps, group);
        MPI_Comm_free(&group);
        if (world_rank() != 0) continue;
        ASSERT_EQ(fields.size(), reference.size());
        std::size_t mismatches = 0;
        for (std::size_t k = 0; k < fields.size(); ++k) mismatches += fields[k] != reference[k];
        EXPECT_EQ(mismatches, 0u) << layout.name << ", transport " << int(transport) << ", overlap " << overlap
                                  << ": values that differ from the one-rank run";
      }
    }
  }
  if (world_rank() == 0) {
    // The comparison is meaningful: the flow moved.
    double max_u = 0.0;
    const std::size_t n = reference.size() / 4;
    for (std::size_t k = n; k < reference.size(); ++k) max_u = std::max(max_u, std::abs(reference[k]));
    EXPECT_GT(max_u, 1e-3);
  }
}

TEST(MpiDeterminism, CavityWithMovingLidAcrossRankBoundaries) {
  EDDY_REQUIRE_DEVICE();
  expect_bitwise_equal_to_one_rank(cavity_case(), 200);
}

TEST(MpiDeterminism, PeriodicTaylorGreen) {
  EDDY_REQUIRE_DEVICE();
  expect_bitwise_equal_to_one_rank(taylor_green_case(), 200);
}

TEST(MpiDeterminism, TurbulentChannelStart) {
  EDDY_REQUIRE_DEVICE();
  expect_bitwise_equal_to_one_rank(channel_case(), 51);
}

// fp16 storage rounds stochastically with bits hashed from global cell coordinates and step, so decomposed runs
// stay bitwise equal to one rank; an odd step count ends on an odd (neighbour-writing) step, whose populations
// reach their owners only through the exchange out of the ghosts before the fields are read.
TEST(MpiDeterminism, Fp16CavityAfterAnOddStepCount) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = cavity_case();
  c.precision = Precision::float16;
  expect_bitwise_equal_to_one_rank(c, 201);
}

TEST(MpiDeterminism, Fp16PeriodicTaylorGreenAfterAnOddStepCount) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = taylor_green_case();
  c.precision = Precision::float16;
  expect_bitwise_equal_to_one_rank(c, 157);
}

/// A sphere ([[solid]]) of radius r at `centre` with walls `wall`, added to finalized case `c`.
CaseConfig with_sphere(CaseConfig c, std::array<double, 3> centre, double radius,
                       SolidWall wall = SolidWall::interpolated) {
  SolidConfig s;
  s.name = "ball";
  s.shape = SolidShape::sphere;
  s.center = centre;
  s.radius = radius;
  s.wall = wall;
  c.solids.push_back(s);
  finalize_case(c);
  return c;
}

// Solid bodies: each block flags its cells (ghosts included) by their global position, so a sphere cut by the rank
// boundaries of every layout (its centre on the middle planes of x, y and z) gives the one-rank bits, on 2 ranks
// and more, with interpolated walls (the default; tests/mpi/test_mpi_interpolated_walls.cpp for bodies off the
// planes' symmetry) and half-way ones; and one cut off by the periodic x face of the Taylor-Green box (not repeated
// across it), whose ghosts across that face copy the far side's fluid cells.
TEST(MpiSolids, SphereCutByRankBoundariesEqualsOneRank) {
  EDDY_REQUIRE_DEVICE();
  expect_bitwise_equal_to_one_rank(with_sphere(cavity_case(), {7.0, 6.0, 5.0}, 3.2), 120);
  expect_bitwise_equal_to_one_rank(with_sphere(cavity_case(), {7.0, 6.0, 5.0}, 3.2, SolidWall::halfway), 61);
  CaseConfig fp16 = with_sphere(cavity_case(), {7.0, 6.0, 5.0}, 3.2);
  fp16.precision = Precision::float16;
  expect_bitwise_equal_to_one_rank(fp16, 61);
  expect_bitwise_equal_to_one_rank(with_sphere(taylor_green_case(), {1.0, 8.0, 8.0}, 4.0), 120);
}

// Out-of-core blocks (solver/out_of_core.hpp) on 2 and 4 ranks, split along z: each rank streams its block through
// the device in slabs and takes its halo planes from its z-neighbours (across the periodic face too, where the
// rounding keys of fp16 must be the far cells' own). The fields equal the one-rank in-core run bit for bit.
TEST(MpiOutOfCore, BitwiseEqualToOneRankInCore) {
  EDDY_REQUIRE_DEVICE();
  struct Setting {
    int ranks, time_block, slabs;
  };
  const Setting settings[] = {{2, 2, 2}, {2, 3, 1}, {4, 1, 2}};
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    for (CaseConfig config : {cavity_case(), taylor_green_case()}) {
      config.precision = precision;
      const int steps = 13;
      std::vector<double> reference;
      if (world_rank() == 0) {
        auto serial = Simulation::create(config);
        serial->advance(steps);
        const MacroscopicFields f = serial->fields();
        reference = f.rho;
        for (int a = 0; a < 3; ++a) reference.insert(reference.end(), f.u[a].begin(), f.u[a].end());
      }
      for (const Setting& s : settings) {
        if (world_size() % s.ranks != 0) continue;
        CaseConfig ooc = config;
        ooc.out_of_core.mode = OutOfCoreMode::on;
        ooc.out_of_core.time_block = s.time_block;
        ooc.out_of_core.slabs = s.slabs;
        ooc.out_of_core.device_memory_limit = std::int64_t(1) << 28;
        finalize_case(ooc);
        MPI_Comm group = group_of(s.ranks);
        const Decomposition d = decompose(ooc, group);
        ASSERT_EQ(d.dims, (std::array<int, 3>{1, 1, s.ranks}));
        auto sim = Simulation::create(ooc, d);
        OutOfCoreStats stats;
        ASSERT_TRUE(sim->out_of_core(stats));
        sim->advance(steps);
        const std::vector<double> fields = gather_fields(sim->fields(), group);
        MPI_Comm_free(&group);
        if (world_rank() != 0) continue;
        ASSERT_EQ(fields.size(), reference.size());
        std::size_t mismatches = 0;
        for (std::size_t k = 0; k < fields.size(); ++k) mismatches += fields[k] != reference[k];
        EXPECT_EQ(mismatches, 0u) << s.ranks << " ranks, time_block " << s.time_block << ", " << s.slabs
                                  << " slabs, storage " << int(precision) << ": values that differ";
      }
    }
  }
}

/// Encodes population i of global cell g as an exact double.
double encode(const std::array<int, 3>& g, const std::array<int, 3>& n, int i) {
  return double((g[0] + std::int64_t(n[0]) * (g[1] + std::int64_t(n[1]) * g[2])) * d3q19::Q + i);
}

/// Global coordinates of block cell p (periodic axes wrapped); false when p lies beyond a wall.
bool global_cell(const Decomposition& d, const std::array<int, 3>& p, std::array<int, 3>& g) {
  for (int a = 0; a < 3; ++a) {
    g[a] = d.offset[a] + p[a] - 1;
    if (g[a] < 0 || g[a] >= d.global_size[a]) {
      if (!d.periodic[a]) return false;
      g[a] = (g[a] + d.global_size[a]) % d.global_size[a];
    }
  }
  return true;
}

bool interior(const BlockShape& shape, const std::array<int, 3>& p) {
  for (int a = 0; a < 3; ++a)
    if (p[a] < 1 || p[a] > shape.n[a]) return false;
  return true;
}

/// Checks one exchange direction on a decomposition `dims`, with every slot j of every cell holding
/// encode(its global cell, j):
///   into_ghosts:   a ghost slot j that the odd step reads (g - c_j interior) equals its owner's value; interior
///                  slots are untouched;
///   out_of_ghosts: interior slots start poisoned (-1) and ghost slots written by this rank's cells hold the values;
///                  an interior slot j fed from
///                  across a face (x - c_j outside the block, not beyond a wall) receives encode(x, j) from the
///                  neighbour's ghost that stands for x; slots fed from inside or from beyond a wall (where the
///                  cell's own bounce-back writes) stay poisoned.
void check_halo(CaseConfig config, std::array<int, 3> dims, HaloDirection direction) {
  config.parallel.ranks = dims;
  const int ranks = dims[0] * dims[1] * dims[2];
  MPI_Comm group = group_of(ranks);
  const Decomposition d = decompose(config, group);
  const BlockShape shape = block_shape(d);
  const bool into = direction == HaloDirection::into_ghosts;
  const std::size_t size = std::size_t(d3q19::Q) * std::size_t(shape.n_cells());
  std::vector<double> host(size, -1.0);
  const Box whole = shape.whole();
  auto for_each_cell = [&](auto fn) {
    for (int z = whole.lo[2]; z < whole.hi[2]; ++z)
      for (int y = whole.lo[1]; y < whole.hi[1]; ++y)
        for (int x = whole.lo[0]; x < whole.hi[0]; ++x) fn(std::array<int, 3>{x, y, z});
  };
  for_each_cell([&](const std::array<int, 3>& p) {
    std::array<int, 3> g;
    if (interior(shape, p) != into || !global_cell(d, p, g)) return;  // into: interior cells; out: ghosts
    for (int j = 0; j < d3q19::Q; ++j) {
      // Out of the ghosts, only slots that an interior cell of this rank writes (p - c_j interior) carry a value;
      // the others hold -2, so a population routed through the wrong rank's ghost shows up.
      const std::array<int, 3> writer{p[0] - d3q19::c(j, 0), p[1] - d3q19::c(j, 1), p[2] - d3q19::c(j, 2)};
      host[j * shape.n_cells() + shape.index(p[0], p[1], p[2])] =
          into || interior(shape, writer) ? encode(g, d.global_size, j) : -2.0;
    }
  });
  DeviceBuffer<double> f(size);
  f.upload(host);
  DeviceBuffer<CellFlag> flags(std::size_t(shape.n_cells()));
  flags.upload(build_flags(config, d));
  HaloExchange<double> halo(d, shape, config.parallel.transport);
  backend::Stream stream;
  halo.exchange(PopulationView<double>{f.data(), shape.n_cells()}, FlagView{flags.data()}, direction, stream);
  const std::vector<double> after = f.download();

  int checked = 0, wrong = 0, clobbered = 0;
  for_each_cell([&](const std::array<int, 3>& p) {
    std::array<int, 3> g;
    const bool inside = interior(shape, p);
    if (!global_cell(d, p, g)) return;  // beyond a wall: solid, never read
    for (int j = 1; j < d3q19::Q; ++j) {
      const std::array<int, 3> from{p[0] - d3q19::c(j, 0), p[1] - d3q19::c(j, 1), p[2] - d3q19::c(j, 2)};
      const double value = after[j * shape.n_cells() + shape.index(p[0], p[1], p[2])];
      if (into) {
        if (inside) {
          clobbered += value != encode(g, d.global_size, j);
        } else if (interior(shape, from)) {
          ++checked;
          wrong += value != encode(g, d.global_size, j);
        }
      } else if (inside) {
        std::array<int, 3> source;
        if (interior(shape, from) || !global_cell(d, from, source)) {
          clobbered += value != -1.0;  // fed from inside, or bounced back from a wall by the cell itself
        } else {
          ++checked;
          wrong += value != encode(g, d.global_size, j);
        }
      }
    }
  });
  const char* name = into ? "into_ghosts" : "out_of_ghosts";
  EXPECT_EQ(wrong, 0) << "of " << checked << " crossing populations, " << name << ", dims " << dims[0] << "x" << dims[1]
                      << "x" << dims[2] << ", rank " << d.rank;
  EXPECT_EQ(clobbered, 0) << "interior slots the exchange must not touch, " << name << ", rank " << d.rank;
  if (d.exchanges(0) || d.exchanges(1) || d.exchanges(2)) EXPECT_GT(checked, 0);
  MPI_Comm_free(&group);
}

TEST(HaloExchange, EveryCrossingPopulationReachesItsOwner) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig walls = test::box_case(9, 8, 7, 0.8);  // uneven sizes: remainders spread over ranks
  walls.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.0}};
  CaseConfig periodic = test::box_case(9, 8, 7, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(periodic, a);
  CaseConfig mixed = test::box_case(9, 8, 7, 0.8);
  test::make_periodic(mixed, 0);
  test::make_periodic(mixed, 2);
  for (CaseConfig* c : {&walls, &periodic, &mixed}) {
    finalize_case(*c);
    for (HaloTransport transport : test_transports()) {
      c->parallel.transport = transport;
      for (const auto& dims : {std::array<int, 3>{1, 1, 1}, {2, 2, 1}, {4, 1, 1}, {1, 2, 2}, {1, 1, 4}, {2, 1, 2}}) {
        if (world_size() % (dims[0] * dims[1] * dims[2]) != 0) continue;
        check_halo(*c, dims, HaloDirection::into_ghosts);
        check_halo(*c, dims, HaloDirection::out_of_ghosts);
      }
    }
  }
}

TEST(Decomposition, UnevenSizesAndRankCountErrors) {
  CaseConfig c = test::box_case(9, 8, 7, 0.8);
  finalize_case(c);
  if (world_size() == 4) {
    c.parallel.ranks = {4, 1, 1};
    const Decomposition d = decompose(c, MPI_COMM_WORLD);
    int first = 0, count = 0, total = 0;
    for (int p = 0; p < 4; ++p) {
      d.block_extent(0, p, first, count);
      EXPECT_EQ(first, total);
      EXPECT_EQ(count, p == 0 ? 3 : 2);  // 9 = 3 + 2 + 2 + 2
      total += count;
    }
    EXPECT_EQ(total, 9);
  }
  c.parallel.ranks = {world_size() + 1, 1, 1};
  EXPECT_THROW(decompose(c, MPI_COMM_WORLD), CollectiveInputError);
  // Automatic dims keep one-cell axes whole: 4 ranks cannot split a 2 x 1 x 1 grid.
  CaseConfig thin = test::box_case(2, 1, 1, 0.8);
  finalize_case(thin);
  if (world_size() > 2) {
    EXPECT_THROW(decompose(thin, MPI_COMM_WORLD), CollectiveInputError);
  }
}

TEST(Decomposition, OutOfCoreSplitsAlongZOnly) {
  // Automatic dims of an out-of-core run: {1, 1, ranks}, where MPI_Dims_create would also split x and y.
  CaseConfig c = test::box_case(16, 16, 16, 0.8);
  c.out_of_core.mode = OutOfCoreMode::on;
  finalize_case(c);
  const Decomposition d = decompose(c, MPI_COMM_WORLD);
  EXPECT_EQ(d.dims, (std::array<int, 3>{1, 1, world_size()}));
  EXPECT_EQ(d.local_size[0], 16);
  EXPECT_EQ(d.local_size[1], 16);
  c.out_of_core.mode = OutOfCoreMode::automatic;  // not forced: the usual balanced split
  if (world_size() == 4) EXPECT_EQ(decompose(c, MPI_COMM_WORLD).dims, (std::array<int, 3>{1, 2, 2}));
  // More ranks than z-planes is refused, even where x or y could take them.
  CaseConfig flat = test::box_case(16, 16, 1, 0.8);
  flat.out_of_core.mode = OutOfCoreMode::on;
  finalize_case(flat);
  if (world_size() > 1) EXPECT_THROW(decompose(flat, MPI_COMM_WORLD), RankCountError);
}

}  // namespace
}  // namespace eddy

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {  // one GPU per rank of a node, as eddy run picks them
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 0;
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (eddy::backend::device_count() > 0) eddy::backend::select_device(local % eddy::backend::device_count());
  }
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  int any_failed = 0;
  MPI_Allreduce(&result, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
