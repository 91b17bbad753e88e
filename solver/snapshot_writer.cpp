// SnapshotWriter and the centreline CSV (solver/snapshot_writer.hpp).
#include "solver/snapshot_writer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>

#include "io/csv_table.hpp"
#include "io/number_format.hpp"
#include "io/output_fields.hpp"
#include "io/particle_output.hpp"
#include "io/pvti_file.hpp"
#include "io/surface_output.hpp"
#include "solver/errors.hpp"
#include "solver/moment_readout.hpp"
#include "solver/mpi_check.hpp"
#include "solver/output_box.hpp"
#include "solver/reductions.hpp"
#include "solver/run_report.hpp"
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

/// True when one process writes each file whole (no pieces and no .pvti).
bool single_file(const Decomposition& d) { return d.serial() || d.size == 1; }

/// The file this rank writes of the image `base` in `dir`: <base>.vti, or its piece <base>_r<rank>.vti.
std::string rank_file(const std::string& dir, const std::string& base, const Decomposition& d) {
  return (std::filesystem::path(dir) / (single_file(d) ? base + ".vti" : piece_name(base, d.rank))).string();
}

/// The file the .pvd lists for the image `base`: <base>.vti, or the .pvti of the pieces.
std::string listed_file(const std::string& base, const Decomposition& d) {
  return base + (single_file(d) ? ".vti" : ".pvti");
}

/// "<case>_slice_<name>", the stem of a slice's files and of its collection.
std::string slice_stem(const CaseConfig& config, const SliceConfig& slice) {
  return config.name + "_slice_" + slice.name;
}

/// "_<step>" with at least 8 digits, as in every snapshot name.
std::string step_suffix(std::int64_t step) {
  char text[32];
  std::snprintf(text, sizeof text, "_%08lld", static_cast<long long>(step));
  return text;
}

bool scheduled(std::int64_t every, std::int64_t step) { return every > 0 && step % every == 0; }

std::int64_t next_multiple(std::int64_t every, std::int64_t t) {
  return every > 0 ? (t / every + 1) * every : std::numeric_limits<std::int64_t>::max();
}

}  // namespace

bool snapshot_due(const CaseConfig& config, std::int64_t step) {
  if (scheduled(config.output_every, step)) return true;
  return std::any_of(config.slices.begin(), config.slices.end(),
                     [&](const SliceConfig& slice) { return scheduled(slice.every, step); });
}

std::int64_t next_snapshot_step(const CaseConfig& config, std::int64_t t) {
  std::int64_t next = next_multiple(config.output_every, t);
  for (const SliceConfig& slice : config.slices) next = std::min(next, next_multiple(slice.every, t));
  return next;
}

SnapshotWriter::SnapshotWriter(const CaseConfig& config)
    : config_(config),
      scaling_(OutputScaling::of(config)),
      collection_((std::filesystem::path(config.output_directory) / (config.name + ".pvd")).string()),
      particle_collection_(particle_collection_path(config.output_directory, config.name)),
      slice_last_step_(config.slices.size(), -1) {
  for (const SliceConfig& slice : config.slices) {
    slice_collections_.emplace_back(
        (std::filesystem::path(config.output_directory) / (slice_stem(config, slice) + ".pvd")).string());
  }
}

void SnapshotWriter::write(Simulation& sim, std::ostream& log, SnapshotDue due) {
  stage_due(sim, log, due, nullptr);
  start_staged(sim, log);
}

bool SnapshotWriter::stage_scheduled(Simulation& sim, std::ostream& log, Diagnostics& diagnostics) {
  return stage_due(sim, log, SnapshotDue::scheduled, &diagnostics);
}

