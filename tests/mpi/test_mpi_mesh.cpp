// [[solid]] meshes on several ranks (CTest label mpi, run on 4 ranks): each rank voxelises its own block and ghost
// layer (solver/block_solids.hpp), so a mesh sphere read from an STL file and cut by the rank boundaries of x2,
// 2 x 2 x 1 and z4 and by the periodic x face, and an open box repaired with repair = "fill" whose hole lies on a
// rank boundary, give the one-rank cells, density, velocity and forces bitwise, and the same summary (cells, odd
// rays). Their walls are interpolated (the default): each link's wall distance from the mesh's triangles is the
// same on every rank count too.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io/solid_files.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "solver/tessellated_sphere.hpp"
#include "tests/mesh_files.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::world_rank;

/// A directory every rank names alike (rank 0's pid), made by rank 0, removed at the end.
class SharedDir {
 public:
  SharedDir() {
    long pid = world_rank() == 0 ? long(::getpid()) : 0;
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    path_ = std::filesystem::temp_directory_path() / ("eddy_mpi_mesh_" + std::to_string(pid));
    if (world_rank() == 0) std::filesystem::create_directories(path_);
  }
  ~SharedDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    std::error_code ec;
    if (world_rank() == 0) std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// A channel 24 x 20 x 16 under a body force (periodic x and z, walls y) with a mesh sphere across the x face and
/// the middle planes, and a box with a hole at x = 12 (the x2 boundary) and y = 10 (the 2 x 2 x 1 one).
CaseConfig mesh_case(const SharedDir& dir) {
  if (world_rank() == 0) {
    test::write_binary_stl(dir.file("ball.stl"), uv_sphere({2.3, 9.7, 7.9}, 5.2, 16, 32));
    // The box's x_min face (the first 128 triangles) loses its strip of quads y 10.4 .. 11.0: the rays y = 10.5, on
    // the box's last row and in the ghost layer of the 2 x 2 x 1 split's lower blocks, cross it once. Their repair
    // weighs rows 8 and 9 (inside) against rows 11 and 12 (outside the box), beyond the ghost layer: every block
    // must sample them to get the one-rank vote.
    TriangleMesh box = test::tessellated_box({12.0, 6.2, 9.2}, {20.3, 11.0, 15.0}, 8);
    box.triangles.erase(box.triangles.begin() + 2 * 7 * 8, box.triangles.begin() + 2 * 8 * 8);
    test::write_binary_stl(dir.file("open_box.stl"), box);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CaseConfig c = test::box_case(24, 20, 16, 0.7);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.velocity = 0.05;
  c.body_force = {2e-4, 0.0, 3e-5};
  SolidConfig ball, box;
  ball.name = "ball";
  ball.shape = SolidShape::mesh;
  ball.file = dir.file("ball.stl");
  ball.forces = true;
  ball.reference_area = 85.0;  // a mesh's references are given, not derived
  ball.reference_length = 10.4;
  box.name = "box";
  box.shape = SolidShape::mesh;
  box.file = dir.file("open_box.stl");
  box.repair = MeshRepair::fill;
  box.forces = true;
  box.reference_area = 40.0;
  box.reference_length = 8.0;
  c.solids = {ball, box};
  finalize_case(c);
  load_solid_files(c);
  return c;
}

std::vector<double> state(Simulation& sim, MPI_Comm comm) {
  const MacroscopicFields f = sim.fields();
  std::vector<double> local = f.rho;
  for (const auto& component : f.u) local.insert(local.end(), component.begin(), component.end());
  return test::gather_global(f, local, 4, comm);
}

TEST(MpiMesh, VoxelisedPerRankBitwiseEqualToOneRank) {
  EDDY_REQUIRE_DEVICE();
  const SharedDir dir;
  const CaseConfig c = mesh_case(dir);
  const int steps = 31;
  std::vector<double> reference;
  std::vector<unsigned long long> forces;
  std::vector<SolidSummary> summary;
  if (world_rank() == 0) {
    auto serial = Simulation::create(c);
    serial->advance(steps);
    reference = state(*serial, MPI_COMM_SELF);
    forces = global_solid_force_sums(*serial);
    summary = serial->solid_summary();
    ASSERT_EQ(summary.size(), 2u);
    EXPECT_GT(summary[0].cells, 300);
    EXPECT_EQ(summary[0].odd_columns, 0);
    EXPECT_GT(summary[1].odd_columns, 0);  // the hole
    const std::size_t solid = std::size_t(std::count(reference.begin(), reference.begin() + 24 * 20 * 16, 0.0));
    EXPECT_EQ(std::int64_t(solid), summary[0].cells + summary[1].cells);  // solid cells are written as density 0
  }
  test::for_each_layout(c, [&](const CaseConfig& d, MPI_Comm group) {
    const auto& dims = d.parallel.ranks;
    auto sim = Simulation::create(d, decompose(d, group));
    sim->advance(steps);
    const std::vector<double> got = state(*sim, group);
    const std::vector<unsigned long long> sums = global_solid_force_sums(*sim);  // collective
    if (world_rank() != 0) return;
    const std::string layout = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
    EXPECT_TRUE(got == reference) << layout << ": density or velocity differs from one rank";
    EXPECT_EQ(sums, forces) << layout;
    for (std::size_t k = 0; k < summary.size(); ++k) {
      EXPECT_EQ(sim->solid_summary()[k].cells, summary[k].cells) << layout << ", solid " << k;
      EXPECT_EQ(sim->solid_summary()[k].odd_columns, summary[k].odd_columns) << layout << ", solid " << k;
    }
  });
}

}  // namespace
}  // namespace eddy
