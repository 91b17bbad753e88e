// The discrete adjoint through the open faces (kernels/open_adjoint.hpp, solver/open_adjoint.hpp): whole runs in double
// of a channel with a parabolic velocity inlet on x_min and, on x_max, a pressure outlet (walls on y, periodic z) or a
// zero-gradient outflow (free-slip y faces, walls on z), under a body force and a per-cell force field, 20 steps with
// states kept every 6. For the pressure drop between two cross-sections (the objective of a channel's design), the
// kinetic energy of a sub-box and a velocity mismatch: dL/dtau and the directional derivatives along 3 random
// directions of the per-cell force (everywhere, the outlet's layers included, whose velocities enter its rule), of the
// starting populations and, with a porosity field, of the porosity, against central differences of forward runs
// (objective from Simulation::fields()), 1e-6 relative as issue 28 asks. Also the plan's terms on a
// small case (every link's nu feeds its target, the outlet's cells feed their 19 slots), and the refusals of sponge
// layers and of the convective outflow.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "solver/adjoint.hpp"
#include "solver/errors.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_adjoint.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/simulation.hpp"
#include "tests/direction_vectors.hpp"
#include "tests/force_field_support.hpp"
#include "tests/physics/open_channel.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using d3q19::Q;
using test::face_of;

constexpr int kNx = 12, kNy = 8, kNz = 4;
constexpr int kSteps = 20;
constexpr int kKeepEvery = 6;

enum class Outlet { pressure, zero_gradient };

/// The channel: parabolic inlet (peak 0.05) on x_min, `outlet` on x_max; walls on y and periodic z (pressure outlet)
/// or free slip on y and walls on z (outflow).
CaseConfig channel(Outlet outlet, double tau = 0.7) {
  CaseConfig c = test::box_case(kNx, kNy, kNz, tau);
  c.faces[0] = face_of(FaceKind::velocity_inlet);
  c.faces[0].profile = InletProfile::parabolic;
  c.faces[0].speed = 0.05;
  if (outlet == Outlet::pressure) {
    c.faces[1] = face_of(FaceKind::pressure_outlet);
    c.faces[1].density = 0.998;
    test::make_periodic(c, 2);
  } else {
    c.faces[1] = face_of(FaceKind::outflow);
    c.faces[2] = face_of(FaceKind::free_slip);
    c.faces[3] = face_of(FaceKind::free_slip);
  }
  c.body_force = {1e-5, 2e-6, 0.0};
  c.precision = Precision::float64;
  c.velocity = 0.05;
  finalize_case(c);
  return c;
}

constexpr std::size_t kCells = std::size_t(kNx) * kNy * kNz;

using test::axpy;
using test::dot;
using test::random_vector;

/// L of `objective` from the fields of one state, computed here from its definition (solver/adjoint.hpp).
double objective_of(const MacroscopicFields& m, const Objective& o) {
  const auto in = [](const std::array<int, 3>& lo, const std::array<int, 3>& hi, int x, int y, int z) {
    return x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
  };
  double value = 0.0, up = 0.0, down = 0.0;
  int n_up = 0, n_down = 0;
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        const std::size_t k = std::size_t(m.index(x, y, z));
        const double u[3] = {m.u[0][k], m.u[1][k], m.u[2][k]};
        if (o.kind == ObjectiveKind::pressure_drop) {
          if (in(o.lo, o.hi, x, y, z)) up += m.rho[k], ++n_up;
          if (in(o.down_lo, o.down_hi, x, y, z)) down += m.rho[k], ++n_down;
        } else if (o.kind == ObjectiveKind::velocity_mismatch) {
          for (int a = 0; a < 3; ++a) value += 0.5 * std::pow(u[a] - o.target[a * kCells + k], 2);
        } else if (in(o.lo, o.hi, x, y, z)) {
          value += 0.5 * m.rho[k] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        }
      }
  return o.kind == ObjectiveKind::pressure_drop ? (up / n_up - down / n_down) / 3.0 : value;
}

std::unique_ptr<Simulation> start_from(const CaseConfig& config, const std::vector<double>& s0,
                                       const std::vector<double>& force, const std::vector<double>& porosity) {
  auto sim = Simulation::create(config);
  test::set_force_field(*sim, [&](int a, std::int64_t k) { return force[a * kCells + std::size_t(k)]; });
  if (!porosity.empty()) test::set_porosity(*sim, [&](std::int64_t k) { return porosity[std::size_t(k)]; });
  sim->set_populations(s0);
  return sim;
}

