// Unit tests of the per-particle functions (kernels/particle_motion.hpp) and their launchers
// (kernels/particle_launchers.hpp): trilinear interpolation (exact on linear fields, cell values at cell centres,
// the same bits for any block decomposition), walls (bounce, stick), periodic wrap, the fixed-point force deposit
// and the momentum bookkeeping of two-way coupling.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/particle_launchers.hpp"
#include "kernels/particle_motion.hpp"
#include "solver/device_buffer.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr double kFixedResolution = 1.0 / ForceDepositView::kScale;  // 2^-kFractionBits

/// A block's velocity field in host memory: u[a][shape.index(x, y, z)], filled from f(axis, global cell index)
/// where global indices are wrapped into [0, global) (periodic ghost layer).
template <class R>
struct HostField {
  BlockShape shape;
  int origin[3];
  std::vector<R> u[3];

  HostField(BlockShape s, std::array<int, 3> o, std::array<int, 3> global,
            const std::function<double(int, int, int, int)>& f)
      : shape(s), origin{o[0], o[1], o[2]} {
    for (auto& c : u) c.assign(static_cast<std::size_t>(shape.n_cells()), R(0));
    for (int z = 0; z < shape.extent(2); ++z) {
      for (int y = 0; y < shape.extent(1); ++y) {
        for (int x = 0; x < shape.extent(0); ++x) {
          const int g[3] = {x - 1 + o[0], y - 1 + o[1], z - 1 + o[2]};
          int w[3];
          for (int a = 0; a < 3; ++a) w[a] = ((g[a] % global[a]) + global[a]) % global[a];
          for (int a = 0; a < 3; ++a) u[a][shape.index(x, y, z)] = static_cast<R>(f(a, w[0], w[1], w[2]));
        }
      }
    }
  }
  VelocityFieldView<R> view() const {
    return {{u[0].data(), u[1].data(), u[2].data()}, shape, {origin[0], origin[1], origin[2]}};
  }
};

/// The same field in device memory (host memory on the cpu backend).
template <class R>
struct DeviceField {
  BlockShape shape;
  int origin[3];
  DeviceBuffer<R> u[3];
  explicit DeviceField(const HostField<R>& h) : shape(h.shape), origin{h.origin[0], h.origin[1], h.origin[2]} {
    for (int a = 0; a < 3; ++a) {
      u[a] = DeviceBuffer<R>(h.u[a].size());
      u[a].upload(h.u[a]);
    }
  }
  VelocityFieldView<R> view() const {
    return {{u[0].data(), u[1].data(), u[2].data()}, shape, {origin[0], origin[1], origin[2]}};
  }
};

/// Particle state on the host, structure of arrays.
struct HostParticles {
  std::vector<double> x[3], v[3], force[3], diameter, density;
  std::vector<std::int64_t> id;
  explicit HostParticles(std::size_t n) {
    for (int a = 0; a < 3; ++a) {
      x[a].assign(n, 0.0);
      v[a].assign(n, 0.0);
      force[a].assign(n, 0.0);
    }
    diameter.assign(n, 1.0);
    density.assign(n, 1.0);
    id.resize(n);
    for (std::size_t k = 0; k < n; ++k) id[k] = std::int64_t(k);
  }
  std::size_t size() const { return id.size(); }
};

