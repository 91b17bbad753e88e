// Unit tests of the stencil kernels (kernels/stencils.hpp, kernels/stencil_launchers.hpp) on this build's backend:
// exactness on polynomials (linear fields for gradient, divergence and curl; quadratics for central and one-sided
// first derivatives; cubics for the central and one-sided Laplacian), analytic values (solid-body rotation, pure
// strain), second-order convergence on a smooth periodic field and next to walls, and plain against tiled kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/cell_flags.hpp"
#include "kernels/stencil_launchers.hpp"
#include "kernels/stencils.hpp"
#include "solver/device_buffer.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr StencilVariant kVariants[] = {StencilVariant::plain, StencilVariant::tiled};

const char* variant_name(StencilVariant v) { return v == StencilVariant::plain ? "plain" : "tiled"; }

/// Analytic fields of the tests: value of component c at block-local cell (x, y, z).
using FieldFunction = std::function<double(int c, int x, int y, int z)>;

/// A block in host memory: flags and a C-component input field, every cell filled from a FieldFunction.
template <class R>
struct HostBlock {
  BlockShape shape;
  std::vector<CellFlag> flags;
  std::vector<R> in[3];

  explicit HostBlock(BlockShape s) : shape(s), flags(static_cast<std::size_t>(s.n_cells()), kFluid) {}

  void fill(const FieldFunction& f) {
    for (int c = 0; c < 3; ++c) {
      in[c].assign(static_cast<std::size_t>(shape.n_cells()), R(0));
      for_each_cell(shape.whole(), [&](int x, int y, int z) { in[c][shape.index(x, y, z)] = R(f(c, x, y, z)); });
    }
  }
  template <class G>
  void for_each_cell(const Box& b, G&& g) const {
    for (int z = b.lo[2]; z < b.hi[2]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y)
        for (int x = b.lo[0]; x < b.hi[0]; ++x) g(x, y, z);
  }
  void set_solid(int x, int y, int z) { flags[shape.index(x, y, z)] = kWall; }
  /// Solid ghost planes on the faces face_solid[0..5] (x_min, x_max, y_min, ...).
  void walls(std::array<bool, 6> face_solid) {
    for_each_cell(shape.whole(), [&](int x, int y, int z) {
      const int p[3] = {x, y, z};
      for (int a = 0; a < 3; ++a) {
        if ((face_solid[2 * a] && p[a] == 0) || (face_solid[2 * a + 1] && p[a] == shape.n[a] + 1)) set_solid(x, y, z);
      }
    });
  }
  /// Marks interior fluid cells with a solid neighbour among the 26 surrounding cells kFluidNearSolid (a superset of
  /// solver/lattice_setup.cpp's 18 directions: both satisfy the kFluid promise of kernels/cell_flags.hpp).
  void classify() {
    for_each_cell(shape.interior(), [&](int x, int y, int z) {
      CellFlag& own = flags[shape.index(x, y, z)];
      if (is_solid(own)) return;
      own = kFluid;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            if (is_solid(flags[shape.index(x + dx, y + dy, z + dz)])) own = kFluidNearSolid;
    });
  }
};

enum class Op { vorticity, q_criterion, strain_rate, divergence, gradient, laplacian };
constexpr Op kOps[] = {Op::vorticity, Op::q_criterion, Op::strain_rate, Op::divergence, Op::gradient, Op::laplacian};
const char* op_name(Op op) {
  switch (op) {
    case Op::vorticity:
      return "vorticity";
    case Op::q_criterion:
      return "q_criterion";
    case Op::strain_rate:
      return "strain_rate_magnitude";
    case Op::divergence:
      return "divergence";
    case Op::gradient:
      return "gradient";
    case Op::laplacian:
      return "laplacian";
  }
  return "?";
}
int outputs(Op op) { return op == Op::vorticity || op == Op::gradient ? 3 : 1; }

