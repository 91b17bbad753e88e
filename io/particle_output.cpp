// write_vtp through the VTK library (built with EDDY_WITH_VTK=ON; io/particle_output_unavailable.cpp otherwise).
//
// File layout: XML PolyData, one vertex cell per point, appended raw (unencoded, uncompressed) binary data with UInt64
// block headers, as the .vti writer (io/vtk_output.cpp). Positions and diameters are divided by the length scale,
// velocities by the velocity scale, into new VTK arrays (AOS tuples, as VTK expects). write_pvtp and the file names
// live in io/particle_pvtp.cpp (no VTK needed).
#include "io/particle_output.hpp"

#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkExecutive.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkTypeInt64Array.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/vtk_compressor.hpp"
#include "io/vtk_error_collector.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

/// Rejects malformed arguments (programming errors, not output errors): std::invalid_argument.
void check_arguments(const std::string& path, const std::array<std::vector<double>, 3>& positions,
                     const std::array<std::vector<double>, 3>& velocities, const std::vector<double>& diameters,
                     const std::vector<std::int64_t>& ids, double length_scale, double velocity_scale) {
  const std::string where = "write_vtp('" + path + "'): ";
  const std::size_t n = ids.size();
  for (int a = 0; a < 3; ++a) {
    if (positions[a].size() != n || velocities[a].size() != n) {
      throw std::invalid_argument(where + "positions and velocities must have one entry per id on every axis");
    }
  }
  if (diameters.size() != n) throw std::invalid_argument(where + "diameters must have one entry per id");
  if (!(std::isfinite(length_scale) && length_scale > 0.0) ||
      !(std::isfinite(velocity_scale) && velocity_scale > 0.0)) {
    throw std::invalid_argument(where + "length and velocity scales must be finite and > 0");
  }
}

/// The poly data: points (Float64), one vertex per point, velocity / diameter / id point arrays, TimeValue.
vtkSmartPointer<vtkPolyData> make_poly_data(const std::array<std::vector<double>, 3>& positions,
                                            const std::array<std::vector<double>, 3>& velocities,
                                            const std::vector<double>& diameters, const std::vector<std::int64_t>& ids,
                                            double length_scale, double velocity_scale, double time) {
  const vtkIdType n = static_cast<vtkIdType>(ids.size());
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(n);
  vtkNew<vtkDoubleArray> velocity;
  velocity->SetName("velocity");
  velocity->SetNumberOfComponents(3);
  velocity->SetNumberOfTuples(n);
  vtkNew<vtkDoubleArray> diameter;
  diameter->SetName("diameter");
  diameter->SetNumberOfTuples(n);
  vtkNew<vtkTypeInt64Array> id;
  id->SetName("id");
  id->SetNumberOfTuples(n);
  vtkNew<vtkCellArray> vertices;
  vertices->AllocateExact(n, n);
  for (vtkIdType i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    points->SetPoint(i, positions[0][k] / length_scale, positions[1][k] / length_scale, positions[2][k] / length_scale);
    for (int a = 0; a < 3; ++a) velocity->SetTypedComponent(i, a, velocities[a][k] / velocity_scale);
    diameter->SetValue(i, diameters[k] / length_scale);
    id->SetValue(i, static_cast<vtkTypeInt64>(ids[k]));
    vertices->InsertNextCell(1, &i);
  }
  auto poly = vtkSmartPointer<vtkPolyData>::New();
  poly->SetPoints(points);
  poly->SetVerts(vertices);
  vtkPointData* point_data = poly->GetPointData();
  point_data->AddArray(velocity);
  point_data->AddArray(diameter);
  point_data->AddArray(id);
  point_data->SetActiveVectors("velocity");
  point_data->SetActiveScalars("diameter");
  vtkNew<vtkDoubleArray> time_value;
  time_value->SetName("TimeValue");
  time_value->SetNumberOfTuples(1);
  time_value->SetValue(0, time);
  poly->GetFieldData()->AddArray(time_value);
  return poly;
}

/// Writes `poly` to `file` (appended binary, UInt64 headers, Int64 ids, `compression`). Throws OutputError naming
/// `path` (the final name) with VTK's own messages.
void write_poly_data(vtkPolyData* poly, const std::string& file, const std::string& path, VtkCompression compression) {
  vtkNew<vtkXMLPolyDataWriter> writer;
  vtkNew<vtk_errors::ErrorCollector> errors;
  writer->AddObserver(vtkCommand::ErrorEvent, errors);
  // The pipeline repeats every writer failure as "Algorithm ... returned failure for request"; keep it quiet.
  vtkNew<vtk_errors::ErrorCollector> pipeline_errors;
  writer->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, pipeline_errors);
  writer->SetInputData(poly);
  writer->SetFileName(file.c_str());
  set_appended_layout(*writer, compression);
  writer->SetIdTypeToInt64();
  const int ok = writer->Write();
  const unsigned long code = writer->GetErrorCode();
  if (ok != 0 && code == vtkErrorCode::NoError && !errors->has_error()) return;
  std::string reason = errors->message();
  const std::string code_text = vtk_errors::describe_error_code(code);
  if (code != vtkErrorCode::NoError && reason.find(code_text) == std::string::npos) {
    reason += (reason.empty() ? "" : "; ") + code_text;
  }
  if (reason.empty()) reason = pipeline_errors->has_error() ? pipeline_errors->message() : "VTK writer failed";
  throw OutputError("cannot write VTK file '" + path + "': " + reason);
}

}  // namespace

void write_vtp(const std::string& path, const std::array<std::vector<double>, 3>& positions,
               const std::array<std::vector<double>, 3>& velocities, const std::vector<double>& diameters,
               const std::vector<std::int64_t>& ids, double length_scale, double velocity_scale, double time,
               VtkCompression compression) {
  check_arguments(path, positions, velocities, diameters, ids, length_scale, velocity_scale);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  ensure_writable_directory(parent.empty() ? std::string(".") : parent.string());
  vtkSmartPointer<vtkPolyData> poly =
      make_poly_data(positions, velocities, diameters, ids, length_scale, velocity_scale, time);
  const std::string tmp = temporary_name(path);
  try {
    write_poly_data(poly, tmp, path, compression);
  } catch (...) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(tmp, ec)) std::filesystem::remove(tmp, ec);
    throw;
  }
  commit_temporary_file(tmp, path);
}

}  // namespace eddy