/// Particle state on the device, uploaded from and downloaded to HostParticles.
struct DeviceParticles {
  DeviceBuffer<double> x[3], v[3], force[3], diameter, density;
  DeviceBuffer<std::int64_t> id;
  std::int64_t n;
  explicit DeviceParticles(const HostParticles& h) : n(std::int64_t(h.size())) {
    const auto put = [](DeviceBuffer<double>& b, const std::vector<double>& v) {
      b = DeviceBuffer<double>(v.size());
      b.upload(v);
    };
    for (int a = 0; a < 3; ++a) {
      put(x[a], h.x[a]);
      put(v[a], h.v[a]);
      put(force[a], h.force[a]);
    }
    put(diameter, h.diameter);
    put(density, h.density);
    id = DeviceBuffer<std::int64_t>(h.id.size());
    id.upload(h.id);
  }
  void download(HostParticles& h) const {
    for (int a = 0; a < 3; ++a) {
      h.x[a] = x[a].download();
      h.v[a] = v[a].download();
    }
  }
  ParticleView view() const {
    return {{x[0].data(), x[1].data(), x[2].data()},
            {v[0].data(), v[1].data(), v[2].data()},
            diameter.data(),
            density.data(),
            id.data(),
            {force[0].data(), force[1].data(), force[2].data()},
            n};
  }
};

/// Fixed-point deposit buffers of a block, on the device.
struct DeviceDeposit {
  BlockShape shape;
  int origin[3];
  DeviceBuffer<unsigned long long> fixed[3];
  DeviceDeposit(BlockShape s, std::array<int, 3> o) : shape(s), origin{o[0], o[1], o[2]} {
    for (auto& f : fixed) {
      f = DeviceBuffer<unsigned long long>(static_cast<std::size_t>(s.n_cells()));
      f.upload(std::vector<unsigned long long>(f.size(), 0ull));
    }
  }
  ForceDepositView view() const {
    return {{fixed[0].data(), fixed[1].data(), fixed[2].data()}, shape, {origin[0], origin[1], origin[2]}};
  }
  /// Sum over the block of component a, in fixed point (exact, wrapping), then as a double.
  double total(int a) const {
    unsigned long long s = 0;
    for (unsigned long long c : fixed[a].download()) s += c;
    return from_fixed(s);
  }
};

