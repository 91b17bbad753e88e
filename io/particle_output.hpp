// VTK output of Lagrangian particles for ParaView, beside the fluid's .vti snapshots (io/vtk_output.hpp):
//  - one .vtp (XML PolyData: one vertex per particle, point arrays "velocity", "diameter", "id") per output step, or
//    in MPI runs one .vtp piece per rank and a .pvtp index written by rank 0;
//  - the time collection <case>_particles.pvd (a PvdCollection, io/vtk_output.hpp) listing the .vtp / .pvtp files.
// Positions, diameters and velocities are scaled like the fluid (lengths divided by L, velocities by U; the solver's
// OutputScaling), so particles overlay the fluid in ParaView: a particle at the centre of cell i (lattice coordinate
// i + 1/2) is drawn on the fluid's node i.
//
// File names of output step `step` (8 digits, as the fluid's "<case>_<step>.vti"):
//   one rank:  <case>_particles_<step>.vtp
//   N ranks:   <case>_particles_<step>_r<rank>.vtp (pieces) and <case>_particles_<step>.pvtp (index)
// write_vtp needs the VTK library (EDDY_WITH_VTK=ON; otherwise it throws OutputError); write_pvtp and the names are
// plain text and available in every build. Every file is written to a temporary name and renamed (io/atomic_file.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/vtk_compression.hpp"

namespace eddy {

/// Writes one rank's particles to `path` (.vtp, XML PolyData) atomically, through vtkXMLPolyDataWriter: appended
/// binary data, UInt64 headers, raw or compressed by `compression` (as the .vti writer). Inputs are host arrays,
/// structure of arrays, n = ids.size() entries each (n = 0 is fine: a valid file with no points):
///   positions[a][i]  global lattice coordinates (cells) of particle i on axis a;
///   velocities[a][i] lattice units;
///   diameters[i]     cells;
///   ids[i]           the particle's global id.
/// Written: Points (Float64) = positions / length_scale, one vertex cell per point, point data "velocity" (Float64,
/// 3 components, active vectors) = velocities / velocity_scale, "diameter" (Float64, active scalars) =
/// diameters / length_scale, "id" (Int64), and field data TimeValue = `time`. length_scale and velocity_scale are
/// the fluid's OutputScaling length L and velocity U (solver/simulation.hpp).
/// Throws std::invalid_argument for arrays of different lengths or a scale that is not finite and > 0, and
/// OutputError naming `path` when the file cannot be written (or the build has no VTK).
void write_vtp(const std::string& path, const std::array<std::vector<double>, 3>& positions,
               const std::array<std::vector<double>, 3>& velocities, const std::vector<double>& diameters,
               const std::vector<std::int64_t>& ids, double length_scale, double velocity_scale, double time,
               VtkCompression compression = VtkCompression::none);

/// Writes the .pvtp (PPolyData) that joins the pieces written by write_vtp, atomically:
///   <VTKFile type="PPolyData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
///     <PPolyData GhostLevel="0">
///       <PPointData Scalars="diameter" Vectors="velocity"> velocity Float64 x3, diameter Float64, id Int64
///       </PPointData> <PPoints> <PDataArray type="Float64" Name="Points" NumberOfComponents="3"/> </PPoints> <Piece
///       Source="..."/> one per entry of piece_files (paths relative to the .pvtp's directory, XML-escaped)
///     </PPolyData>
///   </VTKFile>
/// Throws std::invalid_argument for no pieces or an empty file name, OutputError when the file cannot be written.
void write_pvtp(const std::string& path, const std::vector<std::string>& piece_files);

/// "<case>_particles_<step>" with the step in 8 digits (e.g. "cavity_particles_00000100"): the stem of the particle
/// files of one output step. step >= 0.
std::string particle_snapshot_stem(const std::string& case_name, std::int64_t step);

/// "<stem>_r<rank>.vtp": the piece rank `rank` writes in a run of several ranks.
std::string particle_piece_name(const std::string& stem, int rank);

/// "<output_directory>/<case>_particles.pvd": the particles' time collection (open it with PvdCollection).
std::string particle_collection_path(const std::string& output_directory, const std::string& case_name);

}  // namespace eddy
