// VTK output for ParaView: XML ImageData (.vti) snapshots and the .pvd collection that indexes them by time.
// In MPI runs each rank writes its piece as a .vti (GridGeometry::offset) and rank 0 writes the .pvti that joins
// them (io/pvti_file.hpp); the .pvd then lists the .pvti files.
//
// Written through the VTK library (vtkXMLImageDataWriter): binary appended data with UInt64 headers, so arrays over
// 4 GiB work; raw, or compressed by VTK's zlib or LZ4 compressor ([output] compression, io/vtk_compression.hpp). Every
// file is written to a temporary name in the same directory and renamed, so a crash never leaves a truncated snapshot
// or collection.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/vtk_compression.hpp"

namespace eddy {

/// A block of a uniform global grid: global node (i, j, k) sits at origin + (i, j, k) * spacing; this block (the
/// piece an MPI rank writes, or the whole grid) holds the `size` nodes from global index `offset` on. A .vti
/// written from it has Extent [offset, offset + size - 1] per axis and the global Origin/Spacing, so pieces
/// listed in a .pvti (io/pvti_file.hpp) land at the right place. Point-data pieces must share one layer of nodes
/// with their neighbours (piece A's last index == piece B's first) or ParaView shows a gap.
struct GridGeometry {
  std::array<int, 3> size = {0, 0, 0};              ///< nodes of this piece per axis (>= 1)
  std::array<double, 3> origin = {0.0, 0.0, 0.0};   ///< position of global node (0, 0, 0)
  std::array<double, 3> spacing = {1.0, 1.0, 1.0};  ///< of the global grid
  std::array<int, 3> offset = {0, 0, 0};            ///< global index of this piece's first node (>= 0)
  /// Units of the coordinates and of TimeValue ("" = none stated, e.g. normalised): written with the fields' units
  /// as the field-data string array "units" ("coordinates: m", "TimeValue: s", "velocity: m/s", ...).
  std::string length_units, time_units;
};

/// One point-data array. Layout: each component is a separate array of size nx*ny*nz, x fastest
/// (index = i + nx * (j + ny * k)); the writer interleaves them into VTK tuples.
template <class T>
struct PointField {
  std::string name;
  std::vector<const T*> components;  ///< 1 (scalar), 3 (vector) or 6 (symmetric tensor) pointers
  std::string units;                 ///< e.g. "m/s"; "" = none stated
  /// Names of the components (VTK's ComponentName attributes); empty = none, else one per component.
  std::vector<std::string> component_names;
};

/// Writes `fields` on `grid` to `path` (.vti) atomically. T is float or double (Float32 / Float64 arrays).
/// The image has Extent [offset, offset + size - 1] (WholeExtent the same), Origin and Spacing of the global grid.
/// `time` is stored as field data TimeValue. The appended data are raw, or compressed by VTK with `compression`
/// (io/vtk_compression.hpp); VTK's reader gives back the same values either way.
/// Throws std::invalid_argument for malformed arguments (size < 1, negative offset, bad fields) and OutputError
/// when the file cannot be written.
template <class T>
void write_vti(const std::string& path, const GridGeometry& grid, const std::vector<PointField<T>>& fields, double time,
               VtkCompression compression = VtkCompression::none);

/// The .pvd collection of a run: one DataSet entry per snapshot, rewritten atomically after each add.
class PvdCollection {
 public:
  /// `path` is the .pvd file; snapshot file names are stored relative to its directory.
  explicit PvdCollection(std::string path);
  /// Records `file` (a path relative to the .pvd's directory) at `time` and rewrites the collection.
  /// Throws OutputError when the file cannot be written.
  void add(double time, const std::string& file);
  /// What resume does with an earlier entry (time, file): its time in the new run, or nullopt to drop it.
  using ResumeRule = std::function<std::optional<double>(double time, const std::string& file)>;
  /// A restarted run continues the collection of the run it restarts: takes over the entries of the file at path()
  /// that `rule` keeps and whose files still exist, sorted by time (an equal time: the later entry), and rewrites
  /// the file. Returns how many were kept: 0 when there is no file. Throws OutputError when path() is not a regular
  /// file (a directory, a FIFO, a device: it could never be rewritten). A file that is not a collection as eddy
  /// writes it, or larger than 256 MiB, is left alone: std::runtime_error names the file and what is wrong (the
  /// collection then starts empty and the file is replaced at the first add, as in a new run).
  /// Entries whose part is not 0 (static_parts of an earlier run) are not taken over: the static parts of this run
  /// are listed instead.
  std::size_t resume(const ResumeRule& rule);
  /// Files listed with every time step as parts 1, 2, ... after the snapshot (part 0): data that do not change,
  /// such as the solids' surfaces (<case>_solids.vtp), which ParaView then shows with every snapshot (the .pvd
  /// reader makes one block per part). Paths relative to the .pvd's directory. Rewrites the collection when it
  /// has entries. Throws OutputError when the file cannot be written.
  void set_static_parts(std::vector<std::string> files);
  const std::string& path() const { return path_; }

 private:
  void write() const;
  std::string path_;
  std::vector<std::pair<double, std::string>> entries_;
  std::vector<std::string> static_parts_;
};

}  // namespace eddy
