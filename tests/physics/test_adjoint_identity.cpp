// The adjoint identity <A x, y> = <x, A^T y> to round-off (issue 28), for one step and for a few.
//
// A is the tangent-linear map of eddy's run, x = (ds^0, dF, dtau) -> ds^N (the starting post-collision state, the
// per-cell force, the relaxation time), and y = dL/ds^N of an objective L, so that <A x, y> = dL[x] is the
// directional derivative of L along x. Here it is computed in forward mode, without differences: dual numbers
// (value, derivative) through a plain CPU reference of the streaming (periodic x and z, a resting wall at y = 0, a
// moving wall at y = ny - 1, halfway bounce-back from an interior block, kernels/boundary_rules.hpp's rules written
// out again) and through the forward collision itself (kernels/collision.hpp's collide, instantiated for the dual
// type), then through L. <x, A^T y> is what gradient() returns (the adjoint kernels, kernels/adjoint_step.cpp and
// kernels/adjoint_collision.hpp), dotted with x. The two agree to 1e-12 of the sum of the magnitudes of the terms
// of <x, A^T y> (double storage; a wrong sign or a missing term in one cell's transpose shows at 1e-3 or more). The
// reference's own L must also equal gradient()'s objective to 1e-12: the reference is eddy's forward run.
// Objectives: the kinetic energy of a sub-box and the mismatch to a random target velocity; TRT and BGK.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "kernels/boundary_rules.hpp"
#include "kernels/collision.hpp"
#include "kernels/d3q19.hpp"
#include "solver/adjoint.hpp"
#include "solver/simulation.hpp"
#include "tests/direction_vectors.hpp"
#include "tests/force_field_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr int Q = d3q19::Q;

/// A dual number v + d e, e^2 = 0: forward-mode derivatives to round-off.
struct Dual {
  double v = 0.0, d = 0.0;
  constexpr Dual() = default;
  constexpr Dual(double value, double derivative = 0.0) : v(value), d(derivative) {}  // NOLINT: implicit by design
  constexpr Dual& operator+=(Dual b) { return *this = Dual(v + b.v, d + b.d); }
  constexpr Dual& operator-=(Dual b) { return *this = Dual(v - b.v, d - b.d); }
  constexpr Dual& operator*=(Dual b) { return *this = Dual(v * b.v, d * b.v + v * b.d); }
};
constexpr Dual operator+(Dual a, Dual b) { return a += b; }
constexpr Dual operator-(Dual a, Dual b) { return a -= b; }
constexpr Dual operator-(Dual a) { return Dual(-a.v, -a.d); }
constexpr Dual operator*(Dual a, Dual b) { return a *= b; }
constexpr Dual operator/(Dual a, Dual b) { return Dual(a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)); }

constexpr int kNx = 10, kNy = 8, kNz = 6;
constexpr std::size_t kCells = std::size_t(kNx) * kNy * kNz;
constexpr int kBlockLo[3] = {3, 3, 2}, kBlockHi[3] = {6, 5, 4};  // the solid block, global cells [lo, hi)
constexpr double kLid[3] = {0.04, 0.0, 0.01};

CaseConfig identity_case(Collision collision) {
  CaseConfig c = test::box_case(kNx, kNy, kNz, 0.7);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.faces[3] = {FaceKind::moving_wall, {kLid[0], kLid[1], kLid[2]}};
  SolidConfig block;
  block.name = "block";
  block.shape = SolidShape::box;
  block.min = {double(kBlockLo[0]), double(kBlockLo[1]), double(kBlockLo[2])};
  block.max = {double(kBlockHi[0]), double(kBlockHi[1]), double(kBlockHi[2])};
  block.wall = SolidWall::halfway;
  c.solids = {block};
  c.body_force = {2e-5, 0.0, -1e-5};
  c.collision = collision;
  c.precision = Precision::float64;
  c.velocity = 0.04;
  finalize_case(c);
  return c;
}

bool in_block(int x, int y, int z) {
  const int g[3] = {x, y, z};
  for (int a = 0; a < 3; ++a)
    if (g[a] < kBlockLo[a] || g[a] >= kBlockHi[a]) return false;
  return true;
}