ParticleModel model_of(int kind, int wall_mode, std::array<int, 3> size, std::array<bool, 3> periodic) {
  ParticleModel m{};
  m.kind = kind;
  m.wall_mode = wall_mode;
  m.nu = 0.1;
  m.two_way = false;
  for (int a = 0; a < 3; ++a) {
    m.gravity[a] = 0.0;
    m.global_size[a] = size[a];
    m.periodic[a] = periodic[a];
  }
  return m;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// ---- interpolation -----------------------------------------------------------------------------------------------

TEST(ParticleInterpolation, ExactOnLinearField) {
  // u_a(X) = c_a + A_ab X_b at cell centres X = i + 1/2 (global); trilinear interpolation reproduces it anywhere
  // the stencil stays inside the block ([origin - 1/2, origin + n + 1/2] per axis).
  const BlockShape shape{{6, 5, 4}};
  const std::array<int, 3> origin = {10, 20, 30}, global = {1000, 1000, 1000};
  const double c[3] = {0.01, -0.02, 0.03};
  const double A[3][3] = {{1e-3, -2e-3, 5e-4}, {3e-4, 7e-4, -1e-3}, {-6e-4, 2e-4, 9e-4}};
  const auto linear = [&](int a, const double(&X)[3]) {
    return c[a] + A[a][0] * X[0] + A[a][1] * X[1] + A[a][2] * X[2];
  };
  const HostField<double> field(shape, origin, global, [&](int a, int i, int j, int k) {
    const double X[3] = {i + 0.5, j + 0.5, k + 0.5};
    return linear(a, X);
  });
  std::mt19937_64 rng(7);
  double worst = 0.0;
  for (int trial = 0; trial < 2000; ++trial) {
    double x[3];
    for (int a = 0; a < 3; ++a) {
      std::uniform_real_distribution<double> pick(origin[a] - 0.5, origin[a] + shape.n[a] + 0.5);
      x[a] = pick(rng);
    }
    double u[3];
    interpolate_velocity(field.view(), x, u);
    for (int a = 0; a < 3; ++a) worst = std::max(worst, std::abs(u[a] - linear(a, x)));
  }
  // |u| ~ 0.1: round-off of a sum of 8 products of doubles, and of the weights 1 - s, stays near 1e-16.
  EXPECT_LT(worst, 1e-15) << "largest interpolation error on a linear field";
}

template <class R>
void expect_cell_values_at_centres() {
  const BlockShape shape{{5, 4, 3}};
  const std::array<int, 3> origin = {3, 0, 7}, global = {64, 64, 64};
  const HostField<R> field(shape, origin, global, [](int a, int i, int j, int k) {
    return std::sin(0.3 * i + 1.1 * a) * std::cos(0.2 * j - 0.7 * k) + 0.01 * a;
  });
  for (int z = 0; z <= shape.n[2] + 1; ++z) {
    for (int y = 0; y <= shape.n[1] + 1; ++y) {
      for (int x = 0; x <= shape.n[0] + 1; ++x) {
        const double pos[3] = {x - 1 + origin[0] + 0.5, y - 1 + origin[1] + 0.5, z - 1 + origin[2] + 0.5};
        double u[3];
        interpolate_velocity(field.view(), pos, u);
        for (int a = 0; a < 3; ++a)
          ASSERT_EQ(u[a], static_cast<double>(field.u[a][shape.index(x, y, z)]))
              << "cell " << x << "," << y << "," << z << " axis " << a;
      }
    }
  }
}

TEST(ParticleInterpolation, CellCentresGiveTheCellValueExactly) {
  expect_cell_values_at_centres<double>();
  expect_cell_values_at_centres<float>();
}

/// Interpolates the same global field, held by two blocks of different origins, at positions inside the smaller
/// block's reach, and compares the bits.
template <class R>
void expect_same_bits(std::array<int, 3> global, BlockShape big_shape, std::array<int, 3> big_origin,
                      BlockShape small_shape, std::array<int, 3> small_origin, std::uint64_t seed) {
  const auto f = [](int a, int i, int j, int k) {
    return 0.05 * std::sin(0.37 * i + 0.11 * (a + 1) * j) * std::cos(0.23 * k + 0.5 * a) + 1e-3 * (i % 7);
  };
  const HostField<R> big(big_shape, big_origin, global, f);
  const HostField<R> small(small_shape, small_origin, global, f);
  std::mt19937_64 rng(seed);
  std::vector<std::array<double, 3>> positions;
  for (int trial = 0; trial < 3000; ++trial) {
    std::array<double, 3> x;
    for (int a = 0; a < 3; ++a) {
      std::uniform_real_distribution<double> pick(small_origin[a] - 0.5, small_origin[a] + small_shape.n[a] + 0.5);
      x[a] = pick(rng);
    }
    positions.push_back(x);
  }
  // Cell faces, cell centres, the ends of the reach, and positions with long mantissas near the block edges.
  for (int a = 0; a < 3; ++a) {
    const double lo = small_origin[a], hi = small_origin[a] + small_shape.n[a];
    for (double x : {lo - 0.5, lo, lo + 0.5, lo + 1e-13, lo + 0.5 - 1e-13, hi - 1e-13, hi, hi + 0.5 - 1e-12, hi + 0.5,
                     lo + 0.1 + 0.2}) {
      std::array<double, 3> p = {small_origin[0] + 1.3, small_origin[1] + 1.7, small_origin[2] + 0.9};
      p[a] = x;
      positions.push_back(p);
    }
  }
  for (const auto& p : positions) {
    const double x[3] = {p[0], p[1], p[2]};
    double u_big[3], u_small[3];
    interpolate_velocity(big.view(), x, u_big);
    interpolate_velocity(small.view(), x, u_small);
    for (int a = 0; a < 3; ++a) {
      ASSERT_TRUE(same_bits(u_big[a], u_small[a])) << "position (" << x[0] << ", " << x[1] << ", " << x[2] << ") axis "
                                                   << a << ": " << u_big[a] << " vs " << u_small[a];
    }
  }
}

TEST(ParticleInterpolation, SameBitsForAnyBlockOrigin) {
  // A 24^3 periodic domain held by one block, against sub-blocks of other origins (ghost layers filled from the
  // same global field, wrapped periodically).
  expect_same_bits<float>({24, 24, 24}, BlockShape{{24, 24, 24}}, {0, 0, 0}, BlockShape{{8, 10, 6}}, {9, 5, 13}, 1);
  expect_same_bits<double>({24, 24, 24}, BlockShape{{24, 24, 24}}, {0, 0, 0}, BlockShape{{7, 9, 5}}, {17, 15, 19}, 2);
  expect_same_bits<double>({24, 24, 24}, BlockShape{{24, 24, 24}}, {0, 0, 0}, BlockShape{{6, 6, 6}}, {0, 0, 0}, 3);
  // Large global coordinates (2^20 cells along x): positions with few fractional bits left.
  const int big = 1 << 20;
  expect_same_bits<double>({big, 16, 16}, BlockShape{{24, 16, 16}}, {big - 24, 0, 0}, BlockShape{{8, 8, 8}},
                           {big - 8, 4, 4}, 4);
}

TEST(ParticleInterpolation, StencilClampsIntoTheGhostLayer) {
  const BlockShape shape{{4, 4, 4}};
  const int origin[3] = {10, 10, 10};
  const double far[3] = {-100.0, 1e300, std::nan("")};
  const TrilinearStencil s = trilinear_stencil(far, shape, origin);
  for (int a = 0; a < 3; ++a) {
    EXPECT_GE(s.lo[a], 0);
    EXPECT_LE(s.hi[a], shape.n[a] + 1);
  }
  // Weights of an ordinary position sum to one.
  const double x[3] = {11.3, 12.75, 13.999};
  const TrilinearStencil t = trilinear_stencil(x, shape, origin);
  double sum = 0.0;
  for (int k = 0; k < 8; ++k) sum += t.weight(k);
  EXPECT_NEAR(sum, 1.0, 1e-15);
  EXPECT_EQ(t.lo[0], 11 - 10 + 1 - 1);  // g = 10.8 -> i = 10 -> local 1
  EXPECT_EQ(t.hi[2], 13 - 10 + 1 + 1);  // g = 13.499 -> i = 13 -> local 4, hi 5 (ghost)
}

// ---- walls and periodic wrap ----------------------------------------------------------------------------------

TEST(ParticleWalls, BounceMirrorsAboutTheContactPlane) {
  EDDY_REQUIRE_DEVICE();
  const ParticleModel m = model_of(ParticleModel::kTracer, ParticleModel::kBounce, {10, 10, 10}, {false, false, true});
  {
    double x[3] = {0.3, 9.8, 5.0}, v[3] = {-0.2, 0.3, 0.1};
    apply_walls(m, 1.0, x, v);  // contact planes at 0.5 and 9.5
    EXPECT_DOUBLE_EQ(x[0], 0.7);
    EXPECT_DOUBLE_EQ(v[0], 0.2);
    EXPECT_DOUBLE_EQ(x[1], 9.2);
    EXPECT_DOUBLE_EQ(v[1], -0.3);
    EXPECT_EQ(x[2], 5.0);
    EXPECT_EQ(v[2], 0.1);
  }
  {
    // Periodic axis: no wall, even far outside.
    double x[3] = {5.0, 5.0, -0.4}, v[3] = {0.0, 0.0, -0.5};
    apply_walls(m, 1.0, x, v);
    EXPECT_EQ(x[2], -0.4);
    EXPECT_EQ(v[2], -0.5);
  }
  // Through the launcher: a tracer (d = 1) in the uniform flow u = (-0.3, 0, 0) from x = 0.6 reaches 0.3 and is
  // reflected to 0.7 with v = +0.3 (elastic: |v| kept).
  const BlockShape shape{{10, 10, 10}};
  const HostField<double> field(shape, {0, 0, 0}, {10, 10, 10}, [](int a, int, int, int) { return a == 0 ? -0.3 : 0; });
  const DeviceField<double> dfield(field);
  HostParticles h(1);
  h.x[0][0] = 0.6;
  h.x[1][0] = h.x[2][0] = 5.0;
  DeviceParticles d(h);
  move_particles(d.view(), m, dfield.view(), nullptr);
  d.download(h);
  EXPECT_NEAR(h.x[0][0], 0.7, 1e-15);
  EXPECT_NEAR(h.v[0][0], 0.3, 1e-15);
}

TEST(ParticleWalls, StickStopsTheParticleForGood) {
  EDDY_REQUIRE_DEVICE();
  const ParticleModel m = model_of(ParticleModel::kTracer, ParticleModel::kStick, {10, 10, 10}, {false, false, false});
  double x[3] = {5.0, 9.8, 5.0}, v[3] = {0.1, 0.3, -0.1};
  apply_walls(m, 1.0, x, v);
  EXPECT_EQ(x[1], 9.5);
  EXPECT_EQ(x[0], 5.0);
  EXPECT_EQ(v[0], 0.0);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_EQ(v[2], 0.0);
  EXPECT_TRUE(touches_wall(m, 1.0, x));

  // Through the launcher, an inertial sphere (d = 2) thrown at the lower z wall sticks at z = 1, then stays there
  // although the flow (and gravity) would pull it away.
  ParticleModel inertial = model_of(ParticleModel::kInertial, ParticleModel::kStick, {10, 10, 10}, {true, true, false});
  inertial.gravity[2] = 1e-3;  // upward
  const BlockShape shape{{10, 10, 10}};
  const HostField<double> field(shape, {0, 0, 0}, {10, 10, 10},
                                [](int a, int, int, int) { return a == 2 ? 0.1 : 0.05; });
  const DeviceField<double> dfield(field);
  HostParticles h(1);
  h.x[0][0] = h.x[1][0] = 5.0;
  h.x[2][0] = 1.2;
  h.v[2][0] = -0.5;
  h.diameter[0] = 2.0;
  h.density[0] = 50.0;  // heavy: keeps most of its velocity over a step
  DeviceParticles d(h);
  move_particles(d.view(), inertial, dfield.view(), nullptr);
  d.download(h);
  EXPECT_EQ(h.x[2][0], 1.0);
  for (int a = 0; a < 3; ++a) EXPECT_EQ(h.v[a][0], 0.0);
  const double stuck[3] = {h.x[0][0], h.x[1][0], h.x[2][0]};
  for (int step = 0; step < 10; ++step) move_particles(d.view(), inertial, dfield.view(), nullptr);
  d.download(h);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(h.x[a][0], stuck[a]);
    EXPECT_EQ(h.v[a][0], 0.0);
  }
}