double forward_objective(const CaseConfig& config, const std::vector<double>& s0, const std::vector<double>& force,
                         const Objective& objective, const std::vector<double>& porosity) {
  auto sim = start_from(config, s0, force, porosity);
  sim->advance(kSteps);
  return objective_of(sim->fields(), objective);
}

Objective pressure_drop() {
  Objective o;
  o.kind = ObjectiveKind::pressure_drop;
  o.region = true;
  o.lo = {1, 0, 0};
  o.hi = {3, kNy, kNz};
  o.down_lo = {8, 0, 0};
  o.down_hi = {11, kNy, kNz};
  return o;
}

struct Variant {
  Outlet outlet;
  ObjectiveKind objective;
  bool porous;  // a porosity field everywhere (the outlet's layers included)
};

class OpenFacesGradient : public ::testing::TestWithParam<Variant> {};

TEST_P(OpenFacesGradient, AgreesWithCentralDifferencesOfTheForwardRun) {
  EDDY_REQUIRE_DEVICE();
  const Variant v = GetParam();
  const CaseConfig config = channel(v.outlet);
  std::mt19937 rng(11);
  Objective objective = pressure_drop();
  if (v.objective == ObjectiveKind::kinetic_energy) {
    objective.kind = ObjectiveKind::kinetic_energy;
    objective.lo = {0, 1, 0};  // the inlet's and the outlet's cells included
    objective.hi = {kNx, 7, kNz};
  } else if (v.objective == ObjectiveKind::velocity_mismatch) {
    objective.kind = ObjectiveKind::velocity_mismatch;
    objective.region = false;
    objective.target = random_vector(3 * kCells, 0.02, rng);
  }
  std::vector<double> s0;
  {
    auto warm = Simulation::create(config);
    warm->advance(30);
    s0 = warm->populations();
  }
  // A per-cell force everywhere (the outlet's layers too: their velocities enter the outlet's rule).
  const std::vector<double> force = random_vector(3 * kCells, 1e-4, rng);
  std::vector<double> alpha;
  if (v.porous) {
    alpha = random_vector(kCells, 0.02, rng);
    for (double& a : alpha) a += 0.04;
  }

  auto sim = start_from(config, s0, force, alpha);
  const GradientResult grad = gradient(*sim, kSteps, objective, {kKeepEvery});
  EXPECT_NEAR(grad.objective, forward_objective(config, s0, force, objective, alpha), 1e-12 * std::abs(grad.objective));

  const double e = 1e-6;
  const double central_tau = (forward_objective(channel(v.outlet, 0.7 + e), s0, force, objective, alpha) -
                              forward_objective(channel(v.outlet, 0.7 - e), s0, force, objective, alpha)) /
                             (2 * e);
  EXPECT_LE(std::abs(grad.tau - central_tau), 1e-6 * std::abs(central_tau))
      << "tau: adjoint " << grad.tau << ", central difference " << central_tau;
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<double> d_force = random_vector(3 * kCells, 1.0, rng);
    const double central = (forward_objective(config, s0, axpy(force, e, d_force), objective, alpha) -
                            forward_objective(config, s0, axpy(force, -e, d_force), objective, alpha)) /
                           (2 * e);
    EXPECT_LE(std::abs(dot(grad.force, d_force) - central), 1e-6 * std::abs(central))
        << "force direction " << trial << ": adjoint " << dot(grad.force, d_force) << ", central " << central;
    const std::vector<double> d_state = random_vector(std::size_t(Q) * kCells, 1.0, rng);
    const double central_state = (forward_objective(config, axpy(s0, e, d_state), force, objective, alpha) -
                                  forward_objective(config, axpy(s0, -e, d_state), force, objective, alpha)) /
                                 (2 * e);
    EXPECT_LE(std::abs(dot(grad.state, d_state) - central_state), 1e-6 * std::abs(central_state))
        << "state direction " << trial << ": adjoint " << dot(grad.state, d_state) << ", central " << central_state;
    if (!v.porous) continue;
    const std::vector<double> d_alpha = random_vector(kCells, 1.0, rng);
    const double central_alpha = (forward_objective(config, s0, force, objective, axpy(alpha, e, d_alpha)) -
                                  forward_objective(config, s0, force, objective, axpy(alpha, -e, d_alpha))) /
                                 (2 * e);
    EXPECT_LE(std::abs(dot(grad.porosity, d_alpha) - central_alpha), 1e-6 * std::abs(central_alpha))
        << "porosity direction " << trial << ": adjoint " << dot(grad.porosity, d_alpha) << ", central "
        << central_alpha;
  }
}

