// The mesh voxeliser (kernels/mesh_voxels.hpp, solver/mesh_voxeliser.hpp, solver/block_solids.hpp): the exact
// predicates (128-bit products, the tie rule on shared edges and vertices, the crossing cell), the device passes
// against the plain CPU reference bitwise, closed meshes whose rays all cross them an even number of times (also
// through vertices and edges), a tessellated sphere written as binary and ASCII STL against the analytic sphere of
// the same radius (cells may differ only between the sphere and the inscribed mesh), the transforms, and the
// rotated box.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/solid_files.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/mesh_voxels.hpp"
#include "solver/block_solids.hpp"
#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mesh_voxeliser.hpp"
#include "solver/tessellated_sphere.hpp"
#include "tests/file_helpers.hpp"
#include "tests/mesh_files.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using Vec = std::array<double, 3>;

MeshTriangle fixed(const Vec& a, const Vec& b, const Vec& c) {
  MeshTriangle t{};
  const Vec* v[3] = {&a, &b, &c};
  for (int k = 0; k < 3; ++k)
    for (int ax = 0; ax < 3; ++ax) t.v[k][ax] = std::llround(std::ldexp((*v[k])[std::size_t(ax)], kMeshFractionBits));
  return t;
}

std::int64_t centre_of(std::int64_t j) { return j * kMeshCell + kMeshHalfCell; }

// ---- the predicates ------------------------------------------------------------------------------------------------

TEST(MeshPredicates, WideProductAndSumsAreExact) {
  std::mt19937_64 rng(7);
  const std::int64_t extremes[] = {0,
                                   1,
                                   -1,
                                   (std::int64_t(1) << 62) - 1,
                                   -(std::int64_t(1) << 62),
                                   std::int64_t(1) << 32,
                                   (std::int64_t(1) << 32) - 1,
                                   -(std::int64_t(1) << 31)};
  const auto check = [](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    const __int128 exact = __int128(a) * b + __int128(c) * d;
    const Wide w = wide_add(wide_product(a, b), wide_product(c, d));
    const unsigned __int128 bits = (static_cast<unsigned __int128>(w.hi) << 64) | w.lo;
    EXPECT_EQ(static_cast<__int128>(bits), exact) << a << " " << b << " " << c << " " << d;
    EXPECT_EQ(wide_sign(w), exact < 0 ? -1 : exact > 0 ? 1 : 0);
  };
  for (std::int64_t a : extremes)
    for (std::int64_t b : extremes) check(a, b, -b, a);
  for (int n = 0; n < 20000; ++n) {
    const auto r = [&] { return std::int64_t(rng() >> 2) - (std::int64_t(1) << 61); };
    check(r(), r() >> (n % 40), r() >> (n % 23), r());
  }
}

TEST(MeshPredicates, RaysThroughSharedEdgesAndVerticesCrossOnce) {
  // A flat fan of 8 triangles around a vertex at a column centre (y, z) = (4.5, 6.5), in the plane x = 3.25, its
  // spokes along the axes and diagonals: every ray through the fan's inside (its centre, its spokes, the points
  // between) crosses exactly one triangle; rays outside cross none.
  const double cy = 4.5, cz = 6.5, x = 3.25;
  std::vector<MeshTriangle> fan;
  for (int k = 0; k < 8; ++k) {
    const double a0 = M_PI / 4 * k, a1 = M_PI / 4 * (k + 1);
    const double r = 2.0;  // spokes of length 2 along axes, 2 sqrt 2 along diagonals: the points stay on the grid
    const auto spoke = [&](double a, int j) {
      const double s = (j % 2 == 0) ? 1.0 : std::sqrt(2.0);
      return Vec{x, cy + std::round(r * s * std::cos(a)), cz + std::round(r * s * std::sin(a))};
    };
    fan.push_back(fixed({x, cy, cz}, spoke(a0, k), spoke(a1, k + 1)));
  }
  for (int j = 1; j <= 8; ++j)
    for (int k = 3; k <= 10; ++k) {
      int count = 0;
      for (const MeshTriangle& t : fan) {
        std::int64_t cell = 0;
        if (ray_crossing(t, centre_of(j), centre_of(k), cell)) {
          ++count;
          EXPECT_EQ(cell, 3);  // the plane x = 3.25 lies before the centre 3.5
        }
      }
      // The fan covers the square |dy|, |dz| <= 2 around the vertex; half-open by the tie rule: [-2, 2).
      const double dy = j + 0.5 - cy, dz = k + 0.5 - cz;
      const int expected = (dy >= -2 && dy < 2 && dz >= -2 && dz < 2) ? 1 : 0;
      EXPECT_EQ(count, expected) << "column " << j << ", " << k;
    }
  // A silhouette: two triangles folded over their shared edge (both on the same side of it in (y, z)): a ray
  // through the edge crosses both or neither, never one.
  // The shared edge runs from (y, z) = (2.5, 2.5) to (2.5, 6.5), through the centres of column y = 2.
  const Vec a{3, 2.5, 2.5}, b{3, 2.5, 6.5};
  const MeshTriangle up = fixed(a, b, {1, 5.5, 4.5});
  const MeshTriangle down = fixed(b, a, {5, 4.5, 3.5});
  int through = 0;
  for (int k = 1; k <= 7; ++k) {
    std::int64_t cell = 0;
    const bool u = ray_crossing(up, centre_of(2), centre_of(k), cell);
    EXPECT_EQ(u, ray_crossing(down, centre_of(2), centre_of(k), cell)) << "column 2, " << k;
    through += u;
  }
  // z centres 3.5, 4.5, 5.5 (the ends are vertices: the perturbed ray passes beside the pair there).
  EXPECT_EQ(through, 3);
  // And two triangles on either side of that edge (not folded) share each ray through it exactly once.
  const MeshTriangle left = fixed(a, b, {3, 0.5, 4.5});
  for (int k = 3; k <= 5; ++k) {
    std::int64_t cell = 0;
    EXPECT_NE(ray_crossing(up, centre_of(2), centre_of(k), cell), ray_crossing(left, centre_of(2), centre_of(k), cell))
        << "column 2, " << k;
  }
}

