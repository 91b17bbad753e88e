// Out-of-place steps (Simulation::advance_into: the fused kernel reads the simulation's array and writes another,
// kernels/streaming.hpp) against in-place ones: the same populations at every fluid cell, bitwise, after 9 steps
// of which 5 ran out of place (even and odd steps, two in a row, into a spare array filled with NaN bytes, so a slot
// the step should have written and did not shows), with a state swapped out and back in between
// (Simulation::exchange_population_storage: the run goes back to it and on, and must end the same). Cases: walls, a
// moving lid and a sphere with a body force (float, fp16 with its stochastic rounding, double), periodic on every
// axis (the ghost layer all around), and the open faces the adjoint covers (a velocity inlet with a pressure outlet,
// or with a zero-gradient outflow and free-slip walls), with a per-cell force and porosity; and the arrays as stored,
// every slot of the interior's non-solid cells and of the open faces' ghost nodes (Simulation::advance_into copies
// the latter's slots the step does not write). Not compared: solid cells' slots (no step writes them; they keep the
// spare array's values, the launcher's contract) and the other ghost slots, which are written before they are read
// (the exchange, the step).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/cell_flags.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "tests/force_field_support.hpp"
#include "tests/physics/open_channel.hpp"
#include "tests/physics/random_state.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

enum class Kind { walls, periodic, pressure_outlet, outflow };

struct OutOfPlaceCase {
  Kind kind;
  Precision precision;
  const char* name;
};

void PrintTo(const OutOfPlaceCase& c, std::ostream* os) { *os << c.name; }

CaseConfig case_of(const OutOfPlaceCase& p) {
  CaseConfig c = test::box_case(20, 12, 6, 0.7);
  switch (p.kind) {
    case Kind::walls: {
      test::make_periodic(c, 2);
      c.faces[0] = {FaceKind::moving_wall, {0.0, 0.03, 0.01}};
      c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.02}};
      c.solids = {test::halfway_ball({10.3, 5.7, 3.1}, 2.6)};
      break;
    }
    case Kind::periodic:
      for (int axis = 0; axis < 3; ++axis) test::make_periodic(c, axis);
      break;
    case Kind::pressure_outlet:
    case Kind::outflow:
      c.faces[0] = test::face_of(FaceKind::velocity_inlet);
      c.faces[0].profile = InletProfile::parabolic;
      c.faces[0].speed = 0.05;
      if (p.kind == Kind::pressure_outlet) {
        c.faces[1] = test::face_of(FaceKind::pressure_outlet);
        c.faces[1].density = 0.998;
        test::make_periodic(c, 2);
      } else {
        c.faces[1] = test::face_of(FaceKind::outflow);
        c.faces[2] = test::face_of(FaceKind::free_slip);
        c.faces[3] = test::face_of(FaceKind::free_slip);
      }
      break;
  }
  c.body_force = {1e-5, -2e-5, 5e-6};
  c.precision = p.precision;
  c.velocity = 0.05;
  finalize_case(c);
  return c;
}

class OutOfPlaceStep : public ::testing::TestWithParam<OutOfPlaceCase> {};