bool SnapshotWriter::stage_due(Simulation& sim, std::ostream& log, SnapshotDue due, Diagnostics* diagnostics) {
  finish_held(sim, log);  // a step staged and not started (an instability found in between): written now
  const std::int64_t now = sim.time_step();
  const bool all = due == SnapshotDue::all;
  const bool volume = last_step_ != now && (all || scheduled(config_.output_every, now));

  // The files of this step: the volume snapshot first, then the slices in file order.
  std::vector<PendingFile> files;
  if (volume && config_.write_vtk) files.push_back({config_.name + step_suffix(now), volume_box(config_), -1});
  for (std::size_t k = 0; k < config_.slices.size(); ++k) {
    const SliceConfig& slice = config_.slices[k];
    if (slice_last_step_[k] == now || !(all || scheduled(slice.every, now))) continue;
    files.push_back({slice_stem(config_, slice) + step_suffix(now), slice_box(config_, slice), int(k)});
  }
  // The previous step's files first (one staged step in host memory at a time). Its write may have failed: then
  // nothing of this step is marked written, so a state check that stops the run still writes it.
  if (!files.empty()) complete(sim, log);
  if (volume) write_statistics_profile(config_, sim, log);  // with statistics.average, also without VTK (collective)
  for (const PendingFile& f : files) {
    if (f.slice >= 0) slice_last_step_[std::size_t(f.slice)] = now;
  }
  if (volume) last_step_ = now;
  held_particles_ = volume && config_.write_vtk && sim.has_particles();
  if (files.empty()) return false;
  // The final step's files are written at once, like those of SnapshotDue::all.
  held_background_ = config_.output_asynchronous && !all && now != config_.steps;
  stage(sim, std::move(files), diagnostics);
  return true;
}

void SnapshotWriter::start_staged(Simulation& sim, std::ostream& log) {
  if (held_job_) {
    if (held_background_) {
      pending_ = std::async(std::launch::async, std::move(held_job_));  // while the next steps run
      pending_background_ = true;
    } else {
      pending_ = std::async(std::launch::deferred, std::move(held_job_));
      pending_background_ = false;
      complete(sim, log);
    }
    held_job_ = nullptr;
  }
  if (held_particles_) write_particles(sim, log);
  held_particles_ = false;
}

void SnapshotWriter::finish_held(Simulation& sim, std::ostream& log) {
  held_background_ = false;  // in line: whatever comes next may stop the run
  start_staged(sim, log);
}

void SnapshotWriter::stage(Simulation& sim, std::vector<PendingFile> files, Diagnostics* diagnostics) {
  std::vector<VtiTarget> targets;
  for (const PendingFile& f : files)
    targets.push_back({rank_file(config_.output_directory, f.base, sim.decomposition()), f.box});
  const auto stage_begin = std::chrono::steady_clock::now();
  auto staged = std::make_shared<std::vector<StagedPiece>>(sim.stage_vti(targets, scaling_, diagnostics));
  pending_stage_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - stage_begin).count();
  pending_bytes_ = 0;
  for (const StagedPiece& piece : *staged) pending_bytes_ += piece.bytes;
  pending_files_ = std::move(files);
  pending_step_ = sim.time_step();
  held_job_ = [staged] {
    const auto begin = std::chrono::steady_clock::now();
    for (const StagedPiece& piece : *staged) piece.write();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
}

void SnapshotWriter::poll(Simulation& sim, std::ostream& log) {
  if (pending_.valid() && ready_on_every_rank(pending_, sim.decomposition())) complete(sim, log);
}