TEST(MeshPredicates, CrossingCellIsTheFirstCentreAtOrBeyondTheCrossing) {
  // Random triangles and columns inside them: the cell from the exact search against the crossing computed in long
  // double (far from a tie): the smallest i with x_cross <= i + 1/2.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-40.0, 40.0);
  int checked = 0;
  for (int n = 0; n < 20000; ++n) {
    const Vec a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)}, c{u(rng), u(rng), u(rng)};
    const MeshTriangle t = fixed(a, b, c);
    const std::int64_t j = std::int64_t(std::floor(u(rng))), k = std::int64_t(std::floor(u(rng)));
    std::int64_t cell = 0;
    const bool hit = ray_crossing(t, centre_of(j), centre_of(k), cell);
    // The same question in long double on the snapped vertices.
    long double p[3][3];
    for (int q = 0; q < 3; ++q)
      for (int ax = 0; ax < 3; ++ax) p[q][ax] = std::ldexp((long double)t.v[q][ax], -kMeshFractionBits);
    const long double py = j + 0.5L, pz = k + 0.5L;
    const auto e = [&](int q, int r) {
      return (p[r][1] - p[q][1]) * (pz - p[q][2]) - (p[r][2] - p[q][2]) * (py - p[q][1]);
    };
    long double area = (p[1][1] - p[0][1]) * (p[2][2] - p[0][2]) - (p[1][2] - p[0][2]) * (p[2][1] - p[0][1]);
    const long double wa = e(1, 2), wb = e(2, 0), wc = e(0, 1);
    const long double s = area < 0 ? -1.0L : 1.0L;
    const long double margin = 1e-9L * std::abs(area);
    if (std::abs(wa) < margin || std::abs(wb) < margin || std::abs(wc) < margin) continue;  // near a tie
    const bool inside = s * wa > 0 && s * wb > 0 && s * wc > 0;
    EXPECT_EQ(hit, inside) << "triangle " << n;
    if (!hit || !inside) continue;
    const long double x = (wa * p[0][0] + wb * p[1][0] + wc * p[2][0]) / (wa + wb + wc);
    const long double frac = x - 0.5L - std::floor(x - 0.5L);
    if (frac < 1e-9L || frac > 1 - 1e-9L) continue;
    EXPECT_EQ(cell, std::int64_t(std::ceil(x - 0.5L))) << "triangle " << n << ", x " << double(x);
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

// ---- the device passes against the CPU reference -----------------------------------------------------------------

/// A channel 44 x 22 x 18: periodic in x and z, walls in y (46 samples along x with the ghosts: two words per ray).
CaseConfig channel() {
  CaseConfig c = test::box_case(44, 22, 18, 0.8);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  finalize_case(c);
  return c;
}

/// The serial block and pieces of a 2 x 2 x 3 split of `c`.
std::vector<Decomposition> blocks(const CaseConfig& c) {
  std::vector<Decomposition> out = {serial_decomposition(c)};
  for (int bx = 0; bx < 2; ++bx)
    for (int by = 0; by < 2; ++by)
      for (int bz = 0; bz < 3; ++bz) {
        Decomposition d = out[0];
        const int b[3] = {bx, by, bz}, parts[3] = {2, 2, 3};
        for (int a = 0; a < 3; ++a) {
          const int n = c.size[a] / parts[a];
          d.offset[a] = b[a] * n;
          d.local_size[a] = b[a] == parts[a] - 1 ? c.size[a] - b[a] * n : n;
        }
        out.push_back(d);
      }
  return out;
}

/// Triangles of `mesh` (lattice coordinates) for the domain of `c`.
std::vector<MeshTriangle> triangles_of(const TriangleMesh& mesh, const CaseConfig& c) {
  return fixed_point_triangles(mesh, c.size, "test mesh");
}

void expect_device_equals_reference(const std::vector<MeshTriangle>& all, const CaseConfig& c, bool repair,
                                    const std::string& what) {
  for (const Decomposition& d : blocks(c)) {
    const VoxelSamples samples = block_samples(c, d, repair ? 2 : 0);
    const std::vector<MeshTriangle> triangles = triangles_for(all, samples);
    const MeshVoxels device = voxelise_mesh(triangles, samples, repair);
    const MeshVoxels reference = voxelise_mesh_reference(triangles, samples, repair);
    // The reference over all triangles: the selection drops only triangles that cross no sampled ray.
    const MeshVoxels unselected = voxelise_mesh_reference(all, samples, repair);
    const std::string where = what + ", block at " + std::to_string(d.offset[0]) + ", " + std::to_string(d.offset[1]) +
                              ", " + std::to_string(d.offset[2]);
    EXPECT_EQ(device.crossings, reference.crossings) << where;
    EXPECT_EQ(device.bits, reference.bits) << where;
    EXPECT_EQ(unselected.bits, reference.bits) << where;
    std::size_t set = 0;
    for (std::uint32_t w : device.bits) set += std::size_t(__builtin_popcount(w));
    if (d.local_size == c.size) EXPECT_GT(set, 0u) << where;
  }
}

