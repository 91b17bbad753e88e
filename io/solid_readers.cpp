// io/solid_readers.cpp: meshes and .vti voxel images through VTK's readers (io/solid_files.hpp; built with
// EDDY_WITH_VTK=ON, io/solid_readers_unavailable.cpp otherwise). vtkSTLReader (binary and ASCII, detected by
// VTK; coincident points merged), vtkOBJReader, vtkPLYReader, then vtkTriangleFilter (polygons and strips into
// triangles, points and lines dropped); vtkXMLImageDataReader for .vti. VTK's error events are collected into the
// one InputError instead of being printed.
#include <vtkAlgorithm.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkDataArray.h>
#include <vtkExecutive.h>
#include <vtkIdList.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkOBJReader.h>
#include <vtkPLYReader.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSTLReader.h>
#include <vtkSmartPointer.h>
#include <vtkTriangleFilter.h>
#include <vtkXMLImageDataReader.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "io/solid_files.hpp"
#include "io/stderr_capture.hpp"
#include "io/vtk_error_collector.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

using vtk_errors::ErrorCollector;

/// Runs `algorithm` with its error and warning events collected; InputError "cannot read <what> '<path>': <reason>"
/// on any error.
void run_reader(vtkAlgorithm* algorithm, const std::string& path, const std::string& what) {
  vtkNew<ErrorCollector> errors, warnings, pipeline;
  algorithm->AddObserver(vtkCommand::ErrorEvent, errors);
  algorithm->AddObserver(vtkCommand::WarningEvent, warnings);
  algorithm->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, pipeline);
  // Objects inside a reader (vtkXMLDataParser) print their errors themselves, through VTK's logger: held back here,
  // so a bad file gives eddy's one line; passed on when the read succeeds (a warning stays visible).
  StderrCapture capture;
  algorithm->Update();
  const std::string printed = capture.release();
  if (!errors->has_error() && !pipeline->has_error()) replay_on_stderr(printed);
  if (errors->has_error() || pipeline->has_error()) {
    // A reader that gives up may say why only in a warning (vtkPLYReader: "Could not open PLY file"), the pipeline
    // then reporting the failure of the request, whose text says nothing about the file.
    const std::string reason = errors->has_error()     ? errors->message()
                               : warnings->has_error() ? warnings->message()
                                                       : std::string("VTK's reader failed");
    throw InputError(blank_control_characters("cannot read " + what + " '" + path + "': " + reason));
  }
}

/// A binary STL (one not starting with "solid") holds 84 + 50 n bytes for the n triangles its header announces;
/// VTK reads what there is of a truncated file without a word. InputError when the size does not match.
void check_binary_stl_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[84] = {0};
  in.read(head, sizeof head);
  const std::streamsize got = in.gcount();
  if (got >= 5 && std::string(head, 5) == "solid") return;  // ASCII (or a binary file VTK tells apart itself)
  const std::uintmax_t bytes = std::filesystem::file_size(path);
  if (got < 84) {
    throw InputError(blank_control_characters("cannot read mesh file '" + path + "': " + std::to_string(bytes) +
                                              " bytes, too short for a binary STL (84-byte header) and not an ASCII "
                                              "STL (which starts with 'solid')"));
  }
  std::uint32_t n = 0;
  std::memcpy(&n, head + 80, 4);  // little-endian, as the format and x86 and ARM hosts are
  const std::uintmax_t expected = 84 + 50 * std::uintmax_t(n);
  if (bytes != expected) {
    throw InputError(blank_control_characters(
        "cannot read mesh file '" + path + "': a binary STL whose header announces " + std::to_string(n) +
        " triangles holds 84 + 50 x " + std::to_string(n) + " = " + std::to_string(expected) + " bytes, this one " +
        std::to_string(bytes) + " (truncated, or not an STL)"));
  }
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

}  // namespace