TEST(ParticleWalls, PeriodicWrapIsIntoTheDomain) {
  EDDY_REQUIRE_DEVICE();
  const double L = 10.0;
  EXPECT_EQ(wrap_periodic_coordinate(3.25, L), 3.25);
  EXPECT_EQ(wrap_periodic_coordinate(10.0, L), 0.0);
  EXPECT_EQ(wrap_periodic_coordinate(10.25, L), 0.25);
  EXPECT_EQ(wrap_periodic_coordinate(-0.25, L), 9.75);
  EXPECT_EQ(wrap_periodic_coordinate(25.5, L), 5.5);
  EXPECT_EQ(wrap_periodic_coordinate(-13.0, L), 7.0);
  for (double tiny : {-1e-300, -1e-17, -0.0}) {
    const double w = wrap_periodic_coordinate(tiny, L);
    EXPECT_GE(w, 0.0);
    EXPECT_LT(w, L);
    EXPECT_FALSE(std::signbit(w));
  }
  // Through the launcher: a tracer crossing two periodic faces in one step.
  const ParticleModel m = model_of(ParticleModel::kTracer, ParticleModel::kBounce, {10, 8, 6}, {true, true, true});
  const BlockShape shape{{10, 8, 6}};
  const HostField<float> field(shape, {0, 0, 0}, {10, 8, 6},
                               [](int a, int, int, int) { return a == 0 ? 0.25 : (a == 1 ? -0.375 : 0.0); });
  const DeviceField<float> dfield(field);
  HostParticles h(1);
  h.x[0][0] = 9.875;
  h.x[1][0] = 0.125;
  h.x[2][0] = 3.0;
  DeviceParticles d(h);
  move_particles(d.view(), m, dfield.view(), nullptr);
  d.download(h);
  EXPECT_EQ(h.x[0][0], 0.125);
  EXPECT_EQ(h.x[1][0], 7.75);
  EXPECT_EQ(h.x[2][0], 3.0);
}