/// Runs `op` on the device (gradient and laplacian of component 0) and returns its output cell fields (1 or 3). Output
/// cells the kernel does not write (ghosts) hold NaN.
template <class R>
std::vector<std::vector<R>> run(Op op, const HostBlock<R>& h, StencilVariant variant) {
  const std::size_t n = static_cast<std::size_t>(h.shape.n_cells());
  DeviceBuffer<CellFlag> flags(n);
  flags.upload(h.flags);
  DeviceBuffer<R> in[3], out[3];
  for (int c = 0; c < 3; ++c) {
    in[c] = DeviceBuffer<R>(n);
    in[c].upload(h.in[c]);
    out[c] = DeviceBuffer<R>(n);
    out[c].upload(std::vector<R>(n, std::numeric_limits<R>::quiet_NaN()));
  }
  const R* const u[3] = {in[0].data(), in[1].data(), in[2].data()};
  R* const o[3] = {out[0].data(), out[1].data(), out[2].data()};
  const FlagView fv{flags.data()};
  switch (op) {
    case Op::vorticity:
      vorticity<R>(u, fv, h.shape, o, variant);
      break;
    case Op::q_criterion:
      q_criterion<R>(u, fv, h.shape, o[0], variant);
      break;
    case Op::strain_rate:
      strain_rate_magnitude<R>(u, fv, h.shape, o[0], variant);
      break;
    case Op::divergence:
      divergence<R>(u, fv, h.shape, o[0], variant);
      break;
    case Op::gradient:
      gradient<R>(u[0], fv, h.shape, o, variant);
      break;
    case Op::laplacian:
      laplacian<R>(u[0], fv, h.shape, o[0], variant);
      break;
  }
  std::vector<std::vector<R>> result;
  for (int c = 0; c < outputs(op); ++c) result.push_back(out[c].download());
  return result;
}

/// Analytic result of `op` from the analytic gradient tensor G (of u, or row 0 = gradient of the scalar) and the
/// scalar's Laplacian.
std::array<double, 3> expected(Op op, const double (&G)[3][3], double lap) {
  double w[3];
  stencil::curl(G, w);
  switch (op) {
    case Op::vorticity:
      return {w[0], w[1], w[2]};
    case Op::q_criterion:
      return {stencil::q_criterion(G), 0, 0};
    case Op::strain_rate:
      return {stencil::strain_rate_magnitude(G), 0, 0};
    case Op::divergence:
      return {G[0][0] + G[1][1] + G[2][2], 0, 0};
    case Op::gradient:
      return {G[0][0], G[0][1], G[0][2]};
    case Op::laplacian:
      return {lap, 0, 0};
  }
  return {0, 0, 0};
}

/// Analytic gradient tensor and Laplacian of component 0 at a cell.
using Analytic = std::function<void(int x, int y, int z, double (&G)[3][3], double& lap)>;

/// max over fluid interior cells of |computed - expected|; solid interior cells must hold exactly 0, ghosts stay NaN.
template <class R>
double max_error(Op op, const HostBlock<R>& h, const std::vector<std::vector<R>>& out, const Analytic& analytic) {
  double err = 0.0;
  h.for_each_cell(h.shape.whole(), [&](int x, int y, int z) {
    const std::int64_t cell = h.shape.index(x, y, z);
    const bool ghost = x == 0 || y == 0 || z == 0 || x > h.shape.n[0] || y > h.shape.n[1] || z > h.shape.n[2];
    for (int c = 0; c < outputs(op); ++c) {
      if (ghost) {
        EXPECT_TRUE(std::isnan(out[c][cell])) << "ghost cell written at " << x << "," << y << "," << z;
      } else if (is_solid(h.flags[cell])) {
        EXPECT_EQ(out[c][cell], R(0)) << "solid cell at " << x << "," << y << "," << z;
      }
    }
    if (ghost || is_solid(h.flags[cell])) return;
    double G[3][3], lap;
    analytic(x, y, z, G, lap);
    const auto e = expected(op, G, lap);
    for (int c = 0; c < outputs(op); ++c) err = std::max(err, std::abs(double(out[c][cell]) - e[c]));
  });
  return err;
}

// ---- exactness on polynomials ------------------------------------------------------------------------------------

