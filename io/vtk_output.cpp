// write_vti through the VTK library (built with EDDY_WITH_VTK=ON; io/vtk_output_unavailable.cpp otherwise).
//
// File layout: XML ImageData, appended unencoded binary data, UInt64 block headers, so that arrays over 4 GiB are
// valid; raw (ParaView can memory-map the data) or compressed ([output] compression, io/vtk_compressor.hpp). Scalar
// fields are handed to VTK without a copy; vector fields (SoA in eddy) are interleaved into one temporary AOS array per
// field, as VTK expects. A piece of a larger grid (GridGeometry::offset) is written with its global extent, for a .pvti
// to join.
#include "io/vtk_output.hpp"

#include <vtkCommand.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkExecutive.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkXMLImageDataWriter.h>

#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/vtk_compressor.hpp"
#include "io/vtk_error_collector.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

using vtk_errors::describe_error_code;
using vtk_errors::ErrorCollector;

/// vtkFloatArray for float, vtkDoubleArray for double (Float32 / Float64 in the file).
template <class T>
using VtkArrayOf = std::conditional_t<std::is_same_v<T, float>, vtkFloatArray, vtkDoubleArray>;

/// Number of grid nodes, 64-bit (can exceed 2^31 on large grids).
vtkIdType node_count(const GridGeometry& grid) {
  return static_cast<vtkIdType>(grid.size[0]) * grid.size[1] * grid.size[2];
}

/// Rejects malformed arguments (programming errors, not output errors): std::invalid_argument.
template <class T>
void check_arguments(const std::string& path, const GridGeometry& grid, const std::vector<PointField<T>>& fields) {
  for (int axis = 0; axis < 3; ++axis) {
    if (grid.size[axis] < 1) throw std::invalid_argument("write_vti('" + path + "'): grid size must be >= 1");
    if (grid.offset[axis] < 0) throw std::invalid_argument("write_vti('" + path + "'): grid offset must be >= 0");
    if (static_cast<long long>(grid.offset[axis]) + grid.size[axis] - 1 > std::numeric_limits<int>::max()) {
      throw std::invalid_argument("write_vti('" + path + "'): grid offset + size exceeds the int range");
    }
  }
  std::set<std::string> names;
  for (const PointField<T>& field : fields) {
    const std::size_t n = field.components.size();
    if (field.name.empty()) throw std::invalid_argument("write_vti('" + path + "'): a field has no name");
    if (!names.insert(field.name).second) {
      throw std::invalid_argument("write_vti('" + path + "'): duplicate field '" + field.name + "'");
    }
    if (n != 1 && n != 3 && n != 6) {
      throw std::invalid_argument("write_vti('" + path + "'): field '" + field.name +
                                  "' must have 1, 3 or 6 components");
    }
    if (!field.component_names.empty() && field.component_names.size() != n) {
      throw std::invalid_argument("write_vti('" + path + "'): field '" + field.name + "' names " +
                                  std::to_string(field.component_names.size()) + " of its " + std::to_string(n) +
                                  " components");
    }
    for (const T* component : field.components) {
      if (component == nullptr) {
        throw std::invalid_argument("write_vti('" + path + "'): field '" + field.name + "' has a null component");
      }
    }
  }
}

/// Wraps one field as a VTK point-data array: scalars without a copy (VTK never frees or writes it), vectors and
/// tensors interleaved into tuples (x, y, z; or the 6 components) in node order i + nx * (j + ny * k).
template <class T>
vtkSmartPointer<VtkArrayOf<T>> make_array(const PointField<T>& field, vtkIdType nodes) {
  auto array = vtkSmartPointer<VtkArrayOf<T>>::New();
  array->SetName(field.name.c_str());
  const int components = static_cast<int>(field.components.size());
  array->SetNumberOfComponents(components);
  for (int c = 0; c < int(field.component_names.size()); ++c)
    array->SetComponentName(c, field.component_names[c].c_str());
  if (components == 1) {
    array->SetArray(const_cast<T*>(field.components[0]), nodes, /*save=*/1);
    return array;
  }
  if (!array->SetNumberOfValues(components * nodes)) {
    throw OutputError("cannot allocate " + std::to_string(components * nodes * vtkIdType{sizeof(T)}) +
                      " bytes to write field '" + field.name + "'");
  }
  // The tuples are interleaved by the host's threads: a snapshot's velocity can be several GiB of fresh memory to
  // touch and fill, which one thread did at a fraction of the host's memory bandwidth.
  T* out = array->GetPointer(0);
  if (components == 3) {
    const T* x = field.components[0];
    const T* y = field.components[1];
    const T* z = field.components[2];
#pragma omp parallel for schedule(static)
    for (vtkIdType n = 0; n < nodes; ++n) {  // sequential writes, three sequential read streams per thread
      out[3 * n] = x[n];
      out[3 * n + 1] = y[n];
      out[3 * n + 2] = z[n];
    }
    return array;
  }
#pragma omp parallel for schedule(static)
  for (vtkIdType n = 0; n < nodes; ++n) {
    for (int c = 0; c < components; ++c) out[components * n + c] = field.components[std::size_t(c)][n];
  }
  return array;
}

