// write_surfaces_vtp for builds without the VTK library (EDDY_WITH_VTK=OFF). CMake compiles this file instead of
// io/surface_output.cpp; every call throws OutputError with the remedy, as the .vti and particle writers do (a run
// with output.vtk = true fails at its first VTK file either way, exit code 5; output.vtk = false writes none).
#include <string>
#include <vector>

#include "io/surface_output.hpp"
#include "solver/errors.hpp"

namespace eddy {

void write_surfaces_vtp(const std::string& /*path*/, const std::vector<SurfaceMesh>& /*surfaces*/,
                        double /*length_scale*/, const std::string& /*length_units*/, VtkCompression /*compression*/) {
  throw OutputError(
      "VTK output is unavailable: eddy was built with EDDY_WITH_VTK=OFF; set output.vtk = false or rebuild with VTK");
}

}  // namespace eddy
