// io/surface_output.hpp: the surfaces of the [[solid]] bodies as one VTK PolyData file (.vtp), written once per run
// and listed in the fluid's .pvd with every snapshot (PvdCollection::set_static_parts), so ParaView draws the bodies
// over the flow. The writer takes a triangle list per solid, whatever made it: the tessellated analytic shapes
// (solver/solid_surface.hpp) or a mesh read from a file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/vtk_compression.hpp"

namespace eddy {

/// A closed triangulated surface of one solid, in global lattice coordinates (cells: the domain spans
/// [0, nx] x [0, ny] x [0, nz], cell i has its centre at i + 0.5).
struct SurfaceMesh {
  std::string name;  ///< the solid's name
  int label = 0;     ///< its value in the `solid` output field: 1 + its index among the case's solids
  std::vector<std::array<double, 3>> points;
  /// Point indices of each triangle, counter-clockwise seen from outside (outward normals).
  std::vector<std::array<std::int64_t, 3>> triangles;
};

/// Writes `surfaces` into one .vtp at `path` atomically, through vtkXMLPolyDataWriter (appended raw binary, UInt64
/// headers, Int64 ids, raw or compressed by `compression` as the snapshots): the points of all surfaces divided by
/// `length_scale` (the fluid's OutputScaling length, so the bodies lie where the .vti puts their cells), their
/// triangles as polygons, cell data "solid" (Int32, the surface's label, to colour or threshold by body), field data
/// "solid_names" (one string per surface, in order) and "units" ("coordinates: <length_units>" when length_units is not
/// empty). Throws std::invalid_argument for a triangle naming a point it does not have or a length_scale that is not
/// finite and > 0, and OutputError naming `path` when it cannot be written; in a build without VTK
/// (EDDY_WITH_VTK=OFF, io/surface_output_unavailable.cpp) always OutputError, as the .vti writer.
void write_surfaces_vtp(const std::string& path, const std::vector<SurfaceMesh>& surfaces, double length_scale,
                        const std::string& length_units, VtkCompression compression = VtkCompression::none);

}  // namespace eddy
