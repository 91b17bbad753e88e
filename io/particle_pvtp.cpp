// write_pvtp (see particle_output.hpp): the PPolyData index of a run's particle pieces, and the particle file names.
// Plain text, no VTK needed.
//
// Format (VTK XML "PPolyData"; the declarations match what write_vtp writes in every piece):
//   <?xml version="1.0"?>
//   <VTKFile type="PPolyData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
//     <PPolyData GhostLevel="0">
//       <PPointData Scalars="diameter" Vectors="velocity">
//         <PDataArray type="Float64" Name="velocity" NumberOfComponents="3"/>
//         <PDataArray type="Float64" Name="diameter" NumberOfComponents="1"/>
//         <PDataArray type="Int64" Name="id" NumberOfComponents="1"/>
//       </PPointData>
//       <PPoints>
//         <PDataArray type="Float64" Name="Points" NumberOfComponents="3"/>
//       </PPoints>
//       <Piece Source="cavity_particles_00000100_r0.vtp"/>
//       <Piece Source="cavity_particles_00000100_r1.vtp"/>
//     </PPolyData>
//   </VTKFile>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/particle_output.hpp"
#include "io/xml_text.hpp"

namespace eddy {

void write_pvtp(const std::string& path, const std::vector<std::string>& piece_files) {
  if (piece_files.empty()) throw std::invalid_argument("write_pvtp('" + path + "'): no pieces");
  for (const std::string& file : piece_files) {
    if (file.empty()) throw std::invalid_argument("write_pvtp('" + path + "'): a piece has no file name");
  }
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PPolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <PPolyData GhostLevel=\"0\">\n"
      "    <PPointData Scalars=\"diameter\" Vectors=\"velocity\">\n"
      "      <PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
      "      <PDataArray type=\"Float64\" Name=\"diameter\" NumberOfComponents=\"1\"/>\n"
      "      <PDataArray type=\"Int64\" Name=\"id\" NumberOfComponents=\"1\"/>\n"
      "    </PPointData>\n"
      "    <PPoints>\n"
      "      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
      "    </PPoints>\n";
  for (const std::string& file : piece_files) text += "    <Piece Source=\"" + xml_escape(file) + "\"/>\n";
  text += "  </PPolyData>\n</VTKFile>\n";
  write_file_atomically(path, text);
}

std::string particle_snapshot_stem(const std::string& case_name, std::int64_t step) {
  if (step < 0) throw std::invalid_argument("particle_snapshot_stem: step must be >= 0");
  char digits[32];
  std::snprintf(digits, sizeof digits, "%08lld", static_cast<long long>(step));
  return case_name + "_particles_" + digits;
}

std::string particle_piece_name(const std::string& stem, int rank) {
  return stem + "_r" + std::to_string(rank) + ".vtp";
}

std::string particle_collection_path(const std::string& output_directory, const std::string& case_name) {
  return (std::filesystem::path(output_directory) / (case_name + "_particles.pvd")).string();
}

}  // namespace eddy