TEST(MeshVoxeliser, DeviceEqualsCpuReferenceBitwise) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = channel();
  // A sphere at a generic position, one centred on a cell centre (its poles on a ray, its meridians through ray
  // centres), one cut by the periodic x face and the y wall, a rotated box, and an axis-aligned box whose faces pass
  // through cell centres.
  std::vector<std::pair<std::string, TriangleMesh>> meshes;
  meshes.push_back({"generic sphere", uv_sphere({30.3, 10.7, 8.9}, 6.3, 17, 31)});
  meshes.push_back({"sphere on a cell centre", uv_sphere({14.5, 11.5, 9.5}, 5.0, 12, 24)});
  meshes.push_back({"sphere across the faces", uv_sphere({1.2, 19.0, 9.0}, 5.5, 14, 28)});
  SolidConfig turn;
  turn.rotate = {17.0, -31.0, 53.0};
  turn.translate = {31.0, 11.0, 9.0};
  meshes.push_back({"rotated box", transformed_mesh(test::box_mesh({-5, -3, -2}, {5, 3, 2}), turn)});
  meshes.push_back({"box through centres", test::box_mesh({3.5, 2.5, 4.5}, {40.5, 15.5, 12.5})});
  for (const auto& [what, mesh] : meshes) {
    const std::vector<MeshTriangle> all = triangles_of(mesh, c);
    expect_device_equals_reference(all, c, false, what);
    expect_device_equals_reference(all, c, true, what + " (repair)");
  }
  // An open sphere (a band of triangles removed): odd rays, and their repair, alike.
  TriangleMesh open = uv_sphere({30.3, 10.7, 8.9}, 6.3, 17, 31);
  open.triangles.erase(open.triangles.begin() + 200, open.triangles.begin() + 230);
  expect_device_equals_reference(triangles_of(open, c), c, true, "open sphere (repair)");
  expect_device_equals_reference(triangles_of(open, c), c, false, "open sphere");
}

TEST(MeshVoxeliser, ClosedMeshesCrossEveryRayAnEvenNumberOfTimes) {
  EDDY_REQUIRE_DEVICE();
  // Rays through poles, meridians and box edges: the tie rule keeps every count even, and the parity fill then ends
  // each ray outside.
  const CaseConfig c = channel();
  const TriangleMesh meshes[] = {uv_sphere({14.5, 11.5, 9.5}, 5.0, 12, 24), uv_sphere({14.5, 11.5, 9.5}, 7.0, 2, 4),
                                 test::box_mesh({3.5, 2.5, 4.5}, {20.5, 15.5, 12.5}),
                                 test::box_mesh({3.0, 2.0, 4.0}, {20.0, 15.0, 12.0})};
  for (const TriangleMesh& mesh : meshes) {
    const VoxelSamples samples = block_samples(c, serial_decomposition(c), 0);
    const MeshVoxels v = voxelise_mesh(triangles_of(mesh, c), samples, false);
    std::size_t crossed = 0;
    for (std::size_t col = 0; col < v.crossings.size(); ++col) {
      EXPECT_EQ(v.crossings[col] % 2, 0u) << "column " << col;
      crossed += v.crossings[col] > 0;
    }
    EXPECT_GT(crossed, 10u);
  }
}

TEST(MeshVoxeliser, AnAxisAlignedBoxCoversHalfOpenCellRanges) {
  EDDY_REQUIRE_DEVICE();
  // Faces through cell centres: the cells 2..4 of a box from 2.5 to 5.5 on every axis (the centre 2.5 is inside where
  // the ray enters, 5.5 outside where it leaves, and the same in y and z by the perturbed ray); faces between
  // centres: the cells whose centres lie between them.
  const CaseConfig c = channel();
  const Decomposition d = serial_decomposition(c);
  for (const auto& [lo, hi, first, last] :
       {std::tuple<double, double, int, int>{2.5, 5.5, 2, 4}, {2.0, 6.0, 2, 5}, {2.2, 5.9, 2, 5}}) {
    const VoxelSamples samples = block_samples(c, d, 0);
    const MeshVoxels v = voxelise_mesh(triangles_of(test::box_mesh({lo, lo, lo}, {hi, hi, hi}), c), samples, false);
    for (int z = 1; z <= c.size[2]; ++z)
      for (int y = 1; y <= c.size[1]; ++y)
        for (int x = 1; x <= c.size[0]; ++x) {
          // Copies: capturing structured bindings is C++20, which hipcc's clang 14 refuses in C++17.
          const int from = first, to = last;
          const auto in = [from, to](int l) { return l - 1 >= from && l - 1 <= to; };
          EXPECT_EQ(v.inside(x, y, z), in(x) && in(y) && in(z))
              << lo << ".." << hi << ": cell " << x - 1 << ", " << y - 1 << ", " << z - 1;
        }
  }
}