/// Every cell of what a reader read names existing points: VTK's OBJ and PLY readers pass a face's vertex numbers on
/// unchecked, and vtkTriangleFilter would read the points of a polygon beyond the array.
void check_point_ids(vtkPolyData* poly, const std::string& path) {
  const vtkIdType n_points = poly->GetPoints() ? poly->GetPoints()->GetNumberOfPoints() : 0;
  vtkNew<vtkIdList> ids;
  for (vtkCellArray* cells : {poly->GetVerts(), poly->GetLines(), poly->GetPolys(), poly->GetStrips()}) {
    if (!cells) continue;
    vtkIdType face = 0;
    cells->InitTraversal();
    for (; cells->GetNextCell(ids); ++face) {
      for (vtkIdType k = 0; k < ids->GetNumberOfIds(); ++k) {
        const vtkIdType id = ids->GetId(k);
        if (id >= 0 && id < n_points) continue;
        throw InputError(blank_control_characters(
            "mesh file '" + path + "': face " + std::to_string(face) + " names vertex " + std::to_string(id) +
            " (counted from 0), but the file has " + std::to_string(n_points) + " vertices"));
      }
    }
  }
}

/// A PLY file's header (up to end_header, at most 64 KiB) declares a vertex element with x, y and z properties and a
/// face element: vtkPLYReader dereferences both without checking (a header without a face element crashed it).
void check_ply_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line, element;
  bool ply = false, format = false, end = false, face = false;
  int xyz = 0;
  std::size_t bytes = 0;
  while (!end && bytes < 65536 && std::getline(in, line)) {
    bytes += line.size() + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (!ply) {
      ply = word == "ply";
      if (!ply) break;
    } else if (word == "format") {
      format = true;
    } else if (word == "element") {
      words >> element;
      face = face || element == "face";
    } else if (word == "property" && element == "vertex") {
      std::string type, name;
      words >> type >> name;
      if (type != "list" && (name == "x" || name == "y" || name == "z")) ++xyz;
    } else if (word == "end_header") {
      end = true;
    }
  }
  std::string missing;
  if (!ply) missing = "the first line 'ply'";
  else if (!format) missing = "a 'format' line";
  else if (!end) missing = "'end_header' within its first 64 KiB";
  else if (xyz != 3) missing = "a vertex element with properties x, y and z";
  else if (!face) missing = "a face element";
  if (!missing.empty()) {
    throw InputError(blank_control_characters("cannot read mesh file '" + path + "': its PLY header lacks " + missing));
  }
}

TriangleMesh read_mesh_file(const std::string& path) {
  require_readable_file(path, "mesh file");
  const std::string ext = lower_extension(path);
  vtkSmartPointer<vtkAbstractPolyDataReader> reader;
  if (ext == ".stl") {
    check_binary_stl_size(path);
    reader = vtkSmartPointer<vtkSTLReader>::New();
  } else if (ext == ".obj") {
    reader = vtkSmartPointer<vtkOBJReader>::New();
  } else if (ext == ".ply") {
    check_ply_header(path);
    reader = vtkSmartPointer<vtkPLYReader>::New();
  } else {
    throw InputError(blank_control_characters("mesh file '" + path +
                                              "': the format is taken from the extension: .stl, .obj or .ply"));
  }
  reader->SetFileName(path.c_str());
  run_reader(reader, path, "mesh file");
  check_point_ids(reader->GetOutput(), path);
  vtkNew<vtkTriangleFilter> triangles;
  triangles->SetInputData(reader->GetOutput());
  triangles->PassVertsOff();
  triangles->PassLinesOff();
  run_reader(triangles, path, "mesh file");
  vtkPolyData* poly = triangles->GetOutput();
  TriangleMesh mesh;
  vtkPoints* points = poly->GetPoints();
  const vtkIdType n_points = points ? points->GetNumberOfPoints() : 0;
  if (n_points > std::numeric_limits<std::int32_t>::max()) {
    throw InputError(blank_control_characters("mesh file '" + path + "' has " + std::to_string(n_points) +
                                              " points, more than 2^31 - 1"));
  }
  mesh.vertices.resize(std::size_t(n_points));
  for (vtkIdType p = 0; p < n_points; ++p) {
    double x[3];
    points->GetPoint(p, x);
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(x[a])) {
        throw InputError(blank_control_characters("mesh file '" + path + "': point " + std::to_string(p) +
                                                  " has a coordinate that is not a finite number"));
      }
      mesh.vertices[std::size_t(p)][std::size_t(a)] = x[a];
    }
  }
  vtkCellArray* polys = poly->GetPolys();
  mesh.triangles.reserve(std::size_t(polys ? polys->GetNumberOfCells() : 0));
  if (polys) {
    vtkNew<vtkIdList> ids;
    polys->InitTraversal();
    while (polys->GetNextCell(ids)) {
      if (ids->GetNumberOfIds() != 3) continue;
      mesh.triangles.push_back({std::int32_t(ids->GetId(0)), std::int32_t(ids->GetId(1)), std::int32_t(ids->GetId(2))});
    }
  }
  if (mesh.triangles.empty()) {
    throw InputError(blank_control_characters("mesh file '" + path +
                                              "' holds no triangle (an empty mesh, or only points and lines)"));
  }
  return mesh;
}

