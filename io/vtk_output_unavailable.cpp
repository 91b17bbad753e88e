// write_vti for builds without the VTK library (EDDY_WITH_VTK=OFF, e.g. GPU machines without libvtk9-dev).
// CMake compiles this file instead of io/vtk_output.cpp; every call throws OutputError with the remedy.
// PvdCollection (io/pvd_collection.cpp) and write_pvti (io/pvti_file.cpp) need no VTK and stay available.
#include <string>
#include <vector>

#include "solver/errors.hpp"
#include "io/vtk_output.hpp"

namespace eddy {

/// Always throws OutputError: this build has no VTK writer.
template <class T>
void write_vti(const std::string& /*path*/, const GridGeometry& /*grid*/, const std::vector<PointField<T>>& /*fields*/,
               double /*time*/, VtkCompression /*compression*/) {
  throw OutputError(
      "VTK output is unavailable: eddy was built with EDDY_WITH_VTK=OFF; set output.vtk = false or rebuild with VTK");
}

template void write_vti<float>(const std::string&, const GridGeometry&, const std::vector<PointField<float>>&, double,
                               VtkCompression);
template void write_vti<double>(const std::string&, const GridGeometry&, const std::vector<PointField<double>>&, double,
                                VtkCompression);

}  // namespace eddy