TEST(MeshVoxeliser, RepairFillClosesASmallHoleExactly) {
  EDDY_REQUIRE_DEVICE();
  // A box whose faces are split into quads of about a cell, one quad of its x_min face removed: the rays through the
  // hole cross it once; each has closed neighbours within two columns, whose cells along x are the box's, so
  // repair = "fill" gives exactly the closed box's cells, on every block of a decomposition.
  const CaseConfig c = channel();
  const Vec lo{5.3, 3.3, 3.3}, hi{33.3, 17.3, 14.3};
  const TriangleMesh closed = test::tessellated_box(lo, hi, 14);
  TriangleMesh open = closed;
  // The x_min face comes first: its middle quad (y 10.3 .. 11.3, z 8.8 .. 9.59) holds the ray at (10.5, 9.5).
  open.triangles.erase(open.triangles.begin() + 2 * (7 * 14 + 7), open.triangles.begin() + 2 * (7 * 14 + 7) + 2);
  const std::vector<MeshTriangle> with_hole = triangles_of(open, c), whole = triangles_of(closed, c);
  for (const Decomposition& d : blocks(c)) {
    const VoxelSamples samples = block_samples(c, d, 2);
    const MeshVoxels repaired = voxelise_mesh(triangles_for(with_hole, samples), samples, true);
    const MeshVoxels broken = voxelise_mesh(triangles_for(with_hole, samples), samples, false);
    const MeshVoxels reference = voxelise_mesh(triangles_for(whole, samples), samples, false);
    std::size_t odd = 0, wrong = 0;
    for (unsigned long long n : repaired.crossings) odd += n % 2;
    for (std::size_t w = 0; w < broken.bits.size(); ++w) wrong += broken.bits[w] != reference.bits[w];
    if (d.local_size == c.size) {
      EXPECT_GT(odd, 0u);
      EXPECT_GT(wrong, 0u);  // unrepaired, the odd rays stay inside beyond the box
    }
    EXPECT_EQ(repaired.bits, reference.bits)
        << "block at " << d.offset[0] << ", " << d.offset[1] << ", " << d.offset[2];
  }
}

TEST(MeshVoxeliser, BlockFlagsEqualTheOneRankFlagsAndPeriodicGhostsCopyTheirCells) {
  EDDY_REQUIRE_DEVICE();
  // A mesh sphere across the periodic x face (cut off there: bodies are not repeated across periodic faces) and an
  // open box repaired across the blocks: each block's flags, ghost layer included, equal the one-rank flags of the
  // same global cells; a ghost across the periodic x face has the flag of the cell it copies.
  CaseConfig c = channel();
  SolidConfig ball, box;
  ball.name = "ball";
  ball.shape = SolidShape::mesh;
  ball.surface = std::make_shared<const TriangleMesh>(transformed_mesh(uv_sphere({1.3, 9.7, 7.9}, 5.2, 16, 32), ball));
  TriangleMesh open = test::tessellated_box({14.0, 6.2, 9.2}, {30.3, 11.0, 15.0}, 8);
  open.triangles.erase(open.triangles.begin() + 2 * 7 * 8, open.triangles.begin() + 2 * 8 * 8);
  box.name = "box";
  box.shape = SolidShape::mesh;
  box.repair = MeshRepair::fill;
  box.surface = std::make_shared<const TriangleMesh>(transformed_mesh(open, box));
  c.solids = {ball, box};
  finalize_case(c);
  const Decomposition serial = serial_decomposition(c);
  const BlockShape whole = block_shape(serial);
  const std::vector<CellFlag> reference = build_flags(c, serial);
  std::size_t solid = 0;
  for (int z = 0; z <= c.size[2] + 1; ++z)
    for (int y = 1; y <= c.size[1]; ++y) {  // (the rows beyond the y walls are walls)
      EXPECT_EQ(is_solid(reference[whole.index(0, y, z)]), is_solid(reference[whole.index(c.size[0], y, z)]))
          << y << ", " << z;
      EXPECT_EQ(is_solid(reference[whole.index(c.size[0] + 1, y, z)]), is_solid(reference[whole.index(1, y, z)]))
          << y << ", " << z;
      solid += reference[whole.index(1, y, z)] == kWall;
    }
  EXPECT_GT(solid, 20u);  // the sphere reaches x = 0
  for (const Decomposition& d : blocks(c)) {
    const BlockShape shape = block_shape(d);
    const std::vector<CellFlag> flags = build_flags(c, d);
    for (int z = 0; z < shape.n[2] + 2; ++z)
      for (int y = 0; y < shape.n[1] + 2; ++y)
        for (int x = 0; x < shape.n[0] + 2; ++x) {
          const int g[3] = {d.offset[0] + x, d.offset[1] + y, d.offset[2] + z};
          const CellFlag f = flags[shape.index(x, y, z)], r = reference[whole.index(g[0], g[1], g[2])];
          if (is_solid(f) || is_solid(r)) {
            EXPECT_EQ(f, r) << "block at " << d.offset[0] << ", " << d.offset[1] << ", " << d.offset[2] << ", cell "
                            << x << ", " << y << ", " << z;
          }
        }
  }
}

// ---- a tessellated sphere against the analytic sphere -------------------------------------------------------------

/// The solid cells of `c` (serial block, interior), by build_flags.
std::vector<bool> solid_cells(const CaseConfig& c) {
  const Decomposition d = serial_decomposition(c);
  const BlockShape shape = block_shape(d);
  const std::vector<CellFlag> flags = build_flags(c, d);
  std::vector<bool> out;
  for (int z = 1; z <= c.size[2]; ++z)
    for (int y = 1; y <= c.size[1]; ++y)
      for (int x = 1; x <= c.size[0]; ++x) out.push_back(flags[std::size_t(shape.index(x, y, z))] == kWall);
  return out;
}