void SnapshotWriter::complete(Simulation& sim, std::ostream& log) {
  if (!pending_.valid()) return;  // the same on every rank: all staged the same files
  const Decomposition& d = sim.decomposition();
  const std::vector<PendingFile> files = std::move(pending_files_);
  pending_files_.clear();
  double seconds = 0.0;
  // Every rank's pieces are complete (or one failed and all stop with exit status 5) before anything lists them.
  try {
    agree_on_failure(d.serial() ? MPI_COMM_NULL : d.comm, [&] { seconds = pending_.get(); });
  } catch (const OutputError&) {
    // The step's files that were written are listed nowhere: removed, so what stays is what the .pvd files list.
    for (const PendingFile& f : files) {
      std::error_code ignored;
      const std::filesystem::path path = rank_file(config_.output_directory, f.base, d);
      if (std::filesystem::is_regular_file(path, ignored))
        std::filesystem::remove(path, ignored);  // not what was in the way
    }
    throw;
  }
  double bytes = double(pending_bytes_);
  if (!d.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, d.comm));
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, d.comm));
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &pending_stage_seconds_, 1, MPI_DOUBLE, MPI_MAX, d.comm));
  }
  if (d.rank != 0) return;
  const std::filesystem::path dir(config_.output_directory);
  const double time = scaling_.time(pending_step_);
  std::string slices;
  for (const PendingFile& f : files) {
    const std::string listed = listed_file(f.base, d);
    if (!single_file(d)) write_pvti((dir / listed).string(), f.box, sim);
    (f.slice < 0 ? collection_ : slice_collections_[std::size_t(f.slice)]).add(time, listed);
    if (f.slice >= 0) slices += (slices.empty() ? "" : ",") + config_.slices[std::size_t(f.slice)].name;
  }
  std::string what;
  if (!files.empty() && files.front().slice < 0) what = (dir / listed_file(files.front().base, d)).string();
  if (!slices.empty()) {
    const bool one = slices.find(',') == std::string::npos;
    const std::string base =
        config_.name + "_slice_" + (one ? slices : "{" + slices + "}") + step_suffix(pending_step_);
    what +=
        std::string(what.empty() ? "" : " and ") + "slice" + (one ? " " : "s ") + (dir / listed_file(base, d)).string();
  }
  log << "  wrote " << what << " (" << format_bytes(bytes) << " in " << format_number("%.3g", seconds) << " s, "
      << format_bytes(seconds > 0 ? bytes / seconds : 0.0) << "/s" << (pending_background_ ? ", in the background; the run paused " +
                                    format_number("%.3g", pending_stage_seconds_) + " s to stage it"
                              : "")
      << ")\n";
}

void SnapshotWriter::write_solid_surfaces(const Simulation& sim, std::ostream& log) {
  if (!config_.write_vtk || config_.solids.empty() || sim.decomposition().rank != 0) return;
  const std::string file = config_.name + "_solids.vtp";
  const std::string path = (std::filesystem::path(config_.output_directory) / file).string();
  write_surfaces_vtp(path, solid_surfaces(config_), scaling_.length, scaling_.si ? "m" : "",
                     config_.output_compression);
  collection_.set_static_parts({file});
  for (PvdCollection& slices : slice_collections_) slices.set_static_parts({file});
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
  for (std::size_t k = 0; k < config_.slices.size(); ++k) {
    resume_one(slice_collections_[k], slice_stem(config_, config_.slices[k]) + "_");
  }
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
  if (single_file(d)) {
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

/// The .pvti of `box` joining the pieces of the ranks that hold one (rank 0).
void SnapshotWriter::write_pvti(const std::string& path, const OutputBox& box, const Simulation& sim) const {
  const std::string base = std::filesystem::path(path).stem().string();
  std::vector<PvtiPiece> pieces;
  for (const auto& [rank, extent] : box_pieces(box, sim.decomposition())) {
    pieces.push_back({extent.offset, extent.size, piece_name(base, rank)});
  }
  const bool float64 = config_.precision == Precision::float64;
  std::array<double, 3> origin{}, spacing{};
  for (int a = 0; a < 3; ++a) {
    origin[a] = (box.first[a] + 0.5) / scaling_.length;
    spacing[a] = box.stride[a] / scaling_.length;
  }
  // The point fields of the pieces, in the order the pieces hold them (kOutputFields order, piece_fields).
  std::vector<PvtiArray> fields;
  for (const OutputField& field : kOutputFields) {
    if (wants_output(config_, field.name)) fields.push_back({std::string(field.name), field.components, float64});
  }
  eddy::write_pvti(path, box.count, origin, spacing, fields, pieces);
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