/// Builds the image: geometry (extent from offset/size, global origin/spacing), point-data arrays (velocity
/// active vectors, density active scalars), TimeValue.
template <class T>
vtkSmartPointer<vtkImageData> make_image(const GridGeometry& grid, const std::vector<PointField<T>>& fields,
                                         double time) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  // Extent, not dimensions: a piece of a global grid keeps its global node indices (offset 0: the whole grid).
  image->SetExtent(grid.offset[0], grid.offset[0] + grid.size[0] - 1, grid.offset[1], grid.offset[1] + grid.size[1] - 1,
                   grid.offset[2], grid.offset[2] + grid.size[2] - 1);
  image->SetOrigin(grid.origin[0], grid.origin[1], grid.origin[2]);
  image->SetSpacing(grid.spacing[0], grid.spacing[1], grid.spacing[2]);
  const vtkIdType nodes = node_count(grid);
  vtkPointData* point_data = image->GetPointData();
  for (const PointField<T>& field : fields) {
    point_data->AddArray(make_array(field, nodes));
    if (field.name == "velocity" && field.components.size() == 3) point_data->SetActiveVectors("velocity");
    if (field.name == "density" && field.components.size() == 1) point_data->SetActiveScalars("density");
  }
  vtkNew<vtkDoubleArray> time_value;
  time_value->SetName("TimeValue");
  time_value->SetNumberOfTuples(1);
  time_value->SetValue(0, time);
  image->GetFieldData()->AddArray(time_value);
  std::vector<std::string> units;
  if (!grid.length_units.empty()) units.push_back("coordinates: " + grid.length_units);
  if (!grid.time_units.empty()) units.push_back("TimeValue: " + grid.time_units);
  for (const PointField<T>& field : fields) {
    if (!field.units.empty()) units.push_back(field.name + ": " + field.units);
  }
  if (!units.empty()) {
    vtkNew<vtkStringArray> list;
    list->SetName("units");
    for (const std::string& entry : units) list->InsertNextValue(entry);
    image->GetFieldData()->AddArray(list);
  }
  return image;
}

/// Writes `image` to `file` (appended binary, UInt64 headers, `compression`). Throws OutputError naming `path` (the
/// final name) with VTK's own messages.
void write_image(vtkImageData* image, const std::string& file, const std::string& path, VtkCompression compression) {
  vtkNew<vtkXMLImageDataWriter> writer;
  vtkNew<ErrorCollector> errors;
  writer->AddObserver(vtkCommand::ErrorEvent, errors);
  // The pipeline repeats every writer failure as "Algorithm ... returned failure for request"; keep it quiet.
  vtkNew<ErrorCollector> pipeline_errors;
  writer->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, pipeline_errors);
  writer->SetInputData(image);
  writer->SetFileName(file.c_str());
  set_appended_layout(*writer, compression);
  const int ok = writer->Write();
  const unsigned long code = writer->GetErrorCode();
  if (ok != 0 && code == vtkErrorCode::NoError && !errors->has_error()) return;
  std::string reason = errors->message();
  const std::string code_text = describe_error_code(code);
  if (code != vtkErrorCode::NoError && reason.find(code_text) == std::string::npos) {
    reason += (reason.empty() ? "" : "; ") + code_text;
  }
  if (reason.empty()) reason = pipeline_errors->has_error() ? pipeline_errors->message() : "VTK writer failed";
  throw OutputError("cannot write VTK file '" + path + "': " + reason);
}

}  // namespace

template <class T>
void write_vti(const std::string& path, const GridGeometry& grid, const std::vector<PointField<T>>& fields, double time,
               VtkCompression compression) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "write_vti: T must be float or double");
  check_arguments(path, grid, fields);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  ensure_writable_directory(parent.empty() ? std::string(".") : parent.string());
  vtkSmartPointer<vtkImageData> image = make_image(grid, fields, time);
  const std::string tmp = temporary_name(path);
  try {
    write_image(image, tmp, path, compression);
  } catch (...) {
    std::filesystem::path tmp_path(tmp);
    std::error_code ec;
    if (std::filesystem::is_regular_file(tmp_path, ec)) std::filesystem::remove(tmp_path, ec);
    throw;
  }
  commit_temporary_file(tmp, path);
}

template void write_vti<float>(const std::string&, const GridGeometry&, const std::vector<PointField<float>>&, double,
                               VtkCompression);
template void write_vti<double>(const std::string&, const GridGeometry&, const std::vector<PointField<double>>&, double,
                                VtkCompression);

}  // namespace eddy
