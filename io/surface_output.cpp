// write_surfaces_vtp through the VTK library (EDDY_WITH_VTK=ON; io/surface_output_unavailable.cpp otherwise).
#include "io/surface_output.hpp"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkErrorCode.h>
#include <vtkExecutive.h>
#include <vtkFieldData.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "io/atomic_file.hpp"
#include "io/vtk_compressor.hpp"
#include "io/vtk_error_collector.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

void check_arguments(const std::string& path, const std::vector<SurfaceMesh>& surfaces, double length_scale) {
  const std::string where = "write_surfaces_vtp('" + path + "'): ";
  if (!(std::isfinite(length_scale) && length_scale > 0.0)) {
    throw std::invalid_argument(where + "the length scale must be finite and > 0");
  }
  for (const SurfaceMesh& s : surfaces)
    for (const auto& t : s.triangles)
      for (std::int64_t i : t)
        if (i < 0 || i >= std::int64_t(s.points.size())) {
          throw std::invalid_argument(where + "a triangle of '" + s.name + "' names point " + std::to_string(i) +
                                      " of " + std::to_string(s.points.size()));
        }
}

vtkSmartPointer<vtkPolyData> make_poly_data(const std::vector<SurfaceMesh>& surfaces, double length_scale,
                                            const std::string& length_units) {
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  vtkNew<vtkCellArray> polygons;
  vtkNew<vtkIntArray> solid;
  solid->SetName("solid");
  vtkNew<vtkStringArray> names;
  names->SetName("solid_names");
  for (const SurfaceMesh& s : surfaces) {
    const vtkIdType first = points->GetNumberOfPoints();
    for (const auto& p : s.points)
      points->InsertNextPoint(p[0] / length_scale, p[1] / length_scale, p[2] / length_scale);
    for (const auto& t : s.triangles) {
      const vtkIdType ids[3] = {first + t[0], first + t[1], first + t[2]};
      polygons->InsertNextCell(3, ids);
      solid->InsertNextValue(s.label);
    }
    names->InsertNextValue(s.name);
  }
  auto poly = vtkSmartPointer<vtkPolyData>::New();
  poly->SetPoints(points);
  poly->SetPolys(polygons);
  poly->GetCellData()->AddArray(solid);
  poly->GetCellData()->SetActiveScalars("solid");
  poly->GetFieldData()->AddArray(names);
  if (!length_units.empty()) {
    vtkNew<vtkStringArray> units;
    units->SetName("units");
    units->InsertNextValue("coordinates: " + length_units);
    poly->GetFieldData()->AddArray(units);
  }
  return poly;
}

/// Writes `poly` to `file`; throws OutputError naming `path` with VTK's own messages.
void write_poly_data(vtkPolyData* poly, const std::string& file, const std::string& path, VtkCompression compression) {
  vtkNew<vtkXMLPolyDataWriter> writer;
  vtkNew<vtk_errors::ErrorCollector> errors;
  writer->AddObserver(vtkCommand::ErrorEvent, errors);
  vtkNew<vtk_errors::ErrorCollector> pipeline_errors;  // the pipeline's echo of every writer failure
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

void write_surfaces_vtp(const std::string& path, const std::vector<SurfaceMesh>& surfaces, double length_scale,
                        const std::string& length_units, VtkCompression compression) {
  check_arguments(path, surfaces, length_scale);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  ensure_writable_directory(parent.empty() ? std::string(".") : parent.string());
  vtkSmartPointer<vtkPolyData> poly = make_poly_data(surfaces, length_scale, length_units);
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
