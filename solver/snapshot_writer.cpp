// SnapshotWriter and the centreline CSV (solver/snapshot_writer.hpp).
#include "solver/snapshot_writer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>

#include "io/csv_table.hpp"
#include "io/output_fields.hpp"
#include "io/particle_output.hpp"
#include "io/pvti_file.hpp"
#include "io/surface_output.hpp"
#include "solver/errors.hpp"
#include "solver/moment_readout.hpp"
#include "solver/mpi_check.hpp"
#include "solver/piece_extension.hpp"
#include "solver/reductions.hpp"
#include "solver/solid_surface.hpp"
#include "solver/statistics_profile.hpp"
#include "solver/validation.hpp"

namespace eddy {

namespace {

/// The step in a snapshot file name eddy wrote, "<prefix><digits>.<extension>" (e.g. cavity_00000100.vti);
/// nullopt for any other name.
std::optional<std::int64_t> snapshot_step(const std::string& file, const std::string& prefix) {
  const std::size_t dot = file.rfind('.');
  if (file.compare(0, prefix.size(), prefix) != 0 || dot == std::string::npos || dot <= prefix.size()) return {};
  std::int64_t step = 0;
  const char* first = file.data() + prefix.size();
  const char* last = file.data() + dot;
  const auto [stop, error] = std::from_chars(first, last, step);
  if (error != std::errc() || stop != last || step < 0 || !std::isdigit(static_cast<unsigned char>(*first))) return {};
  return step;
}

std::string piece_name(const std::string& base, int rank) { return base + "_r" + std::to_string(rank) + ".vti"; }

}  // namespace

SnapshotWriter::SnapshotWriter(const CaseConfig& config)
    : config_(config),
      scaling_(OutputScaling::of(config)),
      collection_((std::filesystem::path(config.output_directory) / (config.name + ".pvd")).string()),
      particle_collection_(particle_collection_path(config.output_directory, config.name)) {}

void SnapshotWriter::write(Simulation& sim, std::ostream& log) {
  write_statistics_profile(config_, sim, log);  // with statistics.average, also without VTK (collective)
  if (!config_.write_vtk) return;
  const Decomposition& d = sim.decomposition();
  char step[32];
  std::snprintf(step, sizeof step, "_%08lld", static_cast<long long>(sim.time_step()));
  const std::string base = config_.name + step;
  const std::filesystem::path dir(config_.output_directory);
  std::string listed;
  if (d.serial() || d.size == 1) {
    listed = base + ".vti";
    sim.write_vti((dir / listed).string(), scaling_);
  } else {
    sim.write_vti((dir / piece_name(base, d.rank)).string(), scaling_);
    EDDY_MPI_CHECK(MPI_Barrier(d.comm));  // every piece is complete before the .pvti and .pvd point at them
    listed = base + ".pvti";
    if (d.rank == 0) write_pvti((dir / listed).string(), sim);
  }
  if (d.rank == 0) collection_.add(scaling_.time(sim.time_step()), listed);
  last_step_ = sim.time_step();
  log << "  wrote " << (dir / listed).string() << "\n";
  if (sim.has_particles()) write_particles(sim, log);
}

void SnapshotWriter::write_solid_surfaces(const Simulation& sim, std::ostream& log) {
  if (!config_.write_vtk || config_.solids.empty() || sim.decomposition().rank != 0) return;
  const std::string file = config_.name + "_solids.vtp";
  const std::string path = (std::filesystem::path(config_.output_directory) / file).string();
  write_surfaces_vtp(path, solid_surfaces(config_), scaling_.length, scaling_.si ? "m" : "",
                     config_.output_compression);
  collection_.set_static_parts({file});
  log << "  wrote " << path << " (the solids' surfaces, listed with every snapshot)\n";
}

void SnapshotWriter::resume(const Simulation& sim, std::ostream& log) {
  if (sim.decomposition().rank != 0) return;
  const std::int64_t restart_step = sim.time_step();
  const double restart_time = scaling_.time(restart_step);
  auto resume_one = [&](PvdCollection& collection, const std::string& prefix) {
    int retimed = 0;
    const auto rule = [&](double time, const std::string& file) -> std::optional<double> {
      const std::optional<std::int64_t> step = snapshot_step(file, prefix);
      if (!step) return time <= restart_time ? std::optional<double>(time) : std::nullopt;
      if (*step > restart_step) return std::nullopt;
      const double now = scaling_.time(*step);
      if (now != time) ++retimed;
      return now;
    };
    try {
      const std::size_t kept = collection.resume(rule);
      if (kept > 0) log << "output      " << collection.path() << " continued: " << kept << " earlier snapshots\n";
      if (retimed > 0) {
        log << "output      " << retimed << " of them listed at new times: the time scale changed since they were "
            << "written (their files keep the old TimeValue)\n";
      }
    } catch (const OutputError& e) {
      if (config_.write_vtk) throw;  // it could never be rewritten: exit code 5 now, not at the first snapshot
      log << "warning: " << e.what() << "\n";
    } catch (const std::runtime_error& e) {
      log << "warning: " << e.what() << "\n";
    }
  };
  resume_one(collection_, config_.name + "_");
  if (sim.has_particles()) resume_one(particle_collection_, config_.name + "_particles_");
}

/// The particles of the same time: one .vtp, or a piece per rank and rank 0's .pvtp; listed in <case>_particles.pvd.
void SnapshotWriter::write_particles(Simulation& sim, std::ostream& log) {
  const Decomposition& d = sim.decomposition();
  const ParticleSnapshot s = sim.particles();
  const std::string stem = particle_snapshot_stem(config_.name, sim.time_step());
  const std::filesystem::path dir(config_.output_directory);
  const double time = scaling_.time(sim.time_step());
  std::string listed;
  if (d.serial() || d.size == 1) {
    listed = stem + ".vtp";
    write_vtp((dir / listed).string(), s.x, s.v, s.diameter, s.id, scaling_.length, scaling_.velocity, time,
              config_.output_compression);
  } else {
    write_vtp((dir / particle_piece_name(stem, d.rank)).string(), s.x, s.v, s.diameter, s.id, scaling_.length,
              scaling_.velocity, time, config_.output_compression);
    EDDY_MPI_CHECK(MPI_Barrier(d.comm));
    listed = stem + ".pvtp";
    if (d.rank == 0) {
      std::vector<std::string> pieces;
      for (int r = 0; r < d.size; ++r) pieces.push_back(particle_piece_name(stem, r));
      write_pvtp((dir / listed).string(), pieces);
    }
  }
  if (d.rank == 0) particle_collection_.add(time, listed);
  log << "  wrote " << (dir / listed).string() << "\n";
}

/// The .pvti of the pieces of all ranks (rank 0).
void SnapshotWriter::write_pvti(const std::string& path, const Simulation& sim) const {
  const Decomposition& d = sim.decomposition();
  const std::string base = std::filesystem::path(path).stem().string();
  std::vector<PvtiPiece> pieces;
  for (int r = 0; r < d.size; ++r) {
    std::array<int, 3> coords{};
    EDDY_MPI_CHECK(MPI_Cart_coords(d.comm, r, 3, coords.data()));
    PvtiPiece piece;
    for (int a = 0; a < 3; ++a) {
      d.block_extent(a, coords[a], piece.offset[a], piece.size[a]);
      if (extends_along(d, coords, a)) piece.size[a] += 1;
    }
    piece.file = piece_name(base, r);
    pieces.push_back(piece);
  }
  const bool float64 = config_.precision == Precision::float64;
  const std::array<double, 3> origin = {0.5 / scaling_.length, 0.5 / scaling_.length, 0.5 / scaling_.length};
  const std::array<double, 3> spacing = {1.0 / scaling_.length, 1.0 / scaling_.length, 1.0 / scaling_.length};
  // The point fields of the pieces, in the order the pieces hold them (kOutputFields order, piece_fields).
  std::vector<PvtiArray> fields;
  for (const OutputField& field : kOutputFields) {
    if (wants_output(config_, field.name)) fields.push_back({std::string(field.name), field.components, float64});
  }
  eddy::write_pvti(path, d.global_size, origin, spacing, fields, pieces);
}

void write_centerlines(const CaseConfig& config, Simulation& sim, std::ostream& log) {
  const double lid = config.velocity > 0 ? config.faces[3].velocity[0] / config.velocity : 0.0;
  const CenterlineSums sums = reduce_centerlines(centerline_sums(sim.fields()), sim.decomposition());
  if (sim.decomposition().rank != 0) return;
  const CavityCenterlines c = cavity_centerlines(sums, config.velocity > 0 ? config.velocity : 1.0, lid);
  CsvTable table;
  table.names = {"y", "u_on_x_half", "x", "v_on_y_half"};
  const std::size_t rows = std::max(c.u_vertical.s.size(), c.v_horizontal.s.size());
  table.columns.assign(4, std::vector<double>(rows, std::nan("")));
  std::copy(c.u_vertical.s.begin(), c.u_vertical.s.end(), table.columns[0].begin());
  std::copy(c.u_vertical.value.begin(), c.u_vertical.value.end(), table.columns[1].begin());
  std::copy(c.v_horizontal.s.begin(), c.v_horizontal.s.end(), table.columns[2].begin());
  std::copy(c.v_horizontal.value.begin(), c.v_horizontal.value.end(), table.columns[3].begin());
  const std::string path =
      (std::filesystem::path(config.output_directory) / (config.name + "_centerlines.csv")).string();
  write_csv(path, table);
  log << "  wrote " << path
      << " (u/U on x = 0.5 and v/U on y = 0.5; positions divided by the cavity side, velocities by U)\n";
}

}  // namespace eddy