TEST(MeshSphere, StlSpheresDifferFromTheAnalyticSphereOnlyBetweenTheTwoSurfaces) {
  EDDY_REQUIRE_DEVICE();
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: built without VTK (mesh files need its readers)";
  test::TempDir dir;
  // Every vertex of a UV sphere lies on the sphere, so the mesh lies in the shell r - delta <= |p - c| <= r, delta
  // = r - (distance from c to the nearest face); rounding the vertices (float in STL, then 2^-16 cells) moves the
  // surface by less than eps. A cell centre can therefore be solid in one and not the other only when
  // r - delta - eps <= |p - c| <= r + eps; everywhere else they agree. The differing cells are counted and bounded by
  // the cells whose centres lie in that shell (counted directly).
  const double eps = 1e-4;  // float coordinates of magnitude < 64: 4e-6; fixed point: 2^-17 sqrt 3 = 1.3e-5
  struct Sphere {
    Vec centre;
    double radius;
    int n_lat;
  };
  // (Centred on x = 32 .. 33: the rays' inside runs cross the first word of 32 samples.)
  for (const Sphere& sp : {Sphere{{32.5, 16.5, 14.5}, 9.0, 10}, Sphere{{31.83, 16.21, 14.37}, 10.4, 24},
                           Sphere{{31.83, 16.21, 14.37}, 10.4, 60}}) {
    const TriangleMesh mesh = uv_sphere(sp.centre, sp.radius, sp.n_lat, 2 * sp.n_lat);
    double nearest = sp.radius;
    for (const auto& t : mesh.triangles) {
      nearest = std::min(
          nearest, test::point_triangle_distance(sp.centre, mesh.vertices[std::size_t(t[0])],
                                                 mesh.vertices[std::size_t(t[1])], mesh.vertices[std::size_t(t[2])]));
    }
    const double delta = sp.radius - nearest;
    for (const bool binary : {true, false}) {
      const std::string file = dir.file(binary ? "ball.stl" : "ball_ascii.stl");
      binary ? test::write_binary_stl(file, mesh) : test::write_ascii_stl(file, mesh);
      CaseConfig analytic = test::box_case(48, 32, 30, 0.8);
      SolidConfig ball;
      ball.name = "ball";
      ball.shape = SolidShape::sphere;
      ball.center = sp.centre;
      ball.radius = sp.radius;
      analytic.solids = {ball};
      finalize_case(analytic);
      CaseConfig meshed = test::box_case(48, 32, 30, 0.8);
      SolidConfig m;
      m.name = "ball";
      m.shape = SolidShape::mesh;
      m.file = file;
      meshed.solids = {m};
      finalize_case(meshed);
      load_solid_files(meshed);
      const std::vector<bool> a = solid_cells(analytic), b = solid_cells(meshed);
      std::int64_t differ = 0, shell = 0, only_mesh = 0, solid = 0;
      std::size_t n = 0;
      for (int z = 0; z < 30; ++z)
        for (int y = 0; y < 32; ++y)
          for (int x = 0; x < 48; ++x, ++n) {
            const double r = std::sqrt(std::pow(x + 0.5 - sp.centre[0], 2) + std::pow(y + 0.5 - sp.centre[1], 2) +
                                       std::pow(z + 0.5 - sp.centre[2], 2));
            const bool in_shell = r >= sp.radius - delta - eps && r <= sp.radius + eps;
            shell += in_shell;
            solid += a[n];
            if (a[n] == b[n]) continue;
            ++differ;
            only_mesh += b[n];
            EXPECT_TRUE(in_shell) << "cell " << x << ", " << y << ", " << z << " at r = " << r << " (sphere "
                                  << sp.radius << ", delta " << delta << ")";
          }
      const std::string what =
          std::string(binary ? "binary" : "ASCII") + " STL, " + std::to_string(mesh.triangles.size()) + " triangles";
      EXPECT_LE(differ, shell) << what;
      EXPECT_GT(solid, 3000) << what;
      std::printf(
          "[ info ] %s, r = %.2f: %lld cells differ (%lld solid in the mesh only) of %lld solid; bound: "
          "%lld centres in the shell (delta %.4f)\n",
          what.c_str(), sp.radius, (long long)differ, (long long)only_mesh, (long long)solid, (long long)shell, delta);
    }
  }
}

// ---- wall distances of interpolated walls -------------------------------------------------------------------------

