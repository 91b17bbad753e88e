// write_vtp for builds without the VTK library (EDDY_WITH_VTK=OFF). CMake compiles this file instead of
// io/particle_output.cpp; every call throws OutputError with the remedy. write_pvtp and the file names
// (io/particle_pvtp.cpp) need no VTK and stay available.
#include <string>
#include <vector>

#include "solver/errors.hpp"
#include "io/particle_output.hpp"

namespace eddy {

/// Always throws OutputError: this build has no VTK writer.
void write_vtp(const std::string& /*path*/, const std::array<std::vector<double>, 3>& /*positions*/,
               const std::array<std::vector<double>, 3>& /*velocities*/, const std::vector<double>& /*diameters*/,
               const std::vector<std::int64_t>& /*ids*/, double /*length_scale*/, double /*velocity_scale*/,
               double /*time*/, VtkCompression /*compression*/) {
  throw OutputError(
      "VTK output is unavailable: eddy was built with EDDY_WITH_VTK=OFF; set output.vtk = false or rebuild with VTK");
}

}  // namespace eddy
