// Test helpers for [[solid]] meshes and voxel files: writers of binary and ASCII STL, OBJ, PLY and .vti files
// (plain code, independent of the readers under test), the distance from a point to a triangle, and a cube mesh.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/solid_files.hpp"

namespace eddy::test {

/// Binary STL: 80-byte header (not starting with "solid"), the triangle count, then per triangle a zero normal,
/// three vertices (float32) and a zero attribute word.
inline void write_binary_stl(const std::string& path, const TriangleMesh& mesh) {
  std::ofstream out(path, std::ios::binary);
  char header[80] = {0};
  std::strncpy(header, "eddy test mesh (binary)", sizeof header - 1);
  out.write(header, 80);
  const std::uint32_t n = std::uint32_t(mesh.triangles.size());
  out.write(reinterpret_cast<const char*>(&n), 4);
  for (const auto& t : mesh.triangles) {
    const float normal[3] = {0.0f, 0.0f, 0.0f};
    out.write(reinterpret_cast<const char*>(normal), sizeof normal);
    for (int k = 0; k < 3; ++k) {
      const auto& v = mesh.vertices[std::size_t(t[std::size_t(k)])];
      const float p[3] = {float(v[0]), float(v[1]), float(v[2])};
      out.write(reinterpret_cast<const char*>(p), sizeof p);
    }
    const std::uint16_t attribute = 0;
    out.write(reinterpret_cast<const char*>(&attribute), 2);
  }
}

/// ASCII STL with 9 significant digits (the float coordinates of the binary file, read back exactly).
inline void write_ascii_stl(const std::string& path, const TriangleMesh& mesh) {
  std::ofstream out(path);
  out.precision(9);
  out << "solid test\n";
  for (const auto& t : mesh.triangles) {
    out << "  facet normal 0 0 0\n    outer loop\n";
    for (int k = 0; k < 3; ++k) {
      const auto& v = mesh.vertices[std::size_t(t[std::size_t(k)])];
      out << "      vertex " << float(v[0]) << " " << float(v[1]) << " " << float(v[2]) << "\n";
    }
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid test\n";
}

/// OBJ: "v x y z" lines and "f a b c" faces (1-based); `quads` pairs of triangles become one 4-sided face where they
/// were written as (a, b, c), (a, c, d) in a row (the cube below).
inline void write_obj(const std::string& path, const TriangleMesh& mesh, bool quads = false) {
  std::ofstream out(path);
  out.precision(17);
  out << "# eddy test mesh\n";
  for (const auto& v : mesh.vertices) out << "v " << v[0] << " " << v[1] << " " << v[2] << "\n";
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& a = mesh.triangles[t];
    if (quads && t + 1 < mesh.triangles.size()) {
      const auto& b = mesh.triangles[t + 1];
      out << "f " << a[0] + 1 << " " << a[1] + 1 << " " << a[2] + 1 << " " << b[2] + 1 << "\n";
      ++t;
      continue;
    }
    out << "f " << a[0] + 1 << " " << a[1] + 1 << " " << a[2] + 1 << "\n";
  }
}

/// ASCII PLY with float vertices and triangle faces.
inline void write_ply(const std::string& path, const TriangleMesh& mesh) {
  std::ofstream out(path);
  out.precision(9);
  out << "ply\nformat ascii 1.0\nelement vertex " << mesh.vertices.size()
      << "\nproperty float x\nproperty float y\nproperty float z\nelement face " << mesh.triangles.size()
      << "\nproperty list uchar int vertex_indices\nend_header\n";
  for (const auto& v : mesh.vertices) out << float(v[0]) << " " << float(v[1]) << " " << float(v[2]) << "\n";
  for (const auto& t : mesh.triangles) out << "3 " << t[0] << " " << t[1] << " " << t[2] << "\n";
}

/// A .vti (VTK XML ImageData, ASCII data) with one UInt8 array `name` of dims values on the points (or, `cells`, on
/// the cells of an image with dims + 1 points), x fastest.
inline void write_vti(const std::string& path, const std::array<int, 3>& dims, const std::vector<std::uint8_t>& values,
                      const std::string& name, bool cells = false, const std::string& extra_array = "") {
  const int p[3] = {dims[0] - (cells ? 0 : 1), dims[1] - (cells ? 0 : 1), dims[2] - (cells ? 0 : 1)};
  std::ofstream out(path);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      << "  <ImageData WholeExtent=\"0 " << p[0] << " 0 " << p[1] << " 0 " << p[2]
      << "\" Origin=\"3 4 5\" Spacing=\"0.5 0.5 0.5\">\n    <Piece Extent=\"0 " << p[0] << " 0 " << p[1] << " 0 "
      << p[2] << "\">\n";
  const char* section = cells ? "CellData" : "PointData";
  out << "      <" << section << ">\n        <DataArray type=\"UInt8\" Name=\"" << name << "\" format=\"ascii\">\n";
  for (std::uint8_t v : values) out << int(v) << " ";
  out << "\n        </DataArray>\n";
  if (!extra_array.empty()) {
    out << "        <DataArray type=\"Float32\" Name=\"" << extra_array << "\" format=\"ascii\">\n";
    for (std::size_t i = 0; i < values.size(); ++i) out << "0 ";
    out << "\n        </DataArray>\n";
  }
  out << "      </" << section << ">\n    </Piece>\n  </ImageData>\n</VTKFile>\n";
}

/// The axis-aligned box lo..hi as 12 triangles (two per face, written (a, b, c), (a, c, d) per face), facing out.
inline TriangleMesh box_mesh(const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  TriangleMesh m;
  for (int k = 0; k < 8; ++k)
    m.vertices.push_back({(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]});
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangles.push_back({f[0], f[1], f[2]});
    m.triangles.push_back({f[0], f[2], f[3]});
  }
  return m;
}