TEST(MeshWalls, WallDistancesLieBetweenTheSphereAndItsInscribedShell) {
  EDDY_REQUIRE_DEVICE();
  // A mesh sphere (vertices on the sphere of radius r, in memory: double coordinates) with interpolated walls: its
  // surface lies between the spheres of radius r - delta and r, so along every cut link the mesh is entered no
  // earlier than the outer sphere and no later than the inner one (or the link's end when it misses the inner
  // sphere): q_r <= q <= q_(r - delta). The sphere crosses the periodic x face, so links across it are checked too.
  CaseConfig c = channel();
  const Vec centre{2.3, 11.2, 9.1};
  const double r = 6.4;
  const TriangleMesh sphere = uv_sphere(centre, r, 40, 80);
  double nearest = r;
  for (const auto& t : sphere.triangles) {
    nearest = std::min(
        nearest, test::point_triangle_distance(centre, sphere.vertices[std::size_t(t[0])],
                                               sphere.vertices[std::size_t(t[1])], sphere.vertices[std::size_t(t[2])]));
  }
  SolidConfig mesh;
  mesh.name = "ball";
  mesh.shape = SolidShape::mesh;
  mesh.surface = std::make_shared<const TriangleMesh>(transformed_mesh(sphere, mesh));
  c.solids = {mesh};
  finalize_case(c);
  SolidConfig outer, inner;
  outer.shape = inner.shape = SolidShape::sphere;
  outer.center = inner.center = centre;
  outer.radius = r;
  inner.radius = nearest;
  const std::array<bool, 3> periodic = {true, false, true};
  for (const Decomposition& d : blocks(c)) {
    const BlockSolids solids(c, d);
    const std::vector<CellFlag> flags = build_flags(c, d, solids);
    const CutLinkList list = cut_links(c, d, flags, solids);
    std::size_t checked = 0, across = 0;
    for (const CutLink& link : list.links) {
      const int cv[3] = {d3q19::c(link.dir, 0), d3q19::c(link.dir, 1), d3q19::c(link.dir, 2)};
      // The fluid node as cut_links sees it: the image next to the solid node's (wrapped) global cell.
      std::array<std::int64_t, 3> g{};
      solids.solid_at(link.x + cv[0], link.y + cv[1], link.z + cv[2], g);
      const Vec p = {g[0] + 0.5 - cv[0], g[1] + 0.5 - cv[1], g[2] + 0.5 - cv[2]};
      const Vec step = {double(cv[0]), double(cv[1]), double(cv[2])};
      const double q_outer = wall_distance(outer, p, step, c.size, periodic);
      double q_inner = wall_distance(inner, p, step, c.size, periodic);
      if (q_inner < 0.0) q_inner = 1.0;
      if (q_outer < 0.0) continue;  // rounding: the solid node within a hair of the sphere (the cells decide)
      EXPECT_GE(link.q, q_outer - 1e-12) << "link " << link.cell << " dir " << link.dir;
      EXPECT_LE(link.q, q_inner + 1e-12) << "link " << link.cell << " dir " << link.dir;
      ++checked;
      across += p[0] < 0.0 || p[0] >= c.size[0];
    }
    if (d.local_size == c.size) {
      EXPECT_GT(checked, 500u);
      EXPECT_GT(across, 10u);
      EXPECT_GT(list.interpolated, 500);  // q is not 1/2: the links are interpolated
    }
  }
}

TEST(MeshWalls, VoxelWallsAreHalfWayAndAQuarterTurnedBoxKeepsItsWallDistances) {
  EDDY_REQUIRE_DEVICE();
  // A voxel body's surface lies on the faces between cells: q = 1/2 on every link (half-way, none interpolated).
  CaseConfig c = channel();
  SolidConfig rock;
  rock.name = "rock";
  rock.shape = SolidShape::voxels;
  VoxelGrid grid;
  grid.dims = {5, 4, 3};
  grid.solid.assign(60, 1);
  rock.voxel_grid = std::make_shared<const VoxelGrid>(finished_voxel_grid(grid));
  rock.offset = {10, 8, 6};
  rock.wall = SolidWall::halfway;  // its only wall (interpolated is refused on voxels)
  c.solids = {rock};
  finalize_case(c);
  CutLinkList list = cut_links(c, serial_decomposition(c), build_flags(c, serial_decomposition(c)));
  EXPECT_GT(list.links.size(), 50u);
  EXPECT_EQ(list.interpolated, 0);
  for (const CutLink& link : list.links) EXPECT_EQ(link.q, 0.5);
  // A box turned by 90 degrees about z has the wall distances of the unturned box with swapped extents (to rounding).
  const auto links_of = [&](const Vec& lo, const Vec& hi, const Vec& rotate) {
    CaseConfig b = channel();
    SolidConfig box;
    box.name = "box";
    box.shape = SolidShape::box;
    box.min = lo;
    box.max = hi;
    box.rotate = rotate;
    b.solids = {box};
    finalize_case(b);
    return cut_links(b, serial_decomposition(b), build_flags(b, serial_decomposition(b))).links;
  };
  const std::vector<CutLink> turned = links_of({10.2, 7.7, 4.3}, {16.6, 10.1, 11.8}, {0, 0, 90});
  const std::vector<CutLink> plain = links_of({12.2, 5.7, 4.3}, {14.6, 12.1, 11.8}, {0, 0, 0});
  ASSERT_EQ(turned.size(), plain.size());
  ASSERT_GT(turned.size(), 100u);
  for (std::size_t n = 0; n < turned.size(); ++n) {
    EXPECT_EQ(turned[n].cell, plain[n].cell);
    EXPECT_EQ(turned[n].dir, plain[n].dir);
    EXPECT_NEAR(turned[n].q, plain[n].q, 1e-12) << n;
  }
}

