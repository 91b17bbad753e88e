// solver/solid_reference.hpp: the default references of a [[solid]]'s force coefficients (host only, pure
// functions, lattice units): the drag and lift directions, the reference area (the shape's projection normal to the
// drag direction, the part inside the domain) and the reference length of the Strouhal number.
//
// The projected area of a convex body on the plane normal to a unit vector d is half the integral of |n . d| over
// its surface (Cauchy's projection formula), which gives for
//   sphere (radius r):                        pi r^2
//   cylinder (radius r, axis length L, cos t = axis . d):   2 r L sin t + pi r^2 |cos t|   (across the flow: 2 r L)
//   box (extents e_x, e_y, e_z):              |d_x| e_y e_z + |d_y| e_x e_z + |d_z| e_x e_y
// For the cylinder, L is the length of its axis inside the domain [0, n]^3 (an axis running past the domain's faces,
// as in a 2D case, counts only the part inside); the box is clipped to the domain first (a rotated box is not: its
// projection uses d' = R^T d in its own frame); the sphere is not clipped. Meshes and voxel files give theirs.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "io/case_config.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {

inline double dot3(const Point3& a, const Point3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// v / |v|; {0, 0, 0} for a zero (or non-finite) vector. v is first divided by its largest component's magnitude, so
/// |v|^2 neither underflows (1e-200) nor overflows (1e200) and the result has unit length to rounding for any finite
/// non-zero v.
inline Point3 unit_vector(const Point3& v) {
  const double m = std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
  if (!(m > 0.0) || !std::isfinite(m)) return {0.0, 0.0, 0.0};
  const Point3 w{v[0] / m, v[1] / m, v[2] / m};
  const double n = std::sqrt(dot3(w, w));
  return {w[0] / n, w[1] / n, w[2] / n};
}

/// The default drag direction of a case: along the body force (the mean flow of a body-force driven channel);
/// without one, into the domain through its first velocity inlet (kFaceNames order: the inlet's inward normal, the
/// mean flow between an inlet and an outlet); +x without either (unit vector).
inline Point3 default_drag_direction(const CaseConfig& config) {
  const Point3 f = unit_vector(config.body_force);
  if (dot3(f, f) > 0.0) return f;
  for (int face = 0; face < 6; ++face) {
    if (config.faces[face].kind != FaceKind::velocity_inlet) continue;
    Point3 inward{0.0, 0.0, 0.0};
    inward[face / 2] = face % 2 == 0 ? 1.0 : -1.0;
    return inward;
  }
  return {1.0, 0.0, 0.0};
}

/// The default lift direction for unit drag direction `d`: +y made perpendicular to d (Gram-Schmidt), or +x the same
/// way when d lies within 45 degrees of the y axis (unit vector).
inline Point3 default_lift_direction(const Point3& d) {
  const Point3 e = std::abs(d[1]) > std::sqrt(0.5) ? Point3{1.0, 0.0, 0.0} : Point3{0.0, 1.0, 0.0};
  const double along = dot3(e, d);
  return unit_vector({e[0] - along * d[0], e[1] - along * d[1], e[2] - along * d[2]});
}

/// Clips the segment a-b to the box [0, size] (Liang-Barsky); false when no part of it lies inside.
inline bool clip_segment(Point3& a, Point3& b, const std::array<int, 3>& size) {
  double t0 = 0.0, t1 = 1.0;
  for (int axis = 0; axis < 3; ++axis) {
    const double delta = b[axis] - a[axis];
    const double lo = 0.0 - a[axis], hi = double(size[axis]) - a[axis];
    if (delta == 0.0) {
      if (lo > 0.0 || hi < 0.0) return false;
      continue;
    }
    double enter = lo / delta, leave = hi / delta;
    if (enter > leave) std::swap(enter, leave);
    t0 = std::max(t0, enter);
    t1 = std::min(t1, leave);
    if (t0 > t1) return false;
  }
  const Point3 start = a;
  for (int axis = 0; axis < 3; ++axis) {
    a[axis] = start[axis] + t0 * (b[axis] - start[axis]);
    b[axis] = start[axis] + t1 * (b[axis] - start[axis]);
  }
  return true;
}

/// The box of `s` (a box solid) clipped to the domain [0, size]: lo >= hi on an axis where it misses.
inline void clipped_box(const SolidConfig& s, const std::array<int, 3>& size, Point3& lo, Point3& hi) {
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max(s.min[a], 0.0);
    hi[a] = std::min(s.max[a], double(size[a]));
  }
}

