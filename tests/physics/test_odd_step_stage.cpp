// The odd step's staged GPU launch (kernels/odd_step_stage.hpp: the x-shifted stores through shared memory)
// against the direct launch (every store at its slot): bitwise the same populations after 101 steps, for each
// storage type with a staged launch (float and double; fp16 always runs directly) and every source kind, in a box
// whose thread blocks begin and end in the middle of rows (row pitch 48 cells, blocks of 128), with moving walls at
// edges, a no-slip wall, a periodic axis and a sphere (cells next to walls write directly beside cells that go
// through the stage), and periodic on every axis (every row's first and last cells stream through the ghost layer).
// The staged launch is also what the oracle comparisons of test_oracle.cpp run through on GPUs (their 30-cell rows
// fill blocks of whole rows). On the cpu backend there is no staged launch and the test skips.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "tests/physics/random_state.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

struct StageCase {
  Precision precision;
  bool body_force;
  bool les;
  const char* name;
  bool walls = true;  ///< false: periodic on every axis, no solid (the ghost layer all around through the halo)
};

void PrintTo(const StageCase& c, std::ostream* os) { *os << c.name; }

CaseConfig staged_case(const StageCase& p) {
  CaseConfig c = test::box_case(46, 40, 10, 0.7);
  if (!p.walls) {
    for (int axis = 0; axis < 3; ++axis) test::make_periodic(c, axis);
  } else {
    test::make_periodic(c, 2);
    c.faces[0] = {FaceKind::moving_wall, {0.0, 0.03, 0.01}};  // x_min: the rows' first cells bounce back
    c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.02}};  // y_max: a lid meeting x_min at an edge
  }
  if (p.body_force) c.body_force = {1e-5, -2e-5, 5e-6};
  if (p.les) {
    c.les = LesModel::smagorinsky;
    c.smagorinsky_constant = 0.5;
  }
  c.precision = p.precision;
  c.velocity = 0.05;
  if (p.walls) c.solids = {test::halfway_ball({30.4, 9.7, 4.2}, 3.4)};
  finalize_case(c);
  return c;
}

/// Restores the odd step's launch setting.
struct StagingSetting {
  bool staged = backend::odd_step_staging();
  ~StagingSetting() { backend::set_odd_step_staging(staged); }
};

class StagedOddStep : public ::testing::TestWithParam<StageCase> {};

TEST_P(StagedOddStep, IsBitwiseTheDirectLaunch) {
  EDDY_REQUIRE_DEVICE();
  if (!backend::is_gpu()) GTEST_SKIP() << "SKIPPED: the staged odd step is a GPU launch (cpu runs it directly)";
  const CaseConfig config = staged_case(GetParam());
  const BlockShape shape = block_shape(serial_decomposition(config));
  // The staged kernel runs: an aligned launch, with blocks of its width that begin mid-row (128 / 48 cells).
  ASSERT_EQ(shape.pitch(), 48);
  ASSERT_TRUE(aligned_range(shape, shape.interior()).used);
  ASSERT_EQ(backend::block_size_x(), backend::kOddStepStageWidth);
  const std::vector<double> start = test::random_state(config, 77);
  const StagingSetting restore;
  std::vector<double> result[2];
  for (bool staged : {false, true}) {
    backend::set_odd_step_staging(staged);
    auto sim = Simulation::create(config);
    sim->set_populations(start);
    sim->advance(101);
    result[staged] = sim->populations();
  }
  ASSERT_EQ(result[0].size(), result[1].size());
  std::size_t differing = 0, first = result[0].size();
  for (std::size_t k = 0; k < result[0].size(); ++k) {
    // Bit patterns: compared as values, -0 and +0 would hide a lost sign.
    if (std::memcmp(&result[0][k], &result[1][k], sizeof(double)) != 0) {
      ++differing;
      if (first == result[0].size()) first = k;
    }
  }
  EXPECT_EQ(differing, 0u) << "first difference at entry " << first << " of " << result[0].size();
  EXPECT_NE(result[0], start) << "the run did not move the populations";
}

TEST(StagedOddStep, WideOffsetsToo) {
  // Blocks beyond ~600^3 cells address the populations through 64-bit offsets (a pointer per direction); their odd
  // step is staged too. One odd step of each launch from the same state, directly through stream_collide.
  EDDY_REQUIRE_DEVICE();
  if (!backend::is_gpu()) GTEST_SKIP() << "SKIPPED: the staged odd step is a GPU launch (cpu runs it directly)";
  const CaseConfig config = staged_case({Precision::float64, true, false, "double"});
  const Decomposition serial = serial_decomposition(config);
  const BlockShape shape = block_shape(serial);
  ASSERT_TRUE(aligned_range(shape, shape.interior()).used);
  const std::size_t size = std::size_t(d3q19::Q) * std::size_t(shape.n_cells());
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> value(-0.01, 0.01);  // f_i - w_i
  std::vector<double> host(size);
  for (auto& v : host) v = value(rng);
  DeviceBuffer<CellFlag> flags(std::size_t(shape.n_cells()));
  flags.upload(build_flags(config, serial));
  const auto relax = relaxation<double>(config);
  const auto walls = wall_velocities<double>(config);
  const RoundingKey key{1, {0, 0, 0}};
  const StagingSetting restore;
  std::vector<double> result[2];
  for (bool staged : {false, true}) {
    backend::set_odd_step_staging(staged);
    DeviceBuffer<double> f(size);
    f.upload(host);
    stream_collide(PopulationView<double>{f.data(), shape.n_cells()}, PopulationLayout::swapped,
                   FlagView{flags.data()}, shape, shape.interior(), relax, walls, key, nullptr, /*wide_index=*/true);
    backend::synchronize();
    result[staged] = f.download();
  }
  EXPECT_NE(result[0], host) << "the step did not move the populations";
  EXPECT_TRUE(std::memcmp(result[0].data(), result[1].data(), size * sizeof(double)) == 0)
      << "staged and direct odd steps with 64-bit offsets differ";
}

INSTANTIATE_TEST_SUITE_P(
    Storages, StagedOddStep,
    ::testing::Values(StageCase{Precision::float32, true, false, "float_uniform_force"},
                      StageCase{Precision::float32, false, false, "float_no_force"},
                      StageCase{Precision::float32, true, true, "float_les"},
                      StageCase{Precision::float64, true, false, "double_uniform_force"},
                      StageCase{Precision::float64, true, false, "double_periodic", false}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace eddy