// ---- fixed-point deposit ---------------------------------------------------------------------------------------

TEST(ParticleDeposit, FixedPointRoundTrip) {
  EXPECT_EQ(from_fixed(to_fixed(1.5)), 1.5);
  EXPECT_EQ(from_fixed(to_fixed(-2.75)), -2.75);
  EXPECT_EQ(to_fixed(-1e-3), ~to_fixed(1e-3) + 1ull);  // two's complement negation
  EXPECT_EQ(to_fixed(std::nan("")), 0ull);
  EXPECT_LE(std::abs(from_fixed(to_fixed(1e-7 / 3.0)) - 1e-7 / 3.0), 0.5 * kFixedResolution);
  // Saturates at +-2^62 units instead of overflowing.
  const double limit = 4611686018427387904.0 / ForceDepositView::kScale;
  EXPECT_EQ(from_fixed(to_fixed(1e300)), limit);
  EXPECT_EQ(from_fixed(to_fixed(-1e300)), -limit);
}

TEST(ParticleDeposit, WeightsSumToTheForceAndResolveClears) {
  // The host writes the deposit directly (valid on the cpu backend only, where device memory is host memory).
  if (backend::is_gpu()) GTEST_SKIP() << "SKIPPED: host-side deposit test (cpu backend only)";
  const BlockShape shape{{6, 5, 4}};
  DeviceDeposit dep(shape, {4, 8, 12});
  const ForceDepositView view = dep.view();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  double total[3] = {0.0, 0.0, 0.0};
  const int deposits = 50;
  for (int i = 0; i < deposits; ++i) {
    const double x[3] = {4 - 0.5 + (shape.n[0] + 1) * unit(rng), 8 - 0.5 + (shape.n[1] + 1) * unit(rng),
                         12 - 0.5 + (shape.n[2] + 1) * unit(rng)};
    const double f[3] = {1e-3 * sym(rng), 0.5 * sym(rng), 1e-9 * sym(rng)};
    const TrilinearStencil s = trilinear_stencil(x, shape, view.origin);
    deposit_force(view, s, f);
    for (int a = 0; a < 3; ++a) total[a] += f[a];
    // Per deposit: 8 roundings of at most half the fixed-point resolution each.
    if (i == 0) {
      for (int a = 0; a < 3; ++a) EXPECT_NEAR(dep.total(a), f[a], 8 * 0.5 * kFixedResolution) << "axis " << a;
    }
  }
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(dep.total(a), total[a], deposits * 8 * 0.5 * kFixedResolution + 1e-15) << "axis " << a;

  DeviceBuffer<double> fd[3] = {DeviceBuffer<double>(shape.n_cells()), DeviceBuffer<double>(shape.n_cells()),
                                DeviceBuffer<double>(shape.n_cells())};
  DeviceBuffer<float> ff[3] = {DeviceBuffer<float>(shape.n_cells()), DeviceBuffer<float>(shape.n_cells()),
                               DeviceBuffer<float>(shape.n_cells())};
  const std::vector<unsigned long long> before[3] = {dep.fixed[0].download(), dep.fixed[1].download(),
                                                     dep.fixed[2].download()};
  double* const force_d[3] = {fd[0].data(), fd[1].data(), fd[2].data()};
  resolve_deposit<double>(view, force_d);
  for (int a = 0; a < 3; ++a) {
    const auto cleared = dep.fixed[a].download();
    EXPECT_TRUE(std::all_of(cleared.begin(), cleared.end(), [](unsigned long long c) { return c == 0; }));
    const auto force = fd[a].download();
    double sum = 0.0;
    for (std::size_t c = 0; c < force.size(); ++c) {
      ASSERT_EQ(force[c], from_fixed(before[a][c]));
      sum += force[c];
    }
    EXPECT_NEAR(sum, total[a], deposits * 8 * 0.5 * kFixedResolution + 1e-14);
  }
  // After clearing, a float resolve gives zeros.
  float* const force_f[3] = {ff[0].data(), ff[1].data(), ff[2].data()};
  resolve_deposit<float>(view, force_f);
  for (int a = 0; a < 3; ++a) {
    const auto force = ff[a].download();
    EXPECT_TRUE(std::all_of(force.begin(), force.end(), [](float c) { return c == 0.0f; }));
  }
}

