// Tessellations of the analytic [[solid]] shapes, and a mesh's own triangles (solver/solid_surface.hpp).
#include "solver/solid_surface.hpp"

#include <cmath>

#include "io/solid_files.hpp"
#include "solver/solid_reference.hpp"

namespace eddy {
namespace {

using Triangle = std::array<std::int64_t, 3>;

Point3 add(const Point3& a, const Point3& b, double scale = 1.0) {
  return {a[0] + scale * b[0], a[1] + scale * b[1], a[2] + scale * b[2]};
}

Point3 cross(const Point3& a, const Point3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// Points at centre + r (sin t cos p, sin t sin p, cos t): the north pole, kSphereRings rings from north to south,
/// the south pole. A quad of rings i, i + 1 and segments j, j + 1 is split into (i j, i+1 j, i+1 j+1) and
/// (i j, i+1 j+1, i j+1): e_theta x e_phi = e_r, outward.
void tessellate_sphere(const SolidConfig& s, SurfaceMesh& m) {
  const int rings = kSphereRings, segments = kSphereSegments;
  m.points.push_back(add(s.center, {0.0, 0.0, s.radius}));
  for (int i = 1; i <= rings; ++i) {
    const double theta = M_PI * double(i) / double(rings + 1);
    for (int j = 0; j < segments; ++j) {
      const double phi = 2.0 * M_PI * double(j) / double(segments);
      m.points.push_back(
          add(s.center, {std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)}, s.radius));
    }
  }
  m.points.push_back(add(s.center, {0.0, 0.0, -s.radius}));
  const std::int64_t north = 0, south = std::int64_t(m.points.size()) - 1;
  const auto at = [&](int ring, int j) { return std::int64_t(1 + (ring - 1) * segments + (j % segments)); };
  for (int j = 0; j < segments; ++j) m.triangles.push_back({north, at(1, j), at(1, j + 1)});
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      m.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      m.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  for (int j = 0; j < segments; ++j) m.triangles.push_back({at(rings, j), south, at(rings, j + 1)});
}

/// Circles of kCylinderSegments points round the clipped axis a -> b (unit e, with u x v = e), the cap centres
/// last. Side (A_j, A_j+1, B_j+1), (A_j, B_j+1, B_j): e_phi x e = e_rho; caps fanned round their centres.
void tessellate_cylinder(const SolidConfig& s, const std::array<int, 3>& size, SurfaceMesh& m) {
  Point3 a = s.start, b = s.end;
  if (!clip_segment(a, b, size)) return;
  const Point3 e = unit_vector({b[0] - a[0], b[1] - a[1], b[2] - a[2]});
  if (dot3(e, e) == 0.0) return;
  // u: the coordinate axis least aligned with e, made perpendicular to it.
  int least = 0;
  for (int k = 1; k < 3; ++k)
    if (std::abs(e[k]) < std::abs(e[least])) least = k;
  Point3 axis{};
  axis[least] = 1.0;
  const Point3 u = unit_vector(add(axis, e, -dot3(axis, e)));
  const Point3 v = cross(e, u);
  const int n = kCylinderSegments;
  for (const Point3& end : {a, b})
    for (int j = 0; j < n; ++j) {
      const double phi = 2.0 * M_PI * double(j) / double(n);
      m.points.push_back(add(add(end, u, s.radius * std::cos(phi)), v, s.radius * std::sin(phi)));
    }
  m.points.push_back(a);
  m.points.push_back(b);
  const std::int64_t ca = 2 * n, cb = 2 * n + 1;
  const auto A = [&](int j) { return std::int64_t(j % n); };
  const auto B = [&](int j) { return std::int64_t(n + j % n); };
  for (int j = 0; j < n; ++j) {
    m.triangles.push_back({A(j), A(j + 1), B(j + 1)});
    m.triangles.push_back({A(j), B(j + 1), B(j)});
    m.triangles.push_back({ca, A(j + 1), A(j)});
    m.triangles.push_back({cb, B(j), B(j + 1)});
  }
}

/// The 8 corners of the clipped box (index x + 2 y + 4 z of lo/hi), each face as two triangles turned outward.
void tessellate_box(const SolidConfig& s, const std::array<int, 3>& size, SurfaceMesh& m) {
  Point3 lo{}, hi{};
  clipped_box(s, size, lo, hi);
  if (rotated(s)) {  // turned about its centre (not clipped)
    lo = s.min;
    hi = s.max;
  }
  for (int a = 0; a < 3; ++a)
    if (!(lo[a] < hi[a])) return;
  const Matrix3 r = rotation_matrix(s.rotate);
  const Point3 centre = {0.5 * (s.min[0] + s.max[0]), 0.5 * (s.min[1] + s.max[1]), 0.5 * (s.min[2] + s.max[2])};
  for (int c = 0; c < 8; ++c) {
    const Point3 corner = {(c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1], (c & 4) ? hi[2] : lo[2]};
    if (!rotated(s)) {
      m.points.push_back(corner);
      continue;
    }
    const Point3 turned = rotate_point(r, {corner[0] - centre[0], corner[1] - centre[1], corner[2] - centre[2]});
    m.points.push_back({centre[0] + turned[0], centre[1] + turned[1], centre[2] + turned[2]});
  }
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int p = (axis + 1) % 3, q = (axis + 2) % 3;  // (axis, p, q) right-handed: e_p x e_q = e_axis
      const auto corner = [&](int dp, int dq) { return std::int64_t((side << axis) | (dp << p) | (dq << q)); };
      if (side == 1) {  // outward +axis: counter-clockwise in (p, q)
        m.triangles.push_back({corner(0, 0), corner(1, 0), corner(1, 1)});
        m.triangles.push_back({corner(0, 0), corner(1, 1), corner(0, 1)});
      } else {
        m.triangles.push_back({corner(0, 0), corner(1, 1), corner(1, 0)});
        m.triangles.push_back({corner(0, 0), corner(0, 1), corner(1, 1)});
      }
    }
}

}  // namespace

SurfaceMesh solid_surface(const SolidConfig& s, const std::array<int, 3>& size, int label) {
  SurfaceMesh m;
  m.name = s.name;
  m.label = label;
  switch (s.shape) {
    case SolidShape::sphere:
      tessellate_sphere(s, m);
      break;
    case SolidShape::cylinder:
      tessellate_cylinder(s, size, m);
      break;
    case SolidShape::box:
      tessellate_box(s, size, m);
      break;
    case SolidShape::mesh:  // its own triangles, transformed (io/solid_files.hpp), as read: not clipped
      if (s.surface) {
        m.points = s.surface->vertices;
        for (const auto& t : s.surface->triangles) m.triangles.push_back({t[0], t[1], t[2]});
      }
      break;
    case SolidShape::voxels:  // no surface: the `solid` field shows its cells (ParaView: Threshold)
      break;
  }
  return m;
}

std::vector<SurfaceMesh> solid_surfaces(const CaseConfig& config) {
  std::vector<SurfaceMesh> surfaces;
  for (std::size_t k = 0; k < config.solids.size(); ++k)
    surfaces.push_back(solid_surface(config.solids[k], config.size, int(k) + 1));
  return surfaces;
}

}  // namespace eddy