/// u_i = a_i + B_ij x_j (x = block-local cell coordinate): every first difference is exact, so G = B everywhere,
/// next to walls too, and so are curl, divergence, |S| and Q (functions of G).
TEST(Stencils, LinearFieldsExactForEveryFirstDerivativeOperator) {
  const double a[3] = {0.3, -1.2, 2.0};
  const double B[3][3] = {{0.11, -0.27, 0.05}, {0.31, -0.08, 0.19}, {-0.22, 0.13, 0.02}};
  HostBlock<double> h(BlockShape{{37, 11, 7}});
  h.fill([&](int c, int x, int y, int z) { return a[c] + B[c][0] * x + B[c][1] * y + B[c][2] * z; });
  h.walls({true, false, false, true, true, false});
  h.set_solid(20, 5, 4);
  h.set_solid(21, 5, 4);
  h.classify();
  const Analytic analytic = [&](int, int, int, double(&G)[3][3], double& lap) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) G[i][j] = B[i][j];
    lap = 0.0;
  };
  for (const Op op : kOps) {
    for (const StencilVariant v : kVariants) {
      const double err = max_error(op, h, run(op, h, v), analytic);
      EXPECT_LT(err, 1e-13) << op_name(op) << " " << variant_name(v);
    }
  }
}

/// A scalar quadratic f = c0 + b.x + x^T A x: its gradient is exact with central differences (all fluid) and with
/// the one-sided formulas next to walls and obstacles; its Laplacian 2 tr A is exact (central and one-sided).
/// A cubic term x^3 y keeps the Laplacian (6 x y) exact, central and one-sided.
TEST(Stencils, QuadraticGradientAndCubicLaplacianExactCentralAndNextToWalls) {
  const double A[3][3] = {{0.013, 0.004, -0.007}, {0.004, -0.021, 0.009}, {-0.007, 0.009, 0.017}};
  const double b[3] = {0.5, -0.25, 0.125};
  for (const bool with_walls : {false, true}) {
    HostBlock<double> h(BlockShape{{34, 9, 8}});
    h.fill([&](int, int x, int y, int z) {
      const double p[3] = {double(x), double(y), double(z)};
      double f = 1.5;
      for (int i = 0; i < 3; ++i) {
        f += b[i] * p[i];
        for (int j = 0; j < 3; ++j) f += A[i][j] * p[i] * p[j];
      }
      return f + 1e-4 * p[0] * p[0] * p[0] * p[1];
    });
    if (with_walls) {
      h.walls({true, true, true, true, true, true});
      for (int y = 4; y <= 5; ++y)  // an obstacle with at least 3 fluid cells on each side along every axis
        for (int x = 15; x <= 17; ++x) h.set_solid(x, y, 4);
    }
    h.classify();
    // Gradient: exact for the quadratic part only, so check it on a field without the cubic term.
    HostBlock<double> q = h;
    q.fill([&](int, int x, int y, int z) {
      const double p[3] = {double(x), double(y), double(z)};
      double f = 1.5;
      for (int i = 0; i < 3; ++i) {
        f += b[i] * p[i];
        for (int j = 0; j < 3; ++j) f += A[i][j] * p[i] * p[j];
      }
      return f;
    });
    const Analytic grad = [&](int x, int y, int z, double(&G)[3][3], double& lap) {
      const double p[3] = {double(x), double(y), double(z)};
      for (int j = 0; j < 3; ++j) {
        G[0][j] = b[j];
        for (int i = 0; i < 3; ++i) G[0][j] += 2.0 * A[j][i] * p[i];
        G[1][j] = G[2][j] = 0.0;
      }
      lap = 0.0;
    };
    const Analytic lap_cubic = [&](int x, int y, int, double(&G)[3][3], double& lap) {
      for (auto& row : G)
        for (double& g : row) g = 0.0;
      lap = 2.0 * (A[0][0] + A[1][1] + A[2][2]) + 1e-4 * 6.0 * x * y;
    };
    for (const StencilVariant v : kVariants) {
      EXPECT_LT(max_error(Op::gradient, q, run(Op::gradient, q, v), grad), 1e-12)
          << "gradient " << variant_name(v) << (with_walls ? " with walls" : "");
      EXPECT_LT(max_error(Op::laplacian, h, run(Op::laplacian, h, v), lap_cubic), 1e-11)
          << "laplacian " << variant_name(v) << (with_walls ? " with walls" : "");
    }
  }
}

