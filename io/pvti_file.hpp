// The .pvti (parallel VTK ImageData) file of an MPI run: one XML index that ParaView opens as a single dataset,
// pointing at the .vti pieces that each rank writes with write_vti (io/vtk_output.hpp, GridGeometry::offset).
// Plain text, no VTK library needed: available in every build.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace eddy {

/// One point-data array that every piece holds (same name, component count and type in each piece).
struct PvtiArray {
  std::string name;
  int components;  ///< 1 (scalar), 3 (vector) or 6 (symmetric tensor)
  bool float64;    ///< Float64 (double) if true, Float32 (float) otherwise
};

/// One piece: nodes offset .. offset + size - 1 per axis of the global grid, stored in `file`.
struct PvtiPiece {
  std::array<int, 3> offset;  ///< global index of the piece's first node (GridGeometry::offset)
  std::array<int, 3> size;    ///< nodes per axis (GridGeometry::size)
  std::string file;           ///< relative to the .pvti's directory
};

/// Writes the .pvti (PImageData) atomically: WholeExtent 0..global_size-1, GhostLevel 0, Origin, Spacing,
/// PPointData with Scalars="density" / Vectors="velocity" when such arrays exist (1 / 3 components), one
/// PDataArray per array (type Float32/Float64), one Piece per piece (Extent from offset/size, Source = file).
/// Header: version="1.0" byte_order="LittleEndian" header_type="UInt64". Numbers are written exactly
/// (format_exact), names XML-escaped. Point-data pieces must share one layer of nodes with their neighbours
/// (piece A's last index == piece B's first) or ParaView shows a gap: that is the caller's job.
/// Throws std::invalid_argument for malformed arguments (global size < 1, no pieces, a piece empty or outside the
/// global grid, an empty file name, an unnamed/duplicate array or one with other than 1, 3 or 6 components,
/// non-finite origin/spacing) and OutputError when the file cannot be written.
void write_pvti(const std::string& path, const std::array<int, 3>& global_size, const std::array<double, 3>& origin,
                const std::array<double, 3>& spacing, const std::vector<PvtiArray>& arrays,
                const std::vector<PvtiPiece>& pieces);

}  // namespace eddy