TEST_P(OutOfPlaceStep, IsBitwiseTheInPlaceStep) {
  EDDY_REQUIRE_DEVICE();
  const OutOfPlaceCase& p = GetParam();
  const CaseConfig config = case_of(p);
  const bool open = p.kind == Kind::pressure_outlet || p.kind == Kind::outflow;
  // A small random state about rest (open faces: about the inflow, which they impose).
  const std::vector<double> start = test::random_state(config, 31);
  const std::size_t n = std::size_t(config.size[0]) * config.size[1] * config.size[2];
  const auto prepare = [&](Simulation& sim) {
    sim.set_populations(start);
    if (open) {
      test::set_force_field(sim, [](int a, std::int64_t k) { return 1e-6 * double((k * (a + 3)) % 7) - 3e-6; });
      test::set_porosity(sim, [](std::int64_t k) { return 0.01 * double(k % 5); });
    }
  };
  constexpr int kSteps = 9;
  auto reference = Simulation::create(config);
  prepare(*reference);
  reference->advance(kSteps);
  const std::vector<double> expected = reference->populations();

  auto sim = Simulation::create(config);
  prepare(*sim);
  const std::size_t bytes = sim->population_storage().bytes;
  DeviceBuffer<unsigned char> spare(bytes), kept(bytes);
  const std::vector<unsigned char> nan_bytes(bytes, 0xff);  // NaN in float, double and fp16
  const auto out_of_place = [&](DeviceBuffer<unsigned char>& into) {
    into.upload(nan_bytes);
    sim->advance_into(into);
  };
  out_of_place(spare);  // step 0 (even); spare: s^0
  out_of_place(spare);  // step 1 (odd, right after another out of place)
  sim->advance(1);      // step 2, in place
  out_of_place(kept);   // step 3 (odd); kept: s^3
  const int kept_layout = sim->population_storage().layout == 0 ? 1 : 0;  // s^3's: the layout before step 3
  out_of_place(spare);                                                    // step 4 (even)
  sim->advance(2);                                                        // steps 5, 6
  // Back to s^3 (the array at step 7 goes to `kept`), then on to the end: steps 3 to 8 again.
  sim->exchange_population_storage(kept, kept_layout, 3);
  ASSERT_EQ(sim->time_step(), 3);
  out_of_place(spare);  // step 3 again
  sim->advance(3);      // steps 4, 5, 6
  out_of_place(spare);  // step 7 (odd)
  sim->advance(1);      // step 8
  ASSERT_EQ(sim->time_step(), kSteps);
  const std::vector<double> result = sim->populations();
  // The arrays as stored: every slot of the interior's non-solid cells and of the open faces' ghost nodes the same
  // bytes (those a step does not write too, which a later exchange may carry to where a step reads them).
  const auto stored = [](Simulation& s) {
    const PopulationStorage st = s.population_storage();
    std::vector<unsigned char> bytes(st.bytes);
    backend::copy_to_host(bytes.data(), st.data, st.bytes);
    return bytes;
  };
  const std::vector<unsigned char> stored_expected = stored(*reference), stored_result = stored(*sim);

  const Decomposition serial = serial_decomposition(config);
  const BlockShape shape = block_shape(serial);
  const std::vector<CellFlag> flags = build_flags(config, serial);
  ASSERT_EQ(result.size(), expected.size());
  std::size_t compared = 0, differing = 0, first = result.size();
  for (std::size_t k = 0; k < n; ++k) {
    const int x = int(k % config.size[0]), y = int(k / config.size[0] % config.size[1]);
    const int z = int(k / config.size[0] / config.size[1]);
    if (is_solid(flags[std::size_t(shape.index(x + 1, y + 1, z + 1))])) continue;
    for (int i = 0; i < 19; ++i) {
      const std::size_t at = std::size_t(i) * n + k;
      ++compared;
      if (std::memcmp(&result[at], &expected[at], sizeof(double)) != 0) {
        ++differing;
        if (first == result.size()) first = at;
      }
    }
  }
  EXPECT_EQ(differing, 0u) << "first difference at entry " << first << " (direction " << first / n << ", cell "
                           << first % n << "): " << (first < result.size() ? result[first] : 0.0) << " against "
                           << (first < result.size() ? expected[first] : 0.0);
  EXPECT_GT(compared, 19 * n / 2);
  ASSERT_EQ(stored_result.size(), stored_expected.size());
  const std::size_t value = stored_result.size() / (19 * std::size_t(shape.n_cells()));
  std::size_t stored_differing = 0;
  const Box whole = shape.whole();
  for (int z = whole.lo[2]; z < whole.hi[2]; ++z)
    for (int y = whole.lo[1]; y < whole.hi[1]; ++y)
      for (int x = whole.lo[0]; x < whole.hi[0]; ++x) {
        const std::int64_t cell = shape.index(x, y, z);
        const bool interior = x >= 1 && x <= shape.n[0] && y >= 1 && y <= shape.n[1] && z >= 1 && z <= shape.n[2];
        if (is_solid(flags[std::size_t(cell)]) || !(interior || is_open(flags[std::size_t(cell)]))) continue;
        for (int i = 0; i < 19; ++i) {
          const std::size_t at = (std::size_t(i) * std::size_t(shape.n_cells()) + std::size_t(cell)) * value;
          if (std::memcmp(&stored_result[at], &stored_expected[at], value) != 0) ++stored_differing;
        }
      }
  EXPECT_EQ(stored_differing, 0u) << "slots of interior or open-face ghost cells differ as stored";
  EXPECT_NE(expected, start) << "the run did not move the populations";
}

INSTANTIATE_TEST_SUITE_P(Cases, OutOfPlaceStep,
                         ::testing::Values(OutOfPlaceCase{Kind::walls, Precision::float32, "walls_float"},
                                           OutOfPlaceCase{Kind::walls, Precision::float16, "walls_fp16"},
                                           OutOfPlaceCase{Kind::walls, Precision::float64, "walls_double"},
                                           OutOfPlaceCase{Kind::periodic, Precision::float64, "periodic_double"},
                                           OutOfPlaceCase{Kind::pressure_outlet, Precision::float32,
                                                          "pressure_outlet_float"},
                                           OutOfPlaceCase{Kind::outflow, Precision::float64, "outflow_double"}),
                         [](const ::testing::TestParamInfo<OutOfPlaceCase>& info) { return info.param.name; });

TEST(OutOfPlaceStep, RefusesASpareOfAnotherSize) {
  EDDY_REQUIRE_DEVICE();
  OutOfPlaceCase walls{Kind::walls, Precision::float32, "walls"};
  auto sim = Simulation::create(case_of(walls));
  DeviceBuffer<unsigned char> small(sim->population_storage().bytes - 4);
  EXPECT_THROW(sim->advance_into(small), std::logic_error);
  EXPECT_EQ(sim->time_step(), 0);
}

}  // namespace
}  // namespace eddy
