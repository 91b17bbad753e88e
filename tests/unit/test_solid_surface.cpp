// Tessellations of the [[solid]] shapes (solver/solid_surface.hpp): each surface is closed (every edge is shared by
// exactly two triangles, in opposite directions), turned outward (the divergence theorem gives a positive volume),
// its vertices lie on the shape, and its volume is the polyhedron's own: exactly the box, the 64-sided prism of the
// cylinder, and within 1 % of the sphere. Cylinders and boxes are clipped to the domain; a shape outside it has no
// triangles. A rotated box is turned about its centre; a mesh shows its own triangles, a voxels solid nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include "io/case_config.hpp"
#include "io/solid_files.hpp"
#include "solver/solid_shapes.hpp"
#include "solver/solid_surface.hpp"

namespace eddy {
namespace {

/// The volume enclosed by `m`: sum over the triangles of p0 . (p1 x p2) / 6 (positive for outward normals).
double enclosed_volume(const SurfaceMesh& m) {
  double v = 0.0;
  for (const auto& t : m.triangles) {
    const auto &a = m.points[std::size_t(t[0])], &b = m.points[std::size_t(t[1])], &c = m.points[std::size_t(t[2])];
    v += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return v / 6.0;
}

/// Every directed edge appears once and its reverse once: a closed, consistently oriented surface.
void expect_closed(const SurfaceMesh& m) {
  std::map<std::pair<std::int64_t, std::int64_t>, int> edges;
  for (const auto& t : m.triangles)
    for (int k = 0; k < 3; ++k) ++edges[{t[k], t[(k + 1) % 3]}];
  for (const auto& [edge, count] : edges) {
    EXPECT_EQ(count, 1) << m.name << ": edge " << edge.first << "-" << edge.second;
    EXPECT_EQ(edges.count({edge.second, edge.first}), 1u)
        << m.name << ": edge " << edge.first << "-" << edge.second << " has no twin";
  }
  for (const auto& t : m.triangles)
    EXPECT_TRUE(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) << m.name << ": a degenerate triangle";
}

SolidConfig sphere(std::array<double, 3> c, double r) {
  SolidConfig s;
  s.name = "ball";
  s.shape = SolidShape::sphere;
  s.center = c;
  s.radius = r;
  return s;
}

TEST(SolidSurface, SphereIsClosedOutwardAndOnTheSphere) {
  const SolidConfig s = sphere({10.5, 7.0, 3.25}, 4.0);
  const SurfaceMesh m = solid_surface(s, {32, 16, 8}, 3);
  EXPECT_EQ(m.label, 3);
  EXPECT_EQ(m.name, "ball");
  EXPECT_EQ(m.triangles.size(), std::size_t(2 * kSphereSegments * kSphereRings));
  expect_closed(m);
  for (const auto& p : m.points) EXPECT_NEAR(std::hypot(p[0] - 10.5, p[1] - 7.0, p[2] - 3.25), 4.0, 1e-12);
  const double exact = 4.0 / 3.0 * M_PI * 64.0, v = enclosed_volume(m);
  std::printf("sphere: tessellated volume / 4/3 pi r^3 = %.5f\n", v / exact);
  EXPECT_LT(v, exact);  // inscribed
  EXPECT_GT(v, 0.99 * exact);
}

TEST(SolidSurface, CylinderIsAClippedPrism) {
  SolidConfig s;
  s.name = "post";
  s.shape = SolidShape::cylinder;
  s.start = {12.0, 8.0, -5.0};  // the axis runs past both z faces of a domain 8 deep: drawn from z = 0 to 8
  s.end = {12.0, 8.0, 13.0};
  s.radius = 3.0;
  const SurfaceMesh m = solid_surface(s, {32, 16, 8}, 1);
  expect_closed(m);
  const int n = kCylinderSegments;
  const double prism = 8.0 * 0.5 * n * 9.0 * std::sin(2.0 * M_PI / n);  // L times the n-gon's area
  EXPECT_NEAR(enclosed_volume(m), prism, 1e-10 * prism);
  for (const auto& p : m.points) {
    EXPECT_GE(p[2], -1e-12);
    EXPECT_LE(p[2], 8.0 + 1e-12);
  }
  // A tilted axis, wholly inside: the prism of its own length.
  s.start = {4.0, 4.0, 2.0};
  s.end = {10.0, 7.0, 6.0};
  s.radius = 1.5;
  const SurfaceMesh tilted = solid_surface(s, {32, 16, 8}, 1);
  expect_closed(tilted);
  const double length = std::sqrt(36.0 + 9.0 + 16.0);
  EXPECT_NEAR(enclosed_volume(tilted), length * 0.5 * n * 2.25 * std::sin(2.0 * M_PI / n), 1e-9);
}

TEST(SolidSurface, BoxIsClippedToTheDomain) {
  SolidConfig s;
  s.name = "step";
  s.shape = SolidShape::box;
  s.min = {-2.0, 1.0, 0.5};
  s.max = {5.0, 4.0, 20.0};
  const SurfaceMesh m = solid_surface(s, {32, 16, 8}, 2);
  ASSERT_EQ(m.triangles.size(), 12u);
  expect_closed(m);
  EXPECT_NEAR(enclosed_volume(m), 5.0 * 3.0 * 7.5, 1e-12);  // x from 0 to 5, z from 0.5 to 8
  s.min = {40.0, 0.0, 0.0};
  s.max = {50.0, 4.0, 4.0};
  EXPECT_TRUE(solid_surface(s, {32, 16, 8}, 2).triangles.empty());  // outside the domain: nothing to draw
}

TEST(SolidSurface, RotatedBoxIsTurnedAboutItsCentre) {
  // rotate turns the 12 triangles about the box's centre (not clipped: a turned box has no axis-aligned faces to
  // clip): every vertex lies on a corner of the box in its own frame, q = R^T (p - c) = (+-e_x, +-e_y, +-e_z) / 2,
  // and the volume is the box's. A quarter turn about z gives the corners of the box with x and y extents swapped.
  SolidConfig s;
  s.name = "turned";
  s.shape = SolidShape::box;
  s.min = {10.0, 5.0, 2.0};
  s.max = {16.0, 7.0, 5.0};
  const std::array<double, 3> c = {13.0, 6.0, 3.5}, half = {3.0, 1.0, 1.5};
  for (const std::array<double, 3>& rotate : {std::array<double, 3>{20, 35, -50}, std::array<double, 3>{0, 0, 90}}) {
    s.rotate = rotate;
    const SurfaceMesh m = solid_surface(s, {32, 16, 8}, 1);
    ASSERT_EQ(m.triangles.size(), 12u);
    expect_closed(m);
    EXPECT_NEAR(enclosed_volume(m), 6.0 * 2.0 * 3.0, 1e-9);
    const Matrix3 r = rotation_matrix(rotate);
    for (const auto& p : m.points) {
      const double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
      for (int a = 0; a < 3; ++a) {
        const double q = r[0][a] * d[0] + r[1][a] * d[1] + r[2][a] * d[2];
        EXPECT_NEAR(std::abs(q), half[a], 1e-12) << "rotate " << rotate[2];
      }
    }
    if (rotate[2] == 90.0) {
      for (const auto& p : m.points) {
        EXPECT_NEAR(std::abs(p[0] - c[0]), 1.0, 1e-12);
        EXPECT_NEAR(std::abs(p[1] - c[1]), 3.0, 1e-12);
      }
    }
  }
}

TEST(SolidSurface, MeshesShowTheirOwnTrianglesAndVoxelsNone) {
  // A mesh solid's surface is its triangles as transformed into lattice units (io/solid_files.hpp), not clipped;
  // a voxels solid has none (the solid field shows its cells).
  SolidConfig m;
  m.name = "tetra";
  m.shape = SolidShape::mesh;
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = {{1, 1, 1}, {40, 2, 1}, {3, 12, 2}, {4, 3, 9}};
  mesh->triangles = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
  m.surface = mesh;
  const SurfaceMesh s = solid_surface(m, {32, 16, 8}, 2);
  EXPECT_EQ(s.label, 2);
  EXPECT_EQ(s.name, "tetra");
  ASSERT_EQ(s.points.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(s.points[k], mesh->vertices[k]);  // x = 40: beyond the domain, kept
  ASSERT_EQ(s.triangles.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    for (int v = 0; v < 3; ++v) EXPECT_EQ(s.triangles[k][v], mesh->triangles[k][std::size_t(v)]);
  SolidConfig rock;
  rock.name = "rock";
  rock.shape = SolidShape::voxels;
  EXPECT_TRUE(solid_surface(rock, {32, 16, 8}, 3).triangles.empty());
}

TEST(SolidSurface, OneSurfacePerSolidLabelledInFileOrder) {
  CaseConfig c;
  c.size = {32, 16, 8};
  c.solids = {sphere({8, 8, 4}, 3), sphere({20, 8, 4}, 2)};
  c.solids[1].name = "small";
  const std::vector<SurfaceMesh> all = solid_surfaces(c);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].label, 1);
  EXPECT_EQ(all[1].label, 2);
  EXPECT_EQ(all[1].name, "small");
}

}  // namespace
}  // namespace eddy
