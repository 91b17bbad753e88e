// solver/solid_shapes.hpp: which cells a [[solid]] body covers (host only, pure functions).
//
// A cell is solid when its centre p lies inside the shape or on its surface. Cell (i, j, k) of the global grid has
// its centre at p = (i + 0.5, j + 0.5, k + 0.5) (lattice units, from the domain's lower corner), the node the VTK
// output places there (solver/moment_readout.cpp: origin 0.5, spacing 1, in cells).
//   sphere   (centre c, radius r):           |p - c|^2 <= r^2
//   cylinder (axis from a to b, radius r):   d = b - a;  0 <= (p - a) . d <= d . d  (between the end caps) and
//                                            |(p - a) x d|^2 <= r^2 d . d           (distance to the axis <= r)
//   box      (corners lo < hi):              lo_a <= p_a <= hi_a on every axis a; rotated (rotate != 0) about its
//                                            centre c by R: q = R^T (p - c), |q_a| <= (hi_a - lo_a) / 2
// The tests are written without divisions so that one double expression decides each cell, the same on every rank
// (each block evaluates its cells by their global coordinates). Meshes and voxel files are not shapes: their cells
// come from solver/block_solids.hpp (inside_solid is false for them).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {

using Point3 = std::array<double, 3>;
using Matrix3 = std::array<std::array<double, 3>, 3>;

/// sin and cos of an angle in degrees, exact (0, +-1) at multiples of 90 degrees.
inline void sin_cos_degrees(double degrees, double& s, double& c) {
  const double r = std::fmod(degrees, 360.0);  // exact
  if (r / 90.0 == std::floor(r / 90.0)) {
    static const double sines[4] = {0.0, 1.0, 0.0, -1.0};
    const int k = ((int(r / 90.0) % 4) + 4) % 4;
    s = sines[k];
    c = sines[(k + 1) % 4];
    return;
  }
  const double radians = r * (M_PI / 180.0);
  s = std::sin(radians);
  c = std::cos(radians);
}

/// The rotation by `degrees` = (a, b, c) about the fixed x, then y, then z axis: R = Rz(c) Ry(b) Rx(a) (right-handed,
/// counter-clockwise seen from the positive axis), applied as p' = R p. Exactly the identity for (0, 0, 0).
inline Matrix3 rotation_matrix(const std::array<double, 3>& degrees) {
  double sa, ca, sb, cb, sc, cc;
  sin_cos_degrees(degrees[0], sa, ca);
  sin_cos_degrees(degrees[1], sb, cb);
  sin_cos_degrees(degrees[2], sc, cc);
  const Matrix3 rx = {{{1, 0, 0}, {0, ca, -sa}, {0, sa, ca}}};
  const Matrix3 ry = {{{cb, 0, sb}, {0, 1, 0}, {-sb, 0, cb}}};
  const Matrix3 rz = {{{cc, -sc, 0}, {sc, cc, 0}, {0, 0, 1}}};
  const auto times = [](const Matrix3& a, const Matrix3& b) {
    Matrix3 m{};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
    return m;
  };
  return times(rz, times(ry, rx));
}

/// R p.
inline Point3 rotate_point(const Matrix3& r, const Point3& p) {
  return {r[0][0] * p[0] + r[0][1] * p[1] + r[0][2] * p[2], r[1][0] * p[0] + r[1][1] * p[1] + r[1][2] * p[2],
          r[2][0] * p[0] + r[2][1] * p[1] + r[2][2] * p[2]};
}

/// True when the solid has a rotation (any angle not zero).
inline bool rotated(const SolidConfig& s) { return s.rotate[0] != 0.0 || s.rotate[1] != 0.0 || s.rotate[2] != 0.0; }

/// |p - c|^2 <= r^2 (lattice units).
inline bool inside_sphere(const Point3& p, const Point3& c, double r) {
  const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
  return dx * dx + dy * dy + dz * dz <= r * r;
}