/// The one-dimensional formulas on their own: exact up to the degree they claim, not beyond.
TEST(Stencils, OneDimensionalFormulasExactUpToTheirDegree) {
  for (int degree = 0; degree <= 4; ++degree) {
    const auto f = [&](double x) { return std::pow(x - 0.3, degree); };
    const auto d1 = [&](double x) { return degree == 0 ? 0.0 : degree * std::pow(x - 0.3, degree - 1); };
    const auto d2 = [&](double x) { return degree < 2 ? 0.0 : degree * (degree - 1) * std::pow(x - 0.3, degree - 2); };
    const double x = 2.0;
    const bool first_exact = degree <= 2, second_exact = degree <= 3;
    const double central1 = stencil::central_first(f(x - 1), f(x + 1));
    const double forward1 = stencil::one_sided_first(f(x), f(x + 1), f(x + 2), +1);
    const double backward1 = stencil::one_sided_first(f(x), f(x - 1), f(x - 2), -1);
    const double central2 = stencil::central_second(f(x - 1), f(x), f(x + 1));
    const double forward2 = stencil::one_sided_second(f(x), f(x + 1), f(x + 2), f(x + 3));
    const double backward2 = stencil::one_sided_second(f(x), f(x - 1), f(x - 2), f(x - 3));
    for (const double d : {central1, forward1, backward1})
      EXPECT_EQ(std::abs(d - d1(x)) < 1e-12, first_exact) << degree;
    for (const double d : {central2, forward2, backward2}) {
      EXPECT_EQ(std::abs(d - d2(x)) < 1e-12, second_exact) << degree;
    }
  }
}

// ---- analytic values -----------------------------------------------------------------------------------------------

/// Solid-body rotation u = W x (r - r0): vorticity 2 W, Q = |W|^2 > 0, |S| = 0, divergence 0; pure strain
/// u = (a x, -a y, 0): vorticity 0, Q = -a^2 < 0, |S| = 2 |a|. Float and double.
template <class R>
void check_rotation_and_strain(double tol) {
  const double W[3] = {0.01, -0.02, 0.03}, r0[3] = {10.0, 6.0, 5.0}, a = 0.015;
  HostBlock<R> rot(BlockShape{{20, 12, 10}});
  rot.fill([&](int c, int x, int y, int z) {
    const double r[3] = {x - r0[0], y - r0[1], z - r0[2]};
    return W[(c + 1) % 3] * r[(c + 2) % 3] - W[(c + 2) % 3] * r[(c + 1) % 3];
  });
  rot.walls({true, true, false, false, false, false});
  rot.classify();
  HostBlock<R> strain = rot;
  strain.fill([&](int c, int x, int y, int) { return c == 0 ? a * (x - r0[0]) : c == 1 ? -a * (y - r0[1]) : 0.0; });
  const double w2 = W[0] * W[0] + W[1] * W[1] + W[2] * W[2];
  for (const StencilVariant v : kVariants) {
    const auto omega = run(Op::vorticity, rot, v);
    const auto q = run(Op::q_criterion, rot, v);
    const auto s = run(Op::strain_rate, rot, v);
    const auto div = run(Op::divergence, rot, v);
    const auto q_strain = run(Op::q_criterion, strain, v);
    const auto s_strain = run(Op::strain_rate, strain, v);
    const auto omega_strain = run(Op::vorticity, strain, v);
    rot.for_each_cell(rot.shape.interior(), [&](int x, int y, int z) {
      const std::int64_t cell = rot.shape.index(x, y, z);
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(omega[c][cell], 2.0 * W[c], tol) << variant_name(v);
        EXPECT_NEAR(omega_strain[c][cell], 0.0, tol) << variant_name(v);
      }
      EXPECT_GT(q[0][cell], 0.0);
      EXPECT_NEAR(q[0][cell], w2, tol * w2);
      EXPECT_NEAR(s[0][cell], 0.0, tol);
      EXPECT_NEAR(div[0][cell], 0.0, tol);
      EXPECT_LT(q_strain[0][cell], 0.0);
      EXPECT_NEAR(q_strain[0][cell], -a * a, tol * a * a);
      EXPECT_NEAR(s_strain[0][cell], 2.0 * a, tol);
    });
  }
}
TEST(Stencils, SolidBodyRotationAndPureStrainDouble) { check_rotation_and_strain<double>(1e-12); }
TEST(Stencils, SolidBodyRotationAndPureStrainFloat) { check_rotation_and_strain<float>(2e-5); }