INSTANTIATE_TEST_SUITE_P(Channels, OpenFacesGradient,
                         ::testing::Values(Variant{Outlet::pressure, ObjectiveKind::pressure_drop, false},
                                           Variant{Outlet::pressure, ObjectiveKind::pressure_drop, true},
                                           Variant{Outlet::pressure, ObjectiveKind::kinetic_energy, false},
                                           Variant{Outlet::zero_gradient, ObjectiveKind::pressure_drop, true},
                                           Variant{Outlet::zero_gradient, ObjectiveKind::velocity_mismatch, false}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           const char* objective = info.param.objective == ObjectiveKind::pressure_drop ? "PressureDrop"
                                                   : info.param.objective == ObjectiveKind::kinetic_energy
                                                       ? "KineticEnergy"
                                                       : "VelocityMismatch";
                           return std::string(info.param.outlet == Outlet::pressure ? "PressureOutlet" : "Outflow") +
                                  objective + (info.param.porous ? "ThroughPorosity" : "");
                         });

TEST(OpenFacesAdjointPlan, EveryLinkFeedsItsTargetAndTheOutletCellsTheirSlots) {
  const CaseConfig config = channel(Outlet::pressure);
  const Decomposition d = serial_decomposition(config);
  const std::vector<CellFlag> flags = build_flags(config, d);
  const std::vector<OpenLink> links = open_links(config, d, flags);
  const OpenAdjointHostPlan plan = open_adjoint_plan(config, d, flags);
  const std::int64_t n_cells = block_shape(d).n_cells();
  ASSERT_EQ(plan.nu_slots.size(), links.size());
  ASSERT_EQ(plan.term_start.size(), plan.targets.size() + 1);
  // Every link's nu appears once, at the slot of the population its rule reads.
  std::size_t linear = 0, moments = 0;
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    if (t > 0) EXPECT_LT(plan.targets[t - 1], plan.targets[t]);
    for (std::int64_t m = plan.term_start[t]; m < plan.term_start[t + 1]; ++m) {
      const OpenAdjointTerm term = plan.terms[std::size_t(m)];
      if (term.kind == 0) {
        ++linear;
        bool found = false;
        for (const OpenLink& l : links) {
          if (std::int64_t(l.dir) * n_cells + l.ghost != term.index) continue;
          EXPECT_EQ(plan.targets[t], std::int64_t(l.source_dir) * n_cells + l.source);
          found = true;
        }
        EXPECT_TRUE(found) << "a linear term reads a slot no link fills";
      } else {
        ++moments;
      }
    }
  }
  EXPECT_EQ(linear, links.size());
  // The pressure outlet: one record per face cell of x = 11 (8 x 4 fluid cells), each feeding its 19 slots and the
  // 19 of x + n (fluid everywhere here).
  EXPECT_EQ(plan.outlet_cells.size(), std::size_t(kNy * kNz));
  EXPECT_EQ(moments, plan.outlet_cells.size() * 2 * Q);
  std::size_t outlet_links = 0;
  for (const OpenLink& l : links) outlet_links += l.rule == kPressureRule ? 1 : 0;
  EXPECT_EQ(plan.outlet_links.size(), outlet_links);
}

/// gradient() on `config` (finalised here) throws an InputError whose message holds `text`.
void expect_refused(CaseConfig config, const std::string& text) {
  finalize_case(config);
  auto sim = Simulation::create(config);
  try {
    gradient(*sim, 2, Objective{});
    FAIL() << "no InputError for " << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(OpenFacesAdjointPlan, RefusesSpongeLayersAndTheConvectiveOutflow) {
  CaseConfig sponge = channel(Outlet::zero_gradient);
  sponge.faces[1].sponge = 4.0;
  sponge.faces[1].sponge_tau = 1.2;
  expect_refused(sponge, "boundary.x_max.sponge");
  CaseConfig convective = channel(Outlet::zero_gradient);
  convective.faces[1].scheme = OutflowScheme::convective;
  expect_refused(convective, "boundary.x_max.scheme = \"convective\"");
}

}  // namespace
}  // namespace eddy