/// Finite cylinder of radius r around the segment a-b (flat end caps through a and b, normal to the axis; a != b).
inline bool inside_cylinder(const Point3& p, const Point3& a, const Point3& b, double r) {
  const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double q[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double along = q[0] * d[0] + q[1] * d[1] + q[2] * d[2];
  const double length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  if (along < 0.0 || along > length2) return false;
  const double cx = q[1] * d[2] - q[2] * d[1], cy = q[2] * d[0] - q[0] * d[2], cz = q[0] * d[1] - q[1] * d[0];
  return cx * cx + cy * cy + cz * cz <= r * r * length2;
}

/// lo <= p <= hi on every axis.
inline bool inside_box(const Point3& p, const Point3& lo, const Point3& hi) {
  for (int a = 0; a < 3; ++a) {
    if (p[a] < lo[a] || p[a] > hi[a]) return false;
  }
  return true;
}

/// The box lo..hi rotated by `r` about its centre c: q = R^T (p - c) within the half-widths, |q_a| <= (hi_a - lo_a)
/// / 2.
inline bool inside_rotated_box(const Point3& p, const Point3& lo, const Point3& hi, const Matrix3& r) {
  const double d[3] = {p[0] - 0.5 * (lo[0] + hi[0]), p[1] - 0.5 * (lo[1] + hi[1]), p[2] - 0.5 * (lo[2] + hi[2])};
  for (int a = 0; a < 3; ++a) {
    const double q = r[0][a] * d[0] + r[1][a] * d[1] + r[2][a] * d[2];  // (R^T d)_a
    if (std::abs(q) > 0.5 * (hi[a] - lo[a])) return false;
  }
  return true;
}

/// True when the centre p of a cell lies inside the analytic shape `s` (lattice units, s finalized; a box's
/// rotation matrix is rotation_matrix(s.rotate), passed in so that it is computed once per solid). False for mesh and
/// voxels solids (solver/block_solids.hpp decides their cells).
inline bool inside_solid(const SolidConfig& s, const Point3& p, const Matrix3& box_rotation) {
  switch (s.shape) {
    case SolidShape::sphere:
      return inside_sphere(p, s.center, s.radius);
    case SolidShape::cylinder:
      return inside_cylinder(p, s.start, s.end, s.radius);
    case SolidShape::box:
      return rotated(s) ? inside_rotated_box(p, s.min, s.max, box_rotation) : inside_box(p, s.min, s.max);
    case SolidShape::mesh:
    case SolidShape::voxels:
      return false;
  }
  return false;
}

inline bool inside_solid(const SolidConfig& s, const Point3& p) {
  return inside_solid(s, p, rotation_matrix(s.rotate));
}

/// True for the shapes inside_solid decides (sphere, cylinder, box).
inline bool analytic_shape(const SolidConfig& s) {
  return s.shape == SolidShape::sphere || s.shape == SolidShape::cylinder || s.shape == SolidShape::box;
}

// ---- Wall distance along a link (interpolated walls, kernels/boundary_rules.hpp) ----------------------------------
//
// A cut link goes from a fluid node p to a solid node p + c (c a D3Q19 velocity, lattice units). Its wall distance
// q in [0, 1] puts the surface at p + q c: the first point of the segment inside the solid. Along the line
// x(t) = p + t c a convex shape holds one interval of t, found in closed form (no iteration), in double:
//   sphere:   |x(t) - centre|^2 <= r^2, a quadratic A t^2 + 2 B t + C <= 0, A = c.c, B = c.(p - centre),
//             C = |p - centre|^2 - r^2; its roots by the cancellation-free pair t = Q / A, C / Q with
//             Q = -(B + sign(B) sqrt(B^2 - A C)) (Press et al. 2007, Numerical Recipes, 3rd ed., sec. 5.6);
//   cylinder: the slab 0 <= (x(t) - a).d <= d.d between the end caps intersected with the infinite cylinder
//             |(x(t) - a) x d|^2 <= r^2 d.d (the same quadratic form in t, with e = (p - a) x d, f = c x d);
//   box:      the slabs lo_a <= x_a(t) <= hi_a, each [(lo_a - p_a) / c_a, (hi_a - p_a) / c_a] ordered (the classic
//             slab test: Kay & Kajiya 1986, "Ray tracing complex scenes", SIGGRAPH 20(4), 269).
// Every rank evaluates the same expressions on the same doubles (global coordinates), so q has the same bits on
// every decomposition. A rotated box is the same slab test in its own frame. Meshes and voxel files are not shapes:
// their wall distances come from solver/block_solids.hpp (a mesh's from its triangles, the same images and clip; a
// voxel body's surface lies on cell faces, q = 1/2 exactly).

/// A closed interval [lo, hi] of the line parameter t; empty when lo > hi.
struct LineInterval {
  double lo = -HUGE_VAL, hi = HUGE_VAL;
  bool empty() const { return lo > hi; }
  LineInterval& operator&=(const LineInterval& o) {
    lo = std::max(lo, o.lo);
    hi = std::min(hi, o.hi);
    return *this;
  }
};

/// The t with A t^2 + 2 B t + C <= 0 (A >= 0): an interval when A > 0 (empty without real roots); when A = 0 the
/// whole line (C <= 0, B = 0 then) or nothing.
inline LineInterval quadratic_interval(double A, double B, double C) {
  LineInterval none{1.0, 0.0};
  if (A == 0.0) return (B == 0.0 && C <= 0.0) ? LineInterval{} : none;
  const double disc = B * B - A * C;
  if (disc < 0.0) return none;
  const double Q = -(B + std::copysign(std::sqrt(disc), B));
  if (Q == 0.0) return {0.0, 0.0};  // B = 0 and C = 0: the double root t = 0
  const double t1 = Q / A, t2 = C / Q;
  return {std::min(t1, t2), std::max(t1, t2)};
}

/// The t with lo <= p + t c <= hi along one axis (c any number; c = 0: the whole line or nothing).
inline LineInterval slab_interval(double p, double c, double lo, double hi) {
  if (c == 0.0) return (p >= lo && p <= hi) ? LineInterval{} : LineInterval{1.0, 0.0};
  const double t0 = (lo - p) / c, t1 = (hi - p) / c;
  return {std::min(t0, t1), std::max(t0, t1)};
}

/// The t for which p + t c lies inside solid `s` (lattice units, s finalized), by the rules above.
inline LineInterval line_inside_solid(const SolidConfig& s, const Point3& p, const Point3& c) {
  switch (s.shape) {
    case SolidShape::sphere: {
      const double q[3] = {p[0] - s.center[0], p[1] - s.center[1], p[2] - s.center[2]};
      return quadratic_interval(c[0] * c[0] + c[1] * c[1] + c[2] * c[2], c[0] * q[0] + c[1] * q[1] + c[2] * q[2],
                                q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - s.radius * s.radius);
    }
    case SolidShape::cylinder: {
      const double d[3] = {s.end[0] - s.start[0], s.end[1] - s.start[1], s.end[2] - s.start[2]};
      const double q[3] = {p[0] - s.start[0], p[1] - s.start[1], p[2] - s.start[2]};
      const double length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      LineInterval t =
          slab_interval(q[0] * d[0] + q[1] * d[1] + q[2] * d[2], c[0] * d[0] + c[1] * d[1] + c[2] * d[2], 0.0, length2);
      const double e[3] = {q[1] * d[2] - q[2] * d[1], q[2] * d[0] - q[0] * d[2], q[0] * d[1] - q[1] * d[0]};
      const double f[3] = {c[1] * d[2] - c[2] * d[1], c[2] * d[0] - c[0] * d[2], c[0] * d[1] - c[1] * d[0]};
      t &= quadratic_interval(f[0] * f[0] + f[1] * f[1] + f[2] * f[2], e[0] * f[0] + e[1] * f[1] + e[2] * f[2],
                              e[0] * e[0] + e[1] * e[1] + e[2] * e[2] - s.radius * s.radius * length2);
      return t;
    }
    case SolidShape::box: {
      LineInterval t;
      if (!rotated(s)) {
        for (int a = 0; a < 3; ++a) t &= slab_interval(p[a], c[a], s.min[a], s.max[a]);
        return t;
      }
      // Rotated by R about its centre m: the slabs of the unrotated box in its own frame, p' = R^T (p - m) + m,
      // c' = R^T c (the line parameter t is the same in both frames).
      const Matrix3 r = rotation_matrix(s.rotate);
      const double d[3] = {p[0] - 0.5 * (s.min[0] + s.max[0]), p[1] - 0.5 * (s.min[1] + s.max[1]),
                           p[2] - 0.5 * (s.min[2] + s.max[2])};
      for (int a = 0; a < 3; ++a) {
        const double pa = r[0][a] * d[0] + r[1][a] * d[1] + r[2][a] * d[2];
        const double ca = r[0][a] * c[0] + r[1][a] * c[1] + r[2][a] * c[2];
        const double half = 0.5 * (s.max[a] - s.min[a]);
        t &= slab_interval(pa, ca, -half, half);
      }
      return t;
    }
    case SolidShape::mesh:  // not shapes: solver/block_solids.hpp gives their wall distances
    case SolidShape::voxels:
      return {1.0, 0.0};
  }
  return {1.0, 0.0};
}

/// The wall distance of the link from fluid node `p` along `c` into solid `s`: the first t in [0, 1] with p + t c
/// inside the solid, or -1 when the segment misses it (lattice units). The solid is what it covers of the domain
/// [0, size) (cell centres outside the domain are never tested), repeated across the periodic axes (`periodic`), as
/// the cells see it: each periodic image of the part of the shape inside the domain box is tested, so a box that
/// spans a periodic axis is a slab without end there, and a shape cut by a periodic face has its wall on the face,
/// half-way between the last node on one side and the first on the other. The segment, at most one cell long on each
/// axis, meets images shifted by -size, 0 or +size only.
inline double wall_distance(const SolidConfig& s, const Point3& p, const Point3& c, const std::array<int, 3>& size,
                            const std::array<bool, 3>& periodic) {
  double first = HUGE_VAL;
  for (int image = 0; image < 27; ++image) {
    const int shift[3] = {image % 3 - 1, (image / 3) % 3 - 1, image / 9 - 1};
    if ((shift[0] != 0 && !periodic[0]) || (shift[1] != 0 && !periodic[1]) || (shift[2] != 0 && !periodic[2])) continue;
    Point3 q;
    for (int a = 0; a < 3; ++a) q[a] = p[a] + double(shift[a]) * double(size[a]);
    LineInterval t = line_inside_solid(s, q, c);
    for (int a = 0; a < 3; ++a) t &= slab_interval(q[a], c[a], 0.0, double(size[a]));
    t &= LineInterval{0.0, 1.0};
    if (!t.empty()) first = std::min(first, t.lo);
  }
  return first <= 1.0 ? first : -1.0;
}

/// The centre of global cell `g` (0-based indices): g + 0.5 on each axis.
inline Point3 cell_centre(const std::array<std::int64_t, 3>& g) {
  return {double(g[0]) + 0.5, double(g[1]) + 0.5, double(g[2]) + 0.5};
}

/// Global cell ranges [lo, hi) per axis holding every cell whose centre can lie inside `s` (its bounding box,
/// clipped to the domain `size`); empty (lo >= hi on an axis) when the box misses the domain.
struct CellRange {
  std::array<std::int64_t, 3> lo{}, hi{};
  bool empty() const { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
};

inline CellRange solid_cell_range(const SolidConfig& s, const std::array<int, 3>& size) {
  Point3 lo{}, hi{};
  for (int a = 0; a < 3; ++a) {
    switch (s.shape) {
      case SolidShape::sphere:
        lo[a] = s.center[a] - s.radius;
        hi[a] = s.center[a] + s.radius;
        break;
      case SolidShape::cylinder:
        lo[a] = std::min(s.start[a], s.end[a]) - s.radius;
        hi[a] = std::max(s.start[a], s.end[a]) + s.radius;
        break;
      case SolidShape::box: {
        // Rotated: the centre plus the rotated half-widths' extent along a, sum_b |R_ab| h_b.
        const Matrix3 r = rotation_matrix(s.rotate);
        double reach = 0.0;
        for (int b = 0; b < 3; ++b) reach += std::abs(r[a][b]) * 0.5 * (s.max[b] - s.min[b]);
        lo[a] = rotated(s) ? 0.5 * (s.min[a] + s.max[a]) - reach : s.min[a];
        hi[a] = rotated(s) ? 0.5 * (s.min[a] + s.max[a]) + reach : s.max[a];
        break;
      }
      case SolidShape::mesh:
      case SolidShape::voxels:
        return CellRange{};  // not a shape: empty
    }
  }
  CellRange range;
  for (int a = 0; a < 3; ++a) {
    // Cells i with lo <= i + 0.5 <= hi, one more each side (the bounds are rounded; inside_solid decides), clipped to
    // [0, size); computed in double, the bounds may lie far outside.
    const double first = std::max(0.0, std::ceil(lo[a] - 0.5) - 1.0);
    const double last = std::min(double(size[a]) - 1.0, std::floor(hi[a] - 0.5) + 1.0);
    range.lo[a] = std::int64_t(std::min(first, double(size[a])));
    range.hi[a] = last < first ? range.lo[a] : std::int64_t(last) + 1;
  }
  return range;
}

/// Number of domain cells whose centre lies inside `s` (a scan of its bounding box); with `stop_at_first`, 0 or 1.
inline std::int64_t solid_cell_count(const SolidConfig& s, const std::array<int, 3>& size, bool stop_at_first = false) {
  const CellRange r = solid_cell_range(s, size);
  if (r.empty()) return 0;
  const Matrix3 rotation = rotation_matrix(s.rotate);
  std::int64_t count = 0;
  for (std::int64_t k = r.lo[2]; k < r.hi[2]; ++k)
    for (std::int64_t j = r.lo[1]; j < r.hi[1]; ++j)
      for (std::int64_t i = r.lo[0]; i < r.hi[0]; ++i) {
        if (!inside_solid(s, cell_centre({i, j, k}), rotation)) continue;
        if (stop_at_first) return 1;
        ++count;
      }
  return count;
}

/// Domains of at most this many cells are scanned cell by cell by solids_leave_fluid when no single solid holds them
/// (a few tenths of a second in the worst case, a union of solids that covers nearly every cell, and under ten seconds
/// under the case fuzzer's sanitizers); larger ones get the single-solid test only.
inline constexpr std::int64_t kSolidScanCells = std::int64_t(1) << 22;

/// True when one solid of `solids` holds all eight corner cells' centres of the domain, which for a convex shape
/// (sphere, cylinder, box, rotated or not) means it holds every cell centre (the grid's centres lie in their convex
/// hull). Meshes and voxel files hold no cell here (inside_solid; they are checked after they are voxelised).
inline bool one_solid_holds_every_cell(const std::vector<SolidConfig>& solids, const std::array<int, 3>& size) {
  for (const SolidConfig& s : solids) {
    const Matrix3 rotation = rotation_matrix(s.rotate);
    bool all = true;
    for (int corner = 0; corner < 8 && all; ++corner) {
      const std::array<std::int64_t, 3> g = {(corner & 1) ? size[0] - 1 : 0, (corner & 2) ? size[1] - 1 : 0,
                                             (corner & 4) ? size[2] - 1 : 0};
      all = inside_solid(s, cell_centre(g), rotation);
    }
    if (all) return true;
  }
  return false;
}

/// True when some domain cell lies inside none of the analytic shapes among `solids` (meshes and voxel files are
/// checked after they are voxelised, solver/block_solids.hpp). False at once when one solid holds every cell
/// (one_solid_holds_every_cell). Otherwise exact for domains of at most kSolidScanCells cells: a scan that stops at
/// the first such cell (unless the solids' bounding boxes cover the whole domain, a cell outside all of them, found
/// at once); larger domains count as leaving fluid: a union of several solids covering such a domain is not
/// detected.
inline bool solids_leave_fluid(const std::vector<SolidConfig>& solids, const std::array<int, 3>& size) {
  if (one_solid_holds_every_cell(solids, size)) return false;
  const std::int64_t cells = std::int64_t(size[0]) * size[1] * size[2];
  if (cells > kSolidScanCells) return true;
  std::vector<CellRange> ranges;
  std::vector<Matrix3> rotations;
  for (const SolidConfig& s : solids) {
    ranges.push_back(solid_cell_range(s, size));
    rotations.push_back(rotation_matrix(s.rotate));
  }
  for (std::int64_t k = 0; k < size[2]; ++k)
    for (std::int64_t j = 0; j < size[1]; ++j)
      for (std::int64_t i = 0; i < size[0]; ++i) {
        bool solid = false;
        for (std::size_t n = 0; n < solids.size() && !solid; ++n) {
          const CellRange& r = ranges[n];
          const bool in_range =
              i >= r.lo[0] && i < r.hi[0] && j >= r.lo[1] && j < r.hi[1] && k >= r.lo[2] && k < r.hi[2];
          solid = in_range && inside_solid(solids[n], cell_centre({i, j, k}), rotations[n]);
        }
        if (!solid) return true;
      }
  return false;
}

}  // namespace eddy