/// A fluid cell between two solid cells along an axis has no difference along it (0), and a one-cell gap falls
/// back to the first-order one-sided difference.
TEST(Stencils, NarrowGapsFallBack) {
  HostBlock<double> h(BlockShape{{8, 4, 4}});
  h.fill([](int c, int x, int, int) { return c == 0 ? double(x * x) : 0.0; });
  // x = 1 between the solid ghost x = 0 and a solid cell at x = 2; x = 3, 4 fluid with x = 5 solid.
  h.walls({true, false, false, false, false, false});
  for (int z = 1; z <= 4; ++z)
    for (int y = 1; y <= 4; ++y) {
      h.set_solid(2, y, z);
      h.set_solid(5, y, z);
    }
  h.classify();
  for (const StencilVariant v : kVariants) {
    const auto g = run(Op::gradient, h, v);
    const auto lap = run(Op::laplacian, h, v);
    const std::int64_t c1 = h.shape.index(1, 2, 2), c3 = h.shape.index(3, 2, 2), c4 = h.shape.index(4, 2, 2);
    EXPECT_EQ(g[0][c1], 0.0) << variant_name(v);
    EXPECT_EQ(lap[0][c1], 0.0) << variant_name(v);
    EXPECT_EQ(g[0][c3], 16.0 - 9.0) << variant_name(v);  // forward first order, x = 3 -> 4
    EXPECT_EQ(g[0][c4], 16.0 - 9.0) << variant_name(v);  // backward first order, x = 4 -> 3
    EXPECT_EQ(lap[0][c3], 0.0) << variant_name(v);       // one open neighbour along x; f is constant along y, z
  }
}

// ---- second-order convergence ------------------------------------------------------------------------------------

/// u = (sin X cos Y cos Z, -cos X sin Y cos Z, 0.5 sin X sin Y sin Z), X = k (x - 1 + s), k = 2 pi / N (Taylor-Green
/// plus a third component), periodic on N^3 cells (the ghost layer holds the periodic images). Maximum errors scaled
/// by k (first derivatives), k^2 (Q, Laplacian) give the observed order log2(e_N / e_2N).
struct SmoothField {
  int n;
  double shift;  ///< phase offset of the cells, so no derivative vanishes on a whole grid plane
  double k() const { return 2.0 * kPi / n; }
  double value(int c, int x, int y, int z) const {
    const double X = k() * (x - 1 + shift), Y = k() * (y - 1 + 0.5 * shift), Z = k() * (z - 1 + 0.25 * shift);
    if (c == 0) return std::sin(X) * std::cos(Y) * std::cos(Z);
    if (c == 1) return -std::cos(X) * std::sin(Y) * std::cos(Z);
    return 0.5 * std::sin(X) * std::sin(Y) * std::sin(Z);
  }
  void analytic(int x, int y, int z, double (&G)[3][3], double& lap) const {
    const double K = k();
    const double X = K * (x - 1 + shift), Y = K * (y - 1 + 0.5 * shift), Z = K * (z - 1 + 0.25 * shift);
    const double sX = std::sin(X), cX = std::cos(X), sY = std::sin(Y), cY = std::cos(Y), sZ = std::sin(Z),
                 cZ = std::cos(Z);
    G[0][0] = K * cX * cY * cZ, G[0][1] = -K * sX * sY * cZ, G[0][2] = -K * sX * cY * sZ;
    G[1][0] = K * sX * sY * cZ, G[1][1] = -K * cX * cY * cZ, G[1][2] = K * cX * sY * sZ;
    G[2][0] = 0.5 * K * cX * sY * sZ, G[2][1] = 0.5 * K * sX * cY * sZ, G[2][2] = 0.5 * K * sX * sY * cZ;
    lap = -3.0 * K * K * sX * cY * cZ;
  }
};

double scale_power(Op op) { return op == Op::q_criterion || op == Op::laplacian ? 2.0 : 1.0; }