TEST(MeshWalls, AMeshBoxHasTheCellsAndWallDistancesOfTheBoxShape) {
  EDDY_REQUIRE_DEVICE();
  // The same box as a shape (wall distances by slabs, a rotated one's in its own frame: solver/solid_shapes.hpp) and
  // as 12 triangles (ray-triangle crossings: BlockSolids::link_wall_distance), two independent computations: on every
  // block of a decomposition they give the same cells and the same cut links, with q equal to rounding. A mesh
  // turned by `rotate` about its file origin and moved to the box's centre is the box turned about its centre. One
  // box is turned by generic angles, one lies across the periodic x face (its wall on the face there), one is plain.
  struct Box {
    Vec lo, hi, rotate;
  };
  for (const Box& b : {Box{{9.3, 5.6, 4.2}, {21.7, 13.15, 11.9}, {23.0, -37.0, 61.0}},
                       Box{{-3.35, 4.3, 6.1}, {5.2, 15.8, 12.45}, {0.0, 0.0, 0.0}},
                       Box{{14.1, 2.7, 3.4}, {30.9, 17.35, 13.6}, {0.0, 0.0, 0.0}}}) {
    CaseConfig shape = channel(), mesh = channel();
    SolidConfig box;
    box.name = "box";
    box.shape = SolidShape::box;
    box.min = b.lo;
    box.max = b.hi;
    box.rotate = b.rotate;
    shape.solids = {box};
    finalize_case(shape);
    Vec half{}, centre{};
    for (int a = 0; a < 3; ++a) {
      half[a] = 0.5 * (b.hi[a] - b.lo[a]);
      centre[a] = 0.5 * (b.lo[a] + b.hi[a]);
    }
    SolidConfig m;
    m.name = "box";
    m.shape = SolidShape::mesh;
    m.rotate = b.rotate;
    m.translate = centre;
    m.surface = std::make_shared<const TriangleMesh>(
        transformed_mesh(test::box_mesh({-half[0], -half[1], -half[2]}, half), m));
    mesh.solids = {m};
    finalize_case(mesh);
    const std::string what = "box rotated by " + std::to_string(b.rotate[0]) + ", " + std::to_string(b.rotate[1]) +
                             ", " + std::to_string(b.rotate[2]) + " at x " + std::to_string(b.lo[0]);
    for (const Decomposition& d : blocks(shape)) {
      const BlockSolids shape_solids(shape, d), mesh_solids(mesh, d);
      const std::vector<CellFlag> flags = build_flags(shape, d, shape_solids);
      ASSERT_EQ(build_flags(mesh, d, mesh_solids), flags) << what;
      const CutLinkList a = cut_links(shape, d, flags, shape_solids), e = cut_links(mesh, d, flags, mesh_solids);
      ASSERT_EQ(a.links.size(), e.links.size()) << what;
      EXPECT_EQ(a.interpolated, e.interpolated) << what;
      for (std::size_t n = 0; n < a.links.size(); ++n) {
        ASSERT_EQ(a.links[n].cell, e.links[n].cell) << what << ", link " << n;
        ASSERT_EQ(a.links[n].dir, e.links[n].dir) << what << ", link " << n;
        EXPECT_NEAR(e.links[n].q, a.links[n].q, 1e-12) << what << ", link " << n;
      }
      if (d.local_size == shape.size) {
        EXPECT_GT(a.links.size(), 400u) << what;
        EXPECT_GT(a.interpolated, 200) << what;
      }
    }
  }
}

TEST(MeshWalls, TrianglesFarLargerThanTheBlockGiveThePlanesWallDistances) {
  EDDY_REQUIRE_DEVICE();
  // A tetrahedron whose top face, 16000 cells wide, is the tilted plane z = 6 + 0.15 x + 0.1 y through a walled
  // 44 x 22 x 18 domain and whose apex lies 9000 cells below: inside the domain the solid is the half space under the
  // plane. Along a cut link from p (above) to p + c (below) the plane is met at t = f(p) / (f(p) - f(p + c)),
  // f = z - 6 - 0.15 x - 0.1 y. Triangles are listed only in the cells near the block that their plane crosses
  // (BlockSolids::index_triangles): listing each in its whole bounding box would take about 10^12 cells here.
  CaseConfig c = test::box_case(44, 22, 18, 0.8);
  const auto f = [](const Vec& x) { return x[2] - 6.0 - 0.15 * x[0] - 0.1 * x[1]; };
  TriangleMesh tetra;
  tetra.vertices = {{-8000, -8000, -1994}, {8000, -8000, 406}, {0, 9000, 906}, {0, 0, -9000}};
  tetra.triangles = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {2, 0, 3}};
  SolidConfig ground;
  ground.name = "ground";
  ground.shape = SolidShape::mesh;
  ground.surface = std::make_shared<const TriangleMesh>(transformed_mesh(tetra, ground));
  c.solids = {ground};
  finalize_case(c);
  for (const Decomposition& d : blocks(c)) {
    const BlockSolids solids(c, d);
    const CutLinkList list = cut_links(c, d, build_flags(c, d, solids), solids);
    std::size_t checked = 0;
    for (const CutLink& link : list.links) {
      const int cv[3] = {d3q19::c(link.dir, 0), d3q19::c(link.dir, 1), d3q19::c(link.dir, 2)};
      const Vec p = {d.offset[0] + link.x - 0.5, d.offset[1] + link.y - 0.5, d.offset[2] + link.z - 0.5};
      const Vec b = {p[0] + cv[0], p[1] + cv[1], p[2] + cv[2]};
      ASSERT_GT(f(p), 0.0) << "the fluid node lies above the plane";
      ASSERT_LE(f(b), 1e-9) << "the solid node lies under the plane";
      EXPECT_NEAR(link.q, f(p) / (f(p) - f(b)), 1e-12) << "link " << link.cell << " dir " << link.dir;
      ++checked;
    }
    if (d.local_size == c.size) {
      EXPECT_GT(checked, 1500u);
      EXPECT_GT(list.interpolated, 1000);
    }
  }
}

// ---- transforms and the rotated box --------------------------------------------------------------------------------