/// The length of a cylinder's axis inside the domain [0, size] (0 when it misses).
inline double axis_length_inside(const SolidConfig& s, const std::array<int, 3>& size) {
  Point3 a = s.start, b = s.end;
  if (!clip_segment(a, b, size)) return 0.0;
  const Point3 d = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  return std::sqrt(dot3(d, d));
}

/// The default reference area of solid `s` (lattice units, cells^2) for unit drag direction `d`: its projection on
/// the plane normal to d (the header's formulas), within the domain of `size` cells.
inline double projected_area(const SolidConfig& s, const Point3& d, const std::array<int, 3>& size) {
  switch (s.shape) {
    case SolidShape::sphere:
      return M_PI * s.radius * s.radius;
    case SolidShape::cylinder: {
      const Point3 axis = unit_vector({s.end[0] - s.start[0], s.end[1] - s.start[1], s.end[2] - s.start[2]});
      const double cos_t = std::min(1.0, std::abs(dot3(axis, d)));
      const double sin_t = std::sqrt(std::max(0.0, 1.0 - cos_t * cos_t));
      const double length = axis_length_inside(s, size);
      if (length <= 0.0) return 0.0;
      return 2.0 * s.radius * length * sin_t + M_PI * s.radius * s.radius * cos_t;
    }
    case SolidShape::box: {
      Point3 lo{}, hi{};
      clipped_box(s, size, lo, hi);
      Point3 e{}, dd = d;
      if (rotated(s)) {  // in the box's own frame, d' = R^T d (not clipped)
        lo = s.min;
        hi = s.max;
        const Matrix3 r = rotation_matrix(s.rotate);
        for (int a = 0; a < 3; ++a) dd[a] = r[0][a] * d[0] + r[1][a] * d[1] + r[2][a] * d[2];
      }
      for (int a = 0; a < 3; ++a) e[a] = hi[a] - lo[a];
      if (!(e[0] > 0.0 && e[1] > 0.0 && e[2] > 0.0)) return 0.0;  // the box misses the domain
      return std::abs(dd[0]) * e[1] * e[2] + std::abs(dd[1]) * e[0] * e[2] + std::abs(dd[2]) * e[0] * e[1];
    }
    case SolidShape::mesh:  // not derived (the file is read after the case): reference_area is required
    case SolidShape::voxels:
      return 0.0;
  }
  return 0.0;
}

/// The default reference length of the Strouhal number (cells): the diameter 2 r of a sphere or cylinder; for a box
/// its extent along unit lift direction `l` (the width of its projection on l: |l_x| e_x + |l_y| e_y + |l_z| e_z),
/// clipped to the domain like the area.
inline double default_reference_length(const SolidConfig& s, const Point3& l, const std::array<int, 3>& size) {
  if (s.shape == SolidShape::mesh || s.shape == SolidShape::voxels) return 0.0;  // not derived: required
  if (s.shape != SolidShape::box) return 2.0 * s.radius;
  Point3 lo{}, hi{}, ll = l;
  clipped_box(s, size, lo, hi);
  if (rotated(s)) {  // in the box's own frame, l' = R^T l (not clipped)
    lo = s.min;
    hi = s.max;
    const Matrix3 r = rotation_matrix(s.rotate);
    for (int a = 0; a < 3; ++a) ll[a] = r[0][a] * l[0] + r[1][a] * l[1] + r[2][a] * l[2];
  }
  double width = 0.0;
  for (int a = 0; a < 3; ++a) {
    if (!(hi[a] > lo[a])) return 0.0;  // the box misses the domain
    width += std::abs(ll[a]) * (hi[a] - lo[a]);
  }
  return width;
}

}  // namespace eddy