// ---- two-way coupling ------------------------------------------------------------------------------------------

struct TwoWaySetup {
  BlockShape shape{{12, 10, 8}};
  std::array<int, 3> origin{{0, 0, 0}};
  std::array<int, 3> global{{12, 10, 8}};
  HostField<double> field;
  HostParticles particles;
  ParticleModel model;
  explicit TwoWaySetup(std::size_t n)
      : field(shape, origin, global,
              [](int a, int i, int j, int k) { return 0.04 * std::sin(0.7 * i + 1.3 * j + 0.4 * k + 2.0 * a); }),
        particles(n),
        model(model_of(ParticleModel::kInertial, ParticleModel::kBounce, global, {true, true, true})) {
    model.two_way = true;
    model.nu = 0.05;
    model.gravity[0] = 1e-5;
    model.gravity[2] = -3e-5;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
    for (std::size_t k = 0; k < n; ++k) {
      for (int a = 0; a < 3; ++a) {
        particles.x[a][k] = global[a] * unit(rng);
        particles.v[a][k] = 0.05 * sym(rng);
        particles.force[a][k] = 1e-4 * sym(rng);
      }
      particles.diameter[k] = 0.2 + 1.8 * unit(rng);
      particles.density[k] = 0.5 + 4.5 * unit(rng);
    }
  }
};

