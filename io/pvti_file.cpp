// write_pvti (see pvti_file.hpp): the PImageData index of a run's .vti pieces. Plain text, no VTK needed.
//
// Format (VTK XML "PImageData"):
//   <?xml version="1.0"?>
//   <VTKFile type="PImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
//     <PImageData WholeExtent="0 6 0 4 0 2" GhostLevel="0" Origin="0 0 0" Spacing="1 1 1">
//       <PPointData Scalars="density" Vectors="velocity">
//         <PDataArray type="Float32" Name="density" NumberOfComponents="1"/>
//         <PDataArray type="Float32" Name="velocity" NumberOfComponents="3"/>
//       </PPointData>
//       <Piece Extent="0 3 0 4 0 2" Source="run_000100/piece_0.vti"/>
//       <Piece Extent="3 6 0 4 0 2" Source="run_000100/piece_1.vti"/>
//     </PImageData>
//   </VTKFile>
#include "io/pvti_file.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "io/xml_text.hpp"

namespace eddy {
namespace {

/// Rejects malformed arguments (programming errors, not output errors): std::invalid_argument.
void check_arguments(const std::string& path, const std::array<int, 3>& global_size,
                     const std::array<double, 3>& origin, const std::array<double, 3>& spacing,
                     const std::vector<PvtiArray>& arrays, const std::vector<PvtiPiece>& pieces) {
  const std::string where = "write_pvti('" + path + "'): ";
  for (int axis = 0; axis < 3; ++axis) {
    if (global_size[axis] < 1) throw std::invalid_argument(where + "global size must be >= 1");
    if (!std::isfinite(origin[axis]) || !std::isfinite(spacing[axis])) {
      throw std::invalid_argument(where + "origin and spacing must be finite");
    }
  }
  std::set<std::string> names;
  for (const PvtiArray& array : arrays) {
    if (array.name.empty()) throw std::invalid_argument(where + "an array has no name");
    if (!names.insert(array.name).second) throw std::invalid_argument(where + "duplicate array '" + array.name + "'");
    if (array.components != 1 && array.components != 3 && array.components != 6) {
      throw std::invalid_argument(where + "array '" + array.name + "' must have 1, 3 or 6 components");
    }
  }
  if (pieces.empty()) throw std::invalid_argument(where + "no pieces");
  for (const PvtiPiece& piece : pieces) {
    if (piece.file.empty()) throw std::invalid_argument(where + "a piece has no file name");
    for (int axis = 0; axis < 3; ++axis) {
      const std::int64_t first = piece.offset[axis];
      const std::int64_t last = first + piece.size[axis] - 1;
      if (piece.size[axis] < 1 || first < 0 || last >= global_size[axis]) {
        throw std::invalid_argument(where + "piece '" + piece.file + "' is empty or outside the global grid");
      }
    }
  }
}

/// "x y z" with every number exact.
std::string triple(const std::array<double, 3>& v) {
  return format_exact(v[0]) + " " + format_exact(v[1]) + " " + format_exact(v[2]);
}

/// VTK extent "x0 x1 y0 y1 z0 z1" of the nodes offset .. offset + size - 1.
std::string extent(const std::array<int, 3>& offset, const std::array<int, 3>& size) {
  std::string text;
  for (int axis = 0; axis < 3; ++axis) {
    if (axis > 0) text += ' ';
    text += std::to_string(offset[axis]) + " " + std::to_string(offset[axis] + size[axis] - 1);
  }
  return text;
}

}  // namespace

void write_pvti(const std::string& path, const std::array<int, 3>& global_size, const std::array<double, 3>& origin,
                const std::array<double, 3>& spacing, const std::vector<PvtiArray>& arrays,
                const std::vector<PvtiPiece>& pieces) {
  check_arguments(path, global_size, origin, spacing, arrays, pieces);
  std::string active;  // the same active attributes as write_vti sets on each piece
  for (const PvtiArray& array : arrays) {
    if (array.name == "density" && array.components == 1) active += " Scalars=\"density\"";
  }
  for (const PvtiArray& array : arrays) {
    if (array.name == "velocity" && array.components == 3) active += " Vectors=\"velocity\"";
  }
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <PImageData WholeExtent=\"" +
      extent({0, 0, 0}, global_size) + "\" GhostLevel=\"0\" Origin=\"" + triple(origin) + "\" Spacing=\"" +
      triple(spacing) + "\">\n" + "    <PPointData" + active + ">\n";
  for (const PvtiArray& array : arrays) {
    text += std::string("      <PDataArray type=\"") + (array.float64 ? "Float64" : "Float32") + "\" Name=\"" +
            xml_escape(array.name) + "\" NumberOfComponents=\"" + std::to_string(array.components) + "\"/>\n";
  }
  text += "    </PPointData>\n";
  for (const PvtiPiece& piece : pieces) {
    text +=
        "    <Piece Extent=\"" + extent(piece.offset, piece.size) + "\" Source=\"" + xml_escape(piece.file) + "\"/>\n";
  }
  text += "  </PImageData>\n</VTKFile>\n";
  write_file_atomically(path, text);
}

}  // namespace eddy