TEST(MeshTransform, ScaleThenRotateAboutXYZThenTranslate) {
  TriangleMesh unit;
  unit.vertices = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 2, 3}};
  unit.triangles = {{0, 1, 2}};
  const auto moved = [&](const Vec& scale, const Vec& rotate, const Vec& translate) {
    SolidConfig s;
    s.scale = scale;
    s.rotate = rotate;
    s.translate = translate;
    return transformed_mesh(unit, s).vertices;
  };
  // Quarter turns are exact: about x, y maps to z; about y, z maps to x; about z, x maps to y.
  EXPECT_EQ(moved({1, 1, 1}, {90, 0, 0}, {0, 0, 0})[1], (Vec{0, 0, 1}));
  EXPECT_EQ(moved({1, 1, 1}, {0, 90, 0}, {0, 0, 0})[2], (Vec{1, 0, 0}));
  EXPECT_EQ(moved({1, 1, 1}, {0, 0, 90}, {0, 0, 0})[0], (Vec{0, 1, 0}));
  // The order: first about x, then about y: y -> z -> x.
  EXPECT_EQ(moved({1, 1, 1}, {90, 90, 0}, {0, 0, 0})[1], (Vec{1, 0, 0}));
  // (about y then x would give y -> y -> z.) And z: x -> x (about x) -> -z (about y) -> -z (about z).
  EXPECT_EQ(moved({1, 1, 1}, {90, 90, 90}, {0, 0, 0})[0], (Vec{0, 0, -1}));
  // Scale first (per axis), translate last.
  EXPECT_EQ(moved({2, 3, 4}, {0, 0, 90}, {10, 20, 30})[3], (Vec{10 - 6, 20 + 2, 30 + 12}));
  // A general angle about z: (1, 0, 0) -> (cos, sin, 0).
  const Vec turned = moved({1, 1, 1}, {0, 0, 30}, {0, 0, 0})[0];
  EXPECT_NEAR(turned[0], std::sqrt(3.0) / 2, 1e-15);
  EXPECT_NEAR(turned[1], 0.5, 1e-15);
}

TEST(MeshTransform, MetresUnderUnitsBecomeCells) {
  // [units] with dx = 0.01 m: scale 0.5 (file units to m) and translate 0.2 m become 50 cells per file unit and 20
  // cells; the voxel offset 0.05 m becomes 5 cells.
  const std::string text =
      "[domain]\nsize = [64, 32, 32]\n[units]\ndx = 0.01\nvelocity = 1.0\nviscosity = 1e-3\n[run]\nsteps = 1\n"
      "[[solid]]\nname = \"m\"\nmesh = \"m.stl\"\nscale = 0.5\nrotate = [0, 0, 90]\ntranslate = [0.2, 0.1, 0.15]\n"
      "[[solid]]\nname = \"v\"\nvoxels = \"v.raw\"\ndimensions = [2, 2, 2]\noffset = [0.05, 0, 0.1]\n";
  const CaseConfig c = parse_case(text, "/cases/units.toml");
  ASSERT_EQ(c.solids.size(), 2u);
  EXPECT_NEAR(c.solids[0].scale[0], 50.0, 1e-12);
  EXPECT_NEAR(c.solids[0].translate[0], 20.0, 1e-12);
  EXPECT_NEAR(c.solids[0].translate[2], 15.0, 1e-12);
  EXPECT_EQ(c.solids[0].rotate, (Vec{0, 0, 90}));
  EXPECT_EQ(c.solids[0].file, "/cases/m.stl");  // relative to the case file's directory
  EXPECT_EQ(c.solids[1].offset, (Vec{5, 0, 10}));
  EXPECT_EQ(c.solids[1].file, "/cases/v.raw");
  const TriangleMesh m = transformed_mesh(TriangleMesh{{{1, 0, 0}}, {}}, c.solids[0]);
  EXPECT_NEAR(m.vertices[0][0], 20.0, 1e-12);
  EXPECT_NEAR(m.vertices[0][1], 10.0 + 50.0, 1e-12);
}

TEST(BoxRotation, QuarterTurnsAreExactAndOtherAnglesTurnTheBox) {
  // Rotated 90 degrees about z around its centre (5, 5, 2), the box x 2..8, y 4..6 becomes x 4..6, y 2..8: the same
  // cells as the unrotated box with those corners.
  const auto flags_of = [](SolidConfig s) {
    CaseConfig c = test::box_case(12, 12, 6, 0.8);
    s.name = "b";
    s.shape = SolidShape::box;
    c.solids = {s};
    finalize_case(c);
    return solid_cells(c);
  };
  SolidConfig turned, plain;
  turned.min = {2, 4, 0};
  turned.max = {8, 6, 4};
  turned.rotate = {0, 0, 90};
  plain.min = {4, 2, 0};
  plain.max = {6, 8, 4};
  EXPECT_EQ(flags_of(turned), flags_of(plain));
  turned.rotate = {180, 0, 0};  // about x: the box onto itself
  plain.min = {2, 4, 0};
  plain.max = {8, 6, 4};
  EXPECT_EQ(flags_of(turned), flags_of(plain));
  // 45 degrees about z: cell centres p with |q_x|, |q_y| within the half-widths, q = R^T (p - c), written out here.
  SolidConfig diagonal;
  diagonal.min = {3, 5, 1};
  diagonal.max = {9, 7, 3};
  diagonal.rotate = {0, 0, 45};
  const std::vector<bool> cells = flags_of(diagonal);
  std::size_t n = 0, count = 0;
  for (int z = 0; z < 6; ++z)
    for (int y = 0; y < 12; ++y)
      for (int x = 0; x < 12; ++x, ++n) {
        const double dx = x + 0.5 - 6.0, dy = y + 0.5 - 6.0, dz = z + 0.5 - 2.0;
        const double qx = (dx + dy) / std::sqrt(2.0), qy = (dy - dx) / std::sqrt(2.0);
        const bool inside = std::abs(qx) <= 3.0 && std::abs(qy) <= 1.0 && std::abs(dz) <= 1.0;
        EXPECT_EQ(cells[n], inside) << "cell " << x << ", " << y << ", " << z;
        count += cells[n];
      }
  EXPECT_GT(count, 12u);
  // The unrotated box is not what the rotated one covers.
  diagonal.rotate = {0, 0, 0};
  EXPECT_NE(flags_of(diagonal), cells);
}

}  // namespace
}  // namespace eddy