/// Observed orders of the max error on N = 16, 32, 64 (walls: solid ghost planes on the x and y faces, so the
/// wall-adjacent cells use the one-sided formulas; the field is then simply not periodic there).
void check_convergence(Op op, bool walls, StencilVariant v) {
  double err[3];
  const int sizes[3] = {16, 32, 64};
  for (int i = 0; i < 3; ++i) {
    const SmoothField field{sizes[i], 0.3};
    HostBlock<double> h(BlockShape{{field.n, field.n, field.n}});
    h.fill([&](int c, int x, int y, int z) {
      const auto wrap = [&](int p) { return (p - 1 + field.n) % field.n + 1; };  // periodic image of a ghost cell
      return walls ? field.value(c, x, y, wrap(z)) : field.value(c, wrap(x), wrap(y), wrap(z));
    });
    if (walls) h.walls({true, true, true, true, false, false});
    h.classify();
    const Analytic analytic = [&](int x, int y, int z, double(&G)[3][3], double& lap) {
      field.analytic(x, y, z, G, lap);
    };
    err[i] = max_error(op, h, run(op, h, v), analytic) / std::pow(field.k(), scale_power(op));
  }
  const double order1 = std::log2(err[0] / err[1]), order2 = std::log2(err[1] / err[2]);
  std::cout << "  " << op_name(op) << (walls ? " walls " : " periodic ") << variant_name(v) << ": scaled max error "
            << err[0] << ", " << err[1] << ", " << err[2] << "; observed order " << order1 << ", " << order2 << "\n";
  EXPECT_NEAR(order2, 2.0, 0.2) << op_name(op) << (walls ? " walls " : " periodic ") << variant_name(v);
  EXPECT_NEAR(order1, 2.0, 0.3) << op_name(op) << (walls ? " walls " : " periodic ") << variant_name(v);
}

TEST(Stencils, SecondOrderConvergenceOnPeriodicField) {
  for (const Op op : kOps) check_convergence(op, false, StencilVariant::plain);
  check_convergence(Op::vorticity, false, StencilVariant::tiled);
  check_convergence(Op::q_criterion, false, StencilVariant::tiled);
}

TEST(Stencils, SecondOrderConvergenceNextToWalls) {
  for (const Op op : kOps) check_convergence(op, true, StencilVariant::plain);
  check_convergence(Op::q_criterion, true, StencilVariant::tiled);
}

// ---- plain against tiled -----------------------------------------------------------------------------------------

/// Random fields on a block whose extents are not multiples of the tile (37 x 11 x 7 and 5 x 3 x 2), with walls and
/// scattered solid cells: the tiled kernels give the plain kernels' bits on cpu (same per-cell code, same values);
/// on GPUs, where the compiler may contract multiply-adds differently per kernel, within 1e-6 of the field's
/// largest magnitude.
template <class R>
void check_plain_equals_tiled(BlockShape shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostBlock<R> h(shape);
  h.fill([&](int, int, int, int) { return value(rng); });
  h.walls({true, false, false, true, true, false});
  std::uniform_int_distribution<int> pick(0, 9);
  h.for_each_cell(shape.interior(), [&](int x, int y, int z) {
    if (pick(rng) == 0) h.set_solid(x, y, z);
  });
  h.classify();
  for (const Op op : kOps) {
    const auto plain = run(op, h, StencilVariant::plain);
    const auto tiled = run(op, h, StencilVariant::tiled);
    for (int c = 0; c < outputs(op); ++c) {
      if (!backend::is_gpu()) {
        EXPECT_EQ(std::memcmp(plain[c].data(), tiled[c].data(), plain[c].size() * sizeof(R)), 0)
            << op_name(op) << " component " << c << ": plain and tiled differ in some bits";
      } else {
        double diff = 0.0, scale = 0.0;
        for (std::size_t i = 0; i < plain[c].size(); ++i) {
          if (std::isnan(plain[c][i]) && std::isnan(tiled[c][i])) continue;
          diff = std::max(diff, std::abs(double(plain[c][i]) - double(tiled[c][i])));
          scale = std::max(scale, std::abs(double(plain[c][i])));
        }
        EXPECT_LE(diff, 1e-6 * scale) << op_name(op) << " component " << c;
      }
    }
  }
}

TEST(Stencils, PlainAndTiledAgree) {
  check_plain_equals_tiled<double>(BlockShape{{37, 11, 7}}, 1);
  check_plain_equals_tiled<float>(BlockShape{{37, 11, 7}}, 2);
  check_plain_equals_tiled<double>(BlockShape{{5, 3, 2}}, 3);
  check_plain_equals_tiled<float>(BlockShape{{70, 9, 5}}, 4);
}

}  // namespace
}  // namespace eddy