TEST(ParticleTwoWay, MomentumChangeEqualsMinusTheDeposit) {
  // One step of many particles in a periodic box: sum_p [m (v_new - v) - m a_ext] (the drag impulse on the
  // particles) + the deposited total = 0 within 8 * 2^-kFractionBits per particle (the fixed-point rounding), per component.
  EDDY_REQUIRE_DEVICE();
  const std::size_t n = 3000;  // more than one row of the launch (1024 particles)
  TwoWaySetup s(n);
  const DeviceField<double> field(s.field);
  DeviceParticles d(s.particles);
  DeviceDeposit dep(s.shape, s.origin);
  const ForceDepositView deposit = dep.view();
  HostParticles after(n);
  move_particles(d.view(), s.model, field.view(), &deposit);
  d.download(after);
  for (int a = 0; a < 3; ++a) {
    double drag_impulse = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double rho_p = s.particles.density[k], dp = s.particles.diameter[k];
      const double m = particle_mass(dp, rho_p);
      const double a_ext = (1.0 - 1.0 / rho_p) * s.model.gravity[a] + s.particles.force[a][k] / m;
      drag_impulse += m * (after.v[a][k] - s.particles.v[a][k]) - m * a_ext;
    }
    const double deposited = dep.total(a);
    std::cout << "[ two-way ] axis " << a << ": drag impulse " << drag_impulse << ", deposited " << deposited
              << ", sum " << drag_impulse + deposited << " (bound " << n * 8 * kFixedResolution << ")\n";
    EXPECT_GT(std::abs(drag_impulse), 1e3 * n * 8 * kFixedResolution) << "the test needs a drag well above round-off";
    EXPECT_LE(std::abs(drag_impulse + deposited), n * 8 * kFixedResolution) << "axis " << a;
  }
}

