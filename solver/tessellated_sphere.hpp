// solver/tessellated_sphere.hpp: a UV sphere as a triangle mesh, built in memory, for `eddy bench --voxelise` and
// the voxeliser's tests (a closed, consistently oriented mesh of a known shape and any size).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "io/solid_files.hpp"

namespace eddy {

/// The sphere of `radius` around `centre` (lattice coordinates), poles on the x axis through the centre: n_lat bands
/// of latitude theta = pi i / n_lat (i = 0 at +x) and n_lon meridians phi = 2 pi j / n_lon, the vertex of (i, j) at
/// centre + radius (cos theta, sin theta cos phi, sin theta sin phi) (each pole once). Triangles: a fan at each pole
/// and two per quad between neighbouring rings, 2 n_lon (n_lat - 1) in all, counter-clockwise seen from outside.
/// Every vertex lies on the sphere, so the mesh is inscribed: it lies inside the ball, within the sphere's radius
/// minus the distance from the centre to its nearest face. n_lat >= 2, n_lon >= 3. Bounding box, volume and centroid
/// are not set (transformed_mesh sets them).
inline TriangleMesh uv_sphere(const std::array<double, 3>& centre, double radius, int n_lat, int n_lon) {
  TriangleMesh mesh;
  mesh.vertices.push_back({centre[0] + radius, centre[1], centre[2]});
  for (int i = 1; i < n_lat; ++i) {
    const double theta = M_PI * double(i) / double(n_lat);
    for (int j = 0; j < n_lon; ++j) {
      const double phi = 2.0 * M_PI * double(j) / double(n_lon);
      mesh.vertices.push_back({centre[0] + radius * std::cos(theta),
                               centre[1] + radius * std::sin(theta) * std::cos(phi),
                               centre[2] + radius * std::sin(theta) * std::sin(phi)});
    }
  }
  mesh.vertices.push_back({centre[0] - radius, centre[1], centre[2]});
  const std::int32_t south = std::int32_t(mesh.vertices.size() - 1);
  const auto ring = [&](int i, int j) { return std::int32_t(1 + (i - 1) * n_lon + (j % n_lon)); };
  for (int j = 0; j < n_lon; ++j) mesh.triangles.push_back({0, ring(1, j), ring(1, j + 1)});
  for (int i = 1; i + 1 < n_lat; ++i) {
    for (int j = 0; j < n_lon; ++j) {
      mesh.triangles.push_back({ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)});
      mesh.triangles.push_back({ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)});
    }
  }
  for (int j = 0; j < n_lon; ++j) mesh.triangles.push_back({south, ring(n_lat - 1, j + 1), ring(n_lat - 1, j)});
  return mesh;
}

/// Latitude bands of a UV sphere of about `triangles` triangles with n_lon = 2 n_lat (faces near square at the
/// equator): n_lat = round(sqrt(triangles / 4)), at least 2.
inline int uv_sphere_bands(std::int64_t triangles) {
  const double n = std::round(std::sqrt(double(triangles) / 4.0));
  return n < 2.0 ? 2 : int(n);
}

}  // namespace eddy