/// A closed prism round the z axis through (cx, cy): the regular n-gon with its vertices on the circle of radius r,
/// from z0 to z1 (flat caps fanned from their centres); its faces lie at most r (1 - cos(pi / n)) inside the circle.
inline TriangleMesh prism_mesh(double cx, double cy, double r, double z0, double z1, int n) {
  TriangleMesh m;
  for (int k = 0; k < n; ++k) {
    const double angle = 2.0 * M_PI * k / n;
    m.vertices.push_back({cx + r * std::cos(angle), cy + r * std::sin(angle), z0});
    m.vertices.push_back({cx + r * std::cos(angle), cy + r * std::sin(angle), z1});
  }
  const std::int32_t bottom = std::int32_t(m.vertices.size()), top = bottom + 1;
  m.vertices.push_back({cx, cy, z0});
  m.vertices.push_back({cx, cy, z1});
  for (int k = 0; k < n; ++k) {
    const std::int32_t a = 2 * k, b = 2 * ((k + 1) % n);
    m.triangles.push_back({a, b, b + 1});
    m.triangles.push_back({a, b + 1, a + 1});
    m.triangles.push_back({bottom, b, a});
    m.triangles.push_back({top, a + 1, b + 1});
  }
  return m;
}

/// The axis-aligned box lo..hi with every face split into n x n quads (two triangles each), facing out.
inline TriangleMesh tessellated_box(const std::array<double, 3>& lo, const std::array<double, 3>& hi, int n) {
  TriangleMesh m;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const auto at = [&](int i, int j) {
        std::array<double, 3> p{};
        p[std::size_t(axis)] = side ? hi[std::size_t(axis)] : lo[std::size_t(axis)];
        p[std::size_t(u)] = lo[std::size_t(u)] + (hi[std::size_t(u)] - lo[std::size_t(u)]) * i / n;
        p[std::size_t(v)] = lo[std::size_t(v)] + (hi[std::size_t(v)] - lo[std::size_t(v)]) * j / n;
        m.vertices.push_back(p);
        return std::int32_t(m.vertices.size() - 1);
      };
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const std::int32_t a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
          if (side) {
            m.triangles.push_back({a, b, c});
            m.triangles.push_back({a, c, d});
          } else {
            m.triangles.push_back({a, c, b});
            m.triangles.push_back({a, d, c});
          }
        }
    }
  }
  return m;
}

/// Distance from p to the triangle (a, b, c) (closest point: Ericson 2005, Real-Time Collision Detection, 5.1.5).
inline double point_triangle_distance(const std::array<double, 3>& p, const std::array<double, 3>& a,
                                      const std::array<double, 3>& b, const std::array<double, 3>& c) {
  const auto sub = [](const std::array<double, 3>& u, const std::array<double, 3>& v) {
    return std::array<double, 3>{u[0] - v[0], u[1] - v[1], u[2] - v[2]};
  };
  const auto dot = [](const std::array<double, 3>& u, const std::array<double, 3>& v) {
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  };
  const auto at = [&](double s, double t) {  // a + s (b - a) + t (c - a)
    std::array<double, 3> q{};
    for (int i = 0; i < 3; ++i) q[i] = a[i] + s * (b[i] - a[i]) + t * (c[i] - a[i]);
    return q;
  };
  const auto ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  std::array<double, 3> q;
  const auto bp = sub(p, b), cp = sub(p, c);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp), d5 = dot(ab, cp), d6 = dot(ac, cp);
  const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (d1 <= 0 && d2 <= 0) {
    q = a;
  } else if (d3 >= 0 && d4 <= d3) {
    q = b;
  } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    q = at(d1 / (d1 - d3), 0.0);
  } else if (d6 >= 0 && d5 <= d6) {
    q = c;
  } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    q = at(0.0, d2 / (d2 - d6));
  } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; ++i) q[i] = b[i] + w * (c[i] - b[i]);
  } else {
    const double denom = 1.0 / (va + vb + vc);
    q = at(vb * denom, vc * denom);
  }
  const auto d = sub(p, q);
  return std::sqrt(dot(d, d));
}

}  // namespace eddy::test