VoxelGrid read_vti_voxels(const std::string& path, const std::string& array) {
  require_readable_file(path, "voxel file");
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(path.c_str());
  run_reader(reader, path, "voxel file");
  vtkImageData* image = reader->GetOutput();
  int dims[3] = {0, 0, 0};
  image->GetDimensions(dims);
  if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1) {
    throw InputError(blank_control_characters("voxel file '" + path + "' holds an empty image"));
  }
  // The arrays the mask may be: point arrays (one value per point) and cell arrays (one per cell).
  vtkDataArray* found = nullptr;
  bool on_cells = false;
  std::string names;
  int candidates = 0;
  for (int on_points = 1; on_points >= 0; --on_points) {
    vtkFieldData* data = on_points ? static_cast<vtkFieldData*>(image->GetPointData()) : image->GetCellData();
    for (int k = 0; k < data->GetNumberOfArrays(); ++k) {
      vtkDataArray* a = data->GetArray(k);
      if (!a || !a->GetName()) continue;
      names +=
          std::string(names.empty() ? "" : ", ") + "'" + a->GetName() + "' (" + (on_points ? "point" : "cell") + ")";
      ++candidates;
      if ((array.empty() || array == a->GetName()) && !found) {
        found = a;
        on_cells = !on_points;
      }
    }
  }
  if (names.empty()) names = "none";
  if (!found || (array.empty() && candidates > 1)) {
    throw InputError(blank_control_characters(
        "voxel file '" + path + "': " +
        (array.empty() ? std::string("name the mask array with the solid's array key; the image's arrays: ")
                       : "no array '" + array + "'; the image's arrays: ") +
        names));
  }
  if (found->GetNumberOfComponents() != 1) {
    throw InputError(blank_control_characters("voxel file '" + path + "': array '" + found->GetName() + "' has " +
                                              std::to_string(found->GetNumberOfComponents()) +
                                              " components; the mask needs one (nonzero = solid)"));
  }
  VoxelGrid grid;
  for (int a = 0; a < 3; ++a) grid.dims[std::size_t(a)] = on_cells ? std::max(dims[a] - 1, 1) : dims[a];
  const std::int64_t voxels = grid.dims[0] * grid.dims[1] * grid.dims[2];
  if (found->GetNumberOfTuples() != voxels) {
    throw InputError(blank_control_characters("voxel file '" + path + "': array '" + found->GetName() + "' has " +
                                              std::to_string(found->GetNumberOfTuples()) + " values for " +
                                              std::to_string(voxels) + " voxels"));
  }
  grid.solid.resize(std::size_t(voxels));
  for (std::int64_t v = 0; v < voxels; ++v) grid.solid[std::size_t(v)] = found->GetComponent(v, 0) != 0.0 ? 1 : 0;
  return finished_voxel_grid(std::move(grid));
}

}  // namespace eddy