std::size_t index_of(int x, int y, int z) { return std::size_t(x + kNx * (y + kNy * z)); }

/// The streaming with its bounce-backs, on shifted populations g = f - w ([i * n + k]): the population arriving at
/// fluid cell x in direction i leaves x - c_i (periodic in x and z), or, where that is a wall or the block, is x's
/// own opp(i) population reflected (plus the moving wall's Ladd term, kernels/boundary_rules.hpp).
std::vector<Dual> stream(const std::vector<Dual>& s) {
  std::vector<Dual> f(Q * kCells);
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        if (in_block(x, y, z)) continue;
        const std::size_t k = index_of(x, y, z);
        for (int i = 0; i < Q; ++i) {
          const int fx = (x - d3q19::c(i, 0) + kNx) % kNx, fy = y - d3q19::c(i, 1),
                    fz = (z - d3q19::c(i, 2) + kNz) % kNz;
          const Dual reflected = s[std::size_t(d3q19::opp(i)) * kCells + k];
          if (fy >= kNy) {
            f[i * kCells + k] = reflected + Dual(ladd_term(i, kLid));
          } else if (fy < 0 || in_block(fx, fy, fz)) {
            f[i * kCells + k] = reflected;
          } else {
            f[i * kCells + k] = s[i * kCells + index_of(fx, fy, fz)];
          }
        }
      }
  return f;
}

/// The run in dual numbers: `steps` steps of stream and collide from s0 + e ds0 with the force F + e dF
/// (body force plus the per-cell field, [a * n + k]) and tau + e dtau; returns L + e dL of the arrived state.
Dual dual_run(const CaseConfig& config, int steps, const Objective& objective, const std::vector<double>& s0,
              const std::vector<double>& ds0, const std::vector<double>& force, const std::vector<double>& dforce,
              double dtau) {
  const Dual tau(config.tau, dtau);
  const Dual omega_plus = Dual(1.0) / tau;
  // TRT's omega- at a fixed magic parameter Lambda: 1 / omega- - 1/2 = Lambda / (tau - 1/2) (kernels/collision.hpp).
  const Dual omega_minus = config.collision == Collision::bgk
                               ? omega_plus
                               : Dual(1.0) / (Dual(config.magic) / (tau - Dual(0.5)) + Dual(0.5));
  std::vector<Dual> s(Q * kCells);
  for (int i = 0; i < Q; ++i)
    for (std::size_t k = 0; k < kCells; ++k)
      s[i * kCells + k] = Dual(s0[i * kCells + k] - d3q19::w<double>(i), ds0[i * kCells + k]);
  const auto cell_force = [&](std::size_t k, Dual(&F)[3]) {
    for (int a = 0; a < 3; ++a) F[a] = Dual(config.body_force[a] + force[a * kCells + k], dforce[a * kCells + k]);
  };
  for (int n = 0; n < steps; ++n) {
    std::vector<Dual> f = stream(s);
    for (std::size_t k = 0; k < kCells; ++k) {
      const int x = int(k % kNx), y = int(k / kNx % kNy), z = int(k / kNx / kNy);
      if (in_block(x, y, z)) continue;
      Relaxation<Dual> p{omega_plus, omega_minus, {}};
      cell_force(k, p.force);
      Dual g[Q], rho, u[3];
      for (int i = 0; i < Q; ++i) g[i] = f[i * kCells + k];
      collide<true>(g, p, rho, u);
      for (int i = 0; i < Q; ++i) s[i * kCells + k] = g[i];
    }
  }
  // L of the arrived state's moments, with the F/2 shift (Simulation::fields()).
  const std::vector<Dual> f = stream(s);
  Dual value;
  for (std::size_t k = 0; k < kCells; ++k) {
    const int x = int(k % kNx), y = int(k / kNx % kNy), z = int(k / kNx / kNy);
    if (in_block(x, y, z)) continue;
    Dual g[Q], F[3], drho, rho, u[3];
    for (int i = 0; i < Q; ++i) g[i] = f[i * kCells + k];
    cell_force(k, F);
    shifted_moments(g, F, drho, rho, u);
    if (objective.kind == ObjectiveKind::velocity_mismatch) {
      for (int a = 0; a < 3; ++a) {
        const Dual e = u[a] - Dual(objective.target[a * kCells + k]);
        value += Dual(0.5) * e * e;
      }
    } else if (x >= objective.lo[0] && x < objective.hi[0] && y >= objective.lo[1] && y < objective.hi[1] &&
               z >= objective.lo[2] && z < objective.hi[2]) {
      value += Dual(0.5) * rho * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    }
  }
  return value;
}