TEST(ParticleTwoWay, OneParticleBookkeepingAndOrderIndependence) {
  EDDY_REQUIRE_DEVICE();
  // One particle: the same bookkeeping, particle by particle.
  TwoWaySetup s(64);
  const DeviceField<double> field(s.field);
  for (std::size_t k = 0; k < 8; ++k) {
    HostParticles one(1);
    for (int a = 0; a < 3; ++a) {
      one.x[a][0] = s.particles.x[a][k];
      one.v[a][0] = s.particles.v[a][k];
      one.force[a][0] = s.particles.force[a][k];
    }
    one.diameter[0] = s.particles.diameter[k];
    one.density[0] = s.particles.density[k];
    DeviceParticles d(one);
    DeviceDeposit dep(s.shape, s.origin);
    const ForceDepositView deposit = dep.view();
    HostParticles after(1);
    move_particles(d.view(), s.model, field.view(), &deposit);
    d.download(after);
    const double m = particle_mass(one.diameter[0], one.density[0]);
    for (int a = 0; a < 3; ++a) {
      const double a_ext = (1.0 - 1.0 / one.density[0]) * s.model.gravity[a] + one.force[a][0] / m;
      const double impulse = m * (after.v[a][0] - one.v[a][0]) - m * a_ext;
      EXPECT_LE(std::abs(impulse + dep.total(a)), 8 * kFixedResolution) << "particle " << k << " axis " << a;
    }
  }
  // The deposit does not depend on the order of the particles: reversed order, same bits in every cell.
  HostParticles reversed(s.particles.size());
  const std::size_t n = s.particles.size();
  for (std::size_t k = 0; k < n; ++k) {
    for (int a = 0; a < 3; ++a) {
      reversed.x[a][k] = s.particles.x[a][n - 1 - k];
      reversed.v[a][k] = s.particles.v[a][n - 1 - k];
      reversed.force[a][k] = s.particles.force[a][n - 1 - k];
    }
    reversed.diameter[k] = s.particles.diameter[n - 1 - k];
    reversed.density[k] = s.particles.density[n - 1 - k];
  }
  DeviceParticles forward_d(s.particles), reversed_d(reversed);
  DeviceDeposit forward_dep(s.shape, s.origin), reversed_dep(s.shape, s.origin);
  const ForceDepositView fv = forward_dep.view(), rv = reversed_dep.view();
  move_particles(forward_d.view(), s.model, field.view(), &fv);
  move_particles(reversed_d.view(), s.model, field.view(), &rv);
  for (int a = 0; a < 3; ++a) EXPECT_EQ(forward_dep.fixed[a].download(), reversed_dep.fixed[a].download());
}

TEST(ParticleTwoWay, TwoWayNeedsADeposit) {
  EDDY_REQUIRE_DEVICE();
  TwoWaySetup s(4);
  const DeviceField<double> field(s.field);
  DeviceParticles d(s.particles);
  EXPECT_THROW(move_particles(d.view(), s.model, field.view(), nullptr), std::invalid_argument);
  // Tracers never deposit, so they need none.
  ParticleModel tracer = s.model;
  tracer.kind = ParticleModel::kTracer;
  EXPECT_NO_THROW(move_particles(d.view(), tracer, field.view(), nullptr));
}

}  // namespace
}  // namespace eddy
