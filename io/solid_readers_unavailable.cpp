// io/solid_readers_unavailable.cpp: the mesh and .vti readers of io/solid_files.hpp in a build without VTK
// (EDDY_WITH_VTK=OFF): they refuse, naming the file and what is missing. Raw voxel files work without VTK.
#include "io/solid_files.hpp"
#include "solver/errors.hpp"

namespace eddy {

TriangleMesh read_mesh_file(const std::string& path) {
  throw InputError(blank_control_characters(
      "cannot read mesh file '" + path +
      "': this eddy was built without VTK (EDDY_WITH_VTK=OFF), whose readers mesh solids need; rebuild with VTK "
      "(Debian: libvtk9-dev)"));
}

VoxelGrid read_vti_voxels(const std::string& path, const std::string& /*array*/) {
  throw InputError(blank_control_characters(
      "cannot read voxel file '" + path +
      "': this eddy was built without VTK (EDDY_WITH_VTK=OFF), whose reader .vti files need; rebuild with VTK "
      "(Debian: libvtk9-dev), or give the voxels as a raw uint8 file with dimensions"));
}

}  // namespace eddy