struct IdentityCase {
  Collision collision;
  ObjectiveKind objective;
  int steps;
  const char* name;
};

void PrintTo(const IdentityCase& c, std::ostream* os) { *os << c.name; }

class AdjointIdentity : public ::testing::TestWithParam<IdentityCase> {};

TEST_P(AdjointIdentity, HoldsToRoundOff) {
  EDDY_REQUIRE_DEVICE();
  const IdentityCase& p = GetParam();
  const CaseConfig config = identity_case(p.collision);
  std::mt19937 rng(41);
  // A state with flow in it: 12 steps from rest, then a random per-cell force on top of the body force.
  auto warm = Simulation::create(config);
  warm->advance(12);
  const std::vector<double> s0 = warm->populations();
  const std::vector<double> force = test::random_vector(3 * kCells, 2e-5, rng);
  Objective objective;
  objective.kind = p.objective;
  if (p.objective == ObjectiveKind::velocity_mismatch) {
    objective.target = test::random_vector(3 * kCells, 0.01, rng);
  } else {
    objective.region = true;
    objective.lo = {1, 1, 0};
    objective.hi = {9, 7, 5};
  }

  auto sim = Simulation::create(config);
  test::set_force_field(*sim, [&](int a, std::int64_t k) { return force[a * kCells + std::size_t(k)]; });
  sim->set_populations(s0);
  GradientOptions options;
  options.checkpoint_every = 2;  // with steps > 2: recomputed segments
  const GradientResult g = gradient(*sim, p.steps, objective, options);

  for (int trial = 0; trial < 3; ++trial) {
    // x: a random direction in every parameter at once; the solid cells' parts are 0 in A^T y and unused in A x.
    const std::vector<double> ds0 = test::random_vector(Q * kCells, 1.0, rng);
    const std::vector<double> dforce = test::random_vector(3 * kCells, 1.0, rng);
    const double dtau = 0.3 * (trial + 1);
    const Dual tangent = dual_run(config, p.steps, objective, s0, ds0, force, dforce, dtau);
    EXPECT_NEAR(tangent.v, g.objective, 1e-12 * std::abs(g.objective)) << "the reference's L is not eddy's";
    double adjoint = g.tau * dtau, magnitude = std::abs(g.tau * dtau);
    for (std::size_t j = 0; j < ds0.size(); ++j) {
      adjoint += g.state[j] * ds0[j];
      magnitude += std::abs(g.state[j] * ds0[j]);
    }
    for (std::size_t j = 0; j < dforce.size(); ++j) {
      adjoint += g.force[j] * dforce[j];
      magnitude += std::abs(g.force[j] * dforce[j]);
    }
    // The tolerance below must be far under dL itself (the terms cancel more over more steps).
    EXPECT_GT(std::abs(tangent.d), 1e-6 * magnitude) << "a direction with almost no derivative";
    EXPECT_LE(std::abs(tangent.d - adjoint), 1e-12 * magnitude)
        << "trial " << trial << ": <A x, y> = " << tangent.d << ", <x, A^T y> = " << adjoint << " (sum of |terms| "
        << magnitude << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, AdjointIdentity,
    ::testing::Values(IdentityCase{Collision::trt, ObjectiveKind::kinetic_energy, 1, "trt_energy_one_step"},
                      IdentityCase{Collision::trt, ObjectiveKind::velocity_mismatch, 1, "trt_mismatch_one_step"},
                      IdentityCase{Collision::bgk, ObjectiveKind::kinetic_energy, 1, "bgk_energy_one_step"},
                      IdentityCase{Collision::trt, ObjectiveKind::velocity_mismatch, 5, "trt_mismatch_five_steps"}),
    [](const ::testing::TestParamInfo<IdentityCase>& info) { return info.param.name; });

}  // namespace
}  // namespace eddy
