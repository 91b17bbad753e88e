// solver/solid_surface.hpp: triangulated surfaces of the [[solid]] shapes, for the .vtp that ParaView overlays on
// the flow (io/surface_output.hpp). Host only. A solid read from a mesh file brings its own triangle list; the
// analytic shapes are tessellated here, closed and with outward normals, in global lattice coordinates:
//   sphere    a latitude-longitude net: kSphereRings rings of kSphereSegments points between two poles (its
//             vertices on the sphere; volume 0.7 % short of 4/3 pi r^3);
//   cylinder  kCylinderSegments points round each end cap, side and caps as triangles (a prism of that many
//             sides); its axis clipped to the domain [0, n]^3 as the reference area is (solver/solid_reference.hpp),
//             so a cylinder across a 2D domain is drawn as thick as the domain, not as long as written;
//   box       its 6 faces as 12 triangles, clipped to the domain (turned with it by rotate);
//   mesh      the file's triangles as transformed (io/solid_files.hpp), not clipped;
//   voxels    none (the `solid` output field shows its cells).
#pragma once

#include <array>
#include <vector>

#include "io/case_config.hpp"
#include "io/surface_output.hpp"

namespace eddy {

inline constexpr int kSphereRings = 24;       ///< latitude rings between the poles (plus the two poles)
inline constexpr int kSphereSegments = 48;    ///< points round each ring
inline constexpr int kCylinderSegments = 64;  ///< points round each end of a cylinder

/// The surface of solid `s` (finalized, lattice units) in a domain of `size` cells, labelled `label`; no triangles
/// for a cylinder or box that lies wholly outside the domain.
SurfaceMesh solid_surface(const SolidConfig& s, const std::array<int, 3>& size, int label);

/// The surfaces of every solid of `config`, labelled 1, 2, ... in file order (the `solid` field's values).
std::vector<SurfaceMesh> solid_surfaces(const CaseConfig& config);

}  // namespace eddy
