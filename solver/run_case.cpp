#include "solver/run_case.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/csv_table.hpp"
#include "io/number_format.hpp"
#include "solver/errors.hpp"
#include "io/particle_output.hpp"
#include "io/vtk_output.hpp"
#include "kernels/backend.hpp"
#include "kernels/lattice_units.hpp"
#include "io/pvti_file.hpp"
#include "io/checkpoint.hpp"
#include "solver/checkpointing.hpp"
#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/stop_signal.hpp"
#include "solver/mpi_check.hpp"
#include "solver/output_directory.hpp"
#include "solver/piece_extension.hpp"
#include "solver/rank_device.hpp"
#include "solver/reductions.hpp"
#include "solver/simulation.hpp"
#include "solver/validation.hpp"

namespace eddy {

namespace {

using Clock = std::chrono::steady_clock;

/// Size of a checkpoint's data file in GB (0 when it cannot be read), for the log.
double checkpoint_gigabytes(const std::string& manifest_path) {
  std::error_code ec;
  const std::uintmax_t bytes =
      std::filesystem::file_size(std::filesystem::path(manifest_path).replace_extension(".data"), ec);
  return ec ? 0.0 : double(bytes) * 1e-9;
}

/// The time loop checks for stop signals and the stability watch after chunks of at most kStabilityCheckSteps
/// steps, fewer when steps are slow: a chunk takes about this long, so a stop acts within about a second.
constexpr double kCheckSeconds = 0.25;

/// An out-of-core plan that updates more than this many times the block's planes per step is warned about.
constexpr double kWorkFactorWarning = 3.0;

/// What the time loop learns after each chunk of steps, the same on every rank.
struct LoopCheck {
  int signal = 0;               ///< a stop signal received on any rank (0: none)
  std::int64_t unstable = -1;   ///< the first unstable step on any rank (Simulation::unstable_step), or -1
  double step_seconds = 0.0;    ///< wall seconds per step of the chunk, on the slowest rank
};

/// One reduction over the ranks of the stop signal, the stability watch and the chunk's speed. Collective.
LoopCheck check_loop(Simulation& sim, MPI_Comm comm, double chunk_seconds, std::int64_t chunk_steps) {
  const std::int64_t unstable = sim.unstable_step();
  // All as maxima: the smallest unstable step as INT64_MAX - step, none as -1; seconds in nanoseconds.
  std::int64_t values[3] = {stop_signal(MPI_COMM_NULL), unstable >= 0 ? INT64_MAX - unstable : -1,
                            std::int64_t(chunk_seconds / double(std::max<std::int64_t>(chunk_steps, 1)) * 1e9)};
  if (comm != MPI_COMM_NULL) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, 3, MPI_INT64_T, MPI_MAX, comm));
  LoopCheck check;
  check.signal = int(values[0]);
  check.unstable = values[1] >= 0 ? INT64_MAX - values[1] : -1;
  check.step_seconds = double(values[2]) * 1e-9;
  return check;
}

std::string format(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

std::string cell_text(const std::array<int, 3>& c) {
  return "(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + ")";
}

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

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

/// Writes VTK snapshots and keeps the .pvd collection current. One rank writes a .vti of the whole grid; several
/// ranks each write a piece and rank 0 the .pvti that joins them (the .pvd then lists the .pvti files).
class SnapshotWriter {
 public:
  explicit SnapshotWriter(const CaseConfig& config)
      : config_(config),
        scaling_(OutputScaling::of(config)),
        collection_((std::filesystem::path(config.output_directory) / (config.name + ".pvd")).string()),
        particle_collection_(particle_collection_path(config.output_directory, config.name)) {}

  void write(Simulation& sim, std::ostream& log) {
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
  std::int64_t last_step() const { return last_step_; }

  /// After a restart (rank 0): the collections take over the earlier run's entries up to the restored step, so
  /// ParaView sees one time series; entries after it belong to the part of an earlier run that the restart
  /// replaces. eddy's snapshot names carry the step, so a changed time scale (physics.length or velocity, [units])
  /// re-times the earlier entries instead of mixing two scales. Done also with output.vtk = false (then a
  /// collection that cannot be rewritten is only a warning), so a later restart with VTK does not list a replaced
  /// branch. An unreadable collection is reported and started afresh.
  void resume(const Simulation& sim, std::ostream& log) {
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

 private:
  /// The particles of the same time: one .vtp, or a piece per rank and rank 0's .pvtp; listed in <case>_particles.pvd.
  void write_particles(Simulation& sim, std::ostream& log) {
    const Decomposition& d = sim.decomposition();
    const ParticleSnapshot s = sim.particles();
    const std::string stem = particle_snapshot_stem(config_.name, sim.time_step());
    const std::filesystem::path dir(config_.output_directory);
    const double time = scaling_.time(sim.time_step());
    std::string listed;
    if (d.serial() || d.size == 1) {
      listed = stem + ".vtp";
      write_vtp((dir / listed).string(), s.x, s.v, s.diameter, s.id, scaling_.length, scaling_.velocity, time);
    } else {
      write_vtp((dir / particle_piece_name(stem, d.rank)).string(), s.x, s.v, s.diameter, s.id, scaling_.length,
                scaling_.velocity, time);
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

  static std::string piece_name(const std::string& base, int rank) { return base + "_r" + std::to_string(rank) + ".vti"; }

  void write_pvti(const std::string& path, const Simulation& sim) const {
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
    // The point fields of the pieces, in the order the pieces hold them (solver/simulation.cpp write_vti).
    std::vector<PvtiArray> fields;
    for (const auto& [name, components] : std::vector<std::pair<std::string, int>>{
             {"density", 1}, {"velocity", 3}, {"vorticity", 3}, {"q_criterion", 1}, {"strain_rate", 1},
             {"temperature", 1}}) {
      const auto& wanted = config_.output_fields;
      if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) fields.push_back({name, components, float64});
    }
    eddy::write_pvti(path, d.global_size, origin, spacing, fields, pieces);
  }

  const CaseConfig& config_;
  OutputScaling scaling_;
  PvdCollection collection_;
  PvdCollection particle_collection_;
  std::int64_t last_step_ = -1;
};

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
  const std::string path = (std::filesystem::path(config.output_directory) / (config.name + "_centerlines.csv")).string();
  write_csv(path, table);
  log << "  wrote " << path << " (u/U on x = 0.5 and v/U on y = 0.5; positions divided by the cavity side, velocities by U)\n";
}

/// Stops the run when the state is not finite or too fast, or when the fused kernel found a cell so in step
/// `unstable` (>= 0; -1: it found none): writes what it has, then throws.
void guard(const CaseConfig& config, const Diagnostics& d, const ThermalDiagnostics& t, Simulation& sim,
           SnapshotWriter& snapshots, std::ostream& log, std::int64_t unstable = -1) {
  std::string problem, hint;
  if (!d.finite) {
    problem = "non-finite density or velocity (NaN/inf) at cell " + cell_text(d.first_nonfinite_cell);
  } else if (d.max_speed > kMaxLatticeSpeed) {
    problem = "|u| = " + format("%.3g", d.max_speed) + " exceeds the lattice limit " +
              format("%.1f", kMaxLatticeSpeed) + " at cell " + cell_text(d.fastest_cell);
  }
  // d is reduced over the ranks, so every rank takes the same branches and the collective checks below match.
  if (problem.empty() && sim.has_particles()) {
    const ParticleDiagnostics p = sim.particle_diagnostics();  // collective
    if (!p.finite) {
      problem = "particle " + std::to_string(p.worst_id) + " has a non-finite position or velocity (NaN/inf)";
    } else if (p.max_speed > kMaxParticleSpeed) {
      problem = "particle " + std::to_string(p.worst_id) + " moves at " + format("%.3g", p.max_speed) +
                " cells per step, above the limit " + format("%.1f", kMaxParticleSpeed);
      hint = "lower the particle forces (gravity, contact stiffness)";
    }
  }
  if (problem.empty() && sim.has_thermal()) {
    const ThermalConfig& th = config.thermal;
    // The explicit update is stable for dt |u|^2 / kappa <= 2 (kernels/scalar_transport.hpp); the sub-steps were
    // sized for the largest imposed speed, which a flow driven otherwise (body force, buoyancy) can outrun.
    const double speed_limit = std::sqrt(2.0 * th.diffusivity * th.substeps);
    // Scale of the temperatures the case sets; T far outside it can only come from an unstable update.
    double scale = std::max(th.temperature_difference,
                            std::abs(th.initial_temperature - th.reference_temperature) + th.perturbation);
    for (int f = 0; f < 6; ++f) {
      if (th.walls[f] == ThermalWall::fixed) {
        scale = std::max(scale, std::abs(th.wall_temperature[f] - th.reference_temperature));
      }
    }
    const double excursion = std::max(std::abs(t.max - th.reference_temperature),
                                      std::abs(t.min - th.reference_temperature));
    if (!t.finite) {
      problem = "non-finite temperature (NaN/inf) at cell " + cell_text(t.first_nonfinite_cell);
    } else if (d.max_speed > speed_limit) {
      problem = "the flow reached |u| = " + format("%.3g", d.max_speed) + " at cell " + cell_text(d.fastest_cell) +
                ", above sqrt(2 kappa n) = " + format("%.3g", speed_limit) +
                ", the stability limit of the explicit temperature update with n = " + std::to_string(th.substeps) +
                " sub-steps (sized for the largest imposed speed, Ma = " + format("%.3g", config.mach()) + ")";
    } else if (scale > 0.0 && excursion > 10.0 * scale) {
      problem = "the temperature reached " + format("%.4g", std::abs(t.max - th.reference_temperature) >
                                                                   std::abs(t.min - th.reference_temperature)
                                                               ? t.max
                                                               : t.min) +
                ", more than 10 times the case's temperature scale " + format("%.4g", scale) + " from T_ref = " +
                format("%.4g", th.reference_temperature);
    }
    if (!problem.empty()) {
      hint = "the temperature update is unstable: give physics.velocity at least the flow's largest speed (the "
             "sub-steps follow from it), or weaken what drives the flow (physics.body_force" +
             std::string(th.rayleigh > 0 ? ", thermal.rayleigh" : "") + "), or raise the resolution";
    }
  }
  if (problem.empty() && unstable >= 0) {
    // The kernel saw the velocity it collided in that step; the state written is the one after it, which the
    // checks above may find back in range.
    problem = "|u| exceeded the lattice limit " + format("%.1f", kMaxLatticeSpeed) +
              " or became NaN during step " + std::to_string(unstable + 1) + "; now max |u| = " +
              format("%.3g", d.max_speed) + " at cell " + cell_text(d.fastest_cell);
  }
  if (problem.empty()) return;
  if (hint.empty()) {
    hint = std::string("lower the velocity, raise the resolution or tau") +
           (config.collision == Collision::bgk ? ", or use collision = \"trt\"" : "") +
           (config.thermal.buoyancy > 0 ? "; with buoyancy, a lower thermal.rayleigh" : "") +
           (config.particles.two_way ? "; with two-way coupling, smaller or lighter particles (the point-particle "
                                       "coupling assumes diameters below one cell)"
                                     : "");
  }
  const std::string message = "the run became unstable by step " + std::to_string(sim.time_step()) + ": " + problem +
                              " (0-based global cell indices; the flow is checked every " +
                              std::to_string(kStabilityCheckSteps) + " steps, the rest at reports); " + hint;
  if (config.write_vtk) {
    log << "  instability detected; writing the current fields before stopping\n";
    try {
      if (snapshots.last_step() != sim.time_step()) snapshots.write(sim, log);
    } catch (const OutputError& e) {
      // On several ranks only this rank may have failed: it must end the job (MPI_Abort), not wait for the others.
      if (sim.decomposition().size > 1) throw OutputError(message + "; the fields could not be written: " + e.what());
      throw InstabilityError(message + "; the fields could not be written: " + e.what());
    }
  }
  throw InstabilityError(message);
}

/// The "particles" line of the case summary.
std::string particle_summary(const ParticleConfig& p) {
  std::string text = "particles   ";
  text += p.positions_file.empty() ? std::to_string(p.count) : "from " + p.positions_file;
  text += p.kind == ParticleKind::tracer ? " tracers" : " inertial";
  text += ", d = " + format("%.4g", p.diameter);
  if (p.kind == ParticleKind::inertial) {
    text += ", rho_p/rho_f = " + format("%.4g", p.density);
    text += p.two_way ? ", two-way" : ", one-way";
    if (p.contacts) text += p.contact_search == ContactSearch::cell_list ? ", contacts (cell list)" : ", contacts (all pairs)";
    if (p.pair_force == PairForce::gravity) text += ", pair gravity";
  }
  text += p.walls == ParticleWalls::stick ? ", walls stick" : ", walls bounce";
  return text + "\n";
}

/// The unit conversion table of a case given in SI ([units]).
std::string units_summary(const CaseConfig& config) {
  const UnitsConfig& u = config.units;
  const double velocity = u.dx / u.dt;  // m/s per lattice velocity
  return "units       SI ([units]): dx = " + format("%.6g", u.dx) + " m, dt = " + format("%.6g", u.dt) +
         " s, L = " + format("%.6g", u.length) + " m = " + format("%.6g", config.length) + " cells\n" +
         "convert     U = " + format("%.6g", u.velocity) + " m/s = " + format("%.6g", config.velocity) +
         " lattice; nu = " + format("%.6g", u.viscosity) + " m^2/s = " + format("%.6g", config.nu) +
         " lattice; 1 lattice velocity = " + format("%.6g", velocity) + " m/s; 1 step = " + format("%.6g", u.dt) +
         " s; density 1 = " + format("%.6g", u.density) + " kg/m^3; output (VTK) in m, s, m/s, kg/m^3\n";
}

/// The "thermal" lines of the case summary.
std::string thermal_summary(const CaseConfig& config) {
  const ThermalConfig& th = config.thermal;
  std::string text = "thermal     Pr = " + format("%.4g", th.prandtl) + ", Ra = " + format("%.4g", th.rayleigh) +
                     " (L = " + format("%.6g", config.length) + " cells), kappa = " + format("%.6g", th.diffusivity) +
                     ", " + std::to_string(th.substeps) + (th.substeps == 1 ? " sub-step" : " sub-steps") +
                     " per step\n";
  if (th.buoyancy > 0) {
    text += "buoyancy    g beta = " + format("%.6g", th.buoyancy) + " along " +
            "(" + format("%.3g", th.gravity_direction[0]) + ", " + format("%.3g", th.gravity_direction[1]) + ", " +
            format("%.3g", th.gravity_direction[2]) + "), dT = " + format("%.4g", th.temperature_difference) +
            ", T_ref = " + format("%.4g", th.reference_temperature) + ", free-fall velocity " +
            format("%.4g", th.free_fall_velocity) + " (Ma " + format("%.3g", mach_number(th.free_fall_velocity)) +
            ")\n";
  }
  text += "T initial   " + format("%.4g", th.initial_temperature) +
          (th.perturbation > 0 ? " +- " + format("%.4g", th.perturbation) : std::string()) + ", walls:";
  bool any_wall = false;
  for (int f = 0; f < 6; ++f) {
    if (config.faces[f].kind == FaceKind::periodic) continue;
    any_wall = true;
    text += std::string(" ") + kFaceNames[f] + "=" +
            (th.walls[f] == ThermalWall::fixed ? format("%.4g", th.wall_temperature[f]) : std::string("adiabatic"));
  }
  return text + (any_wall ? "" : " none (periodic)") + "\n";
}

/// "  Nu x_min +4.519 x_max -4.519" for the fixed-temperature walls (the mean wall heat flux per area "q" when the
/// case has no temperature difference to scale it by), then "  T <min>..<max>" of `d`, and the total of T when no
/// wall has a fixed temperature. Collective.
std::string thermal_progress(const CaseConfig& config, Simulation& sim, const ThermalDiagnostics& d) {
  const std::array<double, 6> inflow = sim.face_heat_inflow();
  const bool scaled = config.thermal.temperature_difference > 0;
  std::string text;
  bool has_fixed = false;
  for (int f = 0; f < 6; ++f) {
    if (config.thermal.walls[f] != ThermalWall::fixed || config.faces[f].kind == FaceKind::periodic) continue;
    has_fixed = true;
    text += std::string(text.empty() ? (scaled ? "  Nu" : "  q") : "") + " " + kFaceNames[f] + " " +
            (scaled ? format("%+.4f", nusselt_number(config, f, inflow[f]))
                    : format("%+.4e", inflow[f] / face_cells(config, f)));
  }
  text += "  T " + format("%.4g", d.min) + ".." + format("%.4g", d.max);
  if (!has_fixed) text += " total " + format("%.9e", d.total);
  return text;
}

}  // namespace

void print_case_summary(const CaseConfig& config, std::size_t bytes_per_cell, std::size_t device_bytes, int ranks,
                        std::ostream& log, bool out_of_core) {
  const double cells = double(config.size[0]) * config.size[1] * config.size[2];
  const char* faces_kind[] = {"periodic", "wall", "moving wall"};
  log << "case        " << config.name << (config.source_file.empty() ? "" : " (" + config.source_file + ")") << "\n"
      << "grid        " << config.size[0] << " x " << config.size[1] << " x " << config.size[2] << " = "
      << format("%.0f", cells) << " cells\n";
  log << "boundaries ";
  for (int f = 0; f < 6; ++f) log << " " << kFaceNames[f] << "=" << faces_kind[int(config.faces[f].kind)];
  log << "\n"
      << "tau         " << format("%.6g", config.tau) << "\n"
      << "omega       " << format("%.6g", config.omega()) << "\n"
      << "nu          " << format("%.6g", config.nu) << " (lattice)\n"
      << "Re          " << format("%.6g", config.reynolds) << " (U = " << format("%.4g", config.velocity)
      << ", L = " << format("%.6g", config.length) << " cells)\n"
      << "Ma          " << format("%.4g", config.mach()) << "\n"
      << "collision   " << (config.collision == Collision::trt ? "TRT (magic " + format("%.6g", config.magic) + ")"
                                                                : std::string("BGK"))
      << "\n"
      << "storage     "
      << (config.precision == Precision::float64 ? "double" : config.precision == Precision::float16 ? "fp16" : "float")
      << "\n"
      << "memory      " << bytes_per_cell
      << (out_of_core ? " B/cell in host memory (out-of-core), " + format_bytes(double(device_bytes)) +
                            " of device buffers" + (ranks > 1 ? " on rank 0" : "")
                      : " B/cell, " + format("%.3f", double(device_bytes) / 1073741824.0) + " GiB " +
                            (ranks > 1 ? "on rank 0" : "in all") + " (ghost layer and output slab included)")
      << "\n"
      << (config.particles.enabled ? particle_summary(config.particles) : std::string())
      << (config.thermal.enabled ? thermal_summary(config) : std::string())
      << (config.units.enabled ? units_summary(config) : std::string())
      << "steps       " << config.steps << ", report every " << config.report_every << ", output every "
      << config.output_every << " into " << config.output_directory << "/\n";
}

void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& rank0_log, const std::string& restart) {
  const Decomposition decomposition = decompose(config, world);
  std::ostream null_log(nullptr);
  std::ostream& log = decomposition.rank == 0 ? rank0_log : null_log;
  int device_index = 0;
  agree_on_failure(world, [&] { device_index = select_rank_device(config, world); });
  const backend::DeviceInfo device = backend::device_info(device_index);
  log << "device      " << device.name << " (" << backend::name() << ")";
  if (decomposition.size > 1) {
    log << ", " << decomposition.size << " MPI ranks as " << decomposition.dims[0] << " x " << decomposition.dims[1]
        << " x " << decomposition.dims[2] << ", halo transport " << transport_name(config.parallel.transport)
        << (config.parallel.overlap ? " with overlap" : "");
  }
  log << "\n";
  const StopSignalScope stop_signals(decomposition.rank == 0);  // before the set-up: a signal during it stops the run at its first check
  // Paths checked, directories created, shared by all ranks and locked: found now, not at the first write.
  const OutputDirectories output_directories(config, world, log);
  auto sim = Simulation::create(config, decomposition);
  OutOfCoreStats out_of_core;
  const bool streamed = sim->out_of_core(out_of_core);
  print_case_summary(config, sim->bytes_per_cell(), sim->device_bytes(), decomposition.size, log, streamed);
  if (streamed) {
    const BlockShape shape = block_shape(decomposition);
    log << "out-of-core " << format_bytes(double(sim->bytes_per_cell()) * double(shape.n_cells()))
        << " of populations and flags in host memory" << (decomposition.size > 1 ? " on rank 0" : "") << ", "
        << out_of_core.slabs << (out_of_core.slabs == 1 ? " z-slab" : " z-slabs") << " through 2 device buffers of "
        << out_of_core.buffer_planes << " planes" << (out_of_core.slabs > 1 ? " and a carry" : "") << " ("
        << format_bytes(double(out_of_core.device_bytes)) << " of a budget of " << format_bytes(double(out_of_core.budget))
        << "), time_block " << out_of_core.time_block << "\n";
    if (out_of_core.work_factor > kWorkFactorWarning) {
      log << "  warning: each step of this plan updates " << format("%.3g", out_of_core.work_factor)
          << "x the block's z-planes (halos of time_block + 1 planes on each side of every slab), so expect about 1/"
          << format("%.3g", out_of_core.work_factor) << " of the speed; "
          << (out_of_core.default_work_factor > 0 && out_of_core.default_work_factor < out_of_core.work_factor
                  ? "the plan eddy chooses (leave out numerics.time_block and numerics.slabs) updates " +
                        format("%.3g", out_of_core.default_work_factor) + "x"
                  : std::string("fewer slabs or a smaller numerics.time_block cost less"))
          << "\n";
    }
  }
  if (!restart.empty()) {
    const auto begin = Clock::now();
    const std::string written_by = restore_state_checkpoint(config, *sim, restart);
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    const double gigabytes = checkpoint_gigabytes(restart);
    log << "restarted   from " << restart << " at step " << sim->time_step() << " (" << format("%.3g", gigabytes)
        << " GB in " << format("%.3g", seconds) << " s, " << format("%.3g", seconds > 0 ? gigabytes / seconds : 0.0)
        << " GB/s)\n";
    if (written_by != config.name) {
      log << "warning: checkpoint " << restart << " was written by case '" << written_by << "'; it continues as case '"
          << config.name << "' (" << (config.source_file.empty() ? std::string("case.name") : config.source_file)
          << ")\n";
    }
  }
  const MPI_Comm comm = decomposition.serial() ? MPI_COMM_NULL : decomposition.comm;

  SnapshotWriter snapshots(config);
  if (!restart.empty()) snapshots.resume(*sim, log);
  const Diagnostics initial = reduce_diagnostics(sim->diagnose(), decomposition);
  guard(config, initial, sim->thermal_diagnostics(), *sim, snapshots, log);  // collective
  if (config.output_every > 0 && restart.empty()) snapshots.write(*sim, log);

  // Checkpoints of this run; the newest two are kept.
  std::vector<std::string> checkpoints;
  std::int64_t last_checkpoint = -1;
  auto checkpoint = [&]() {
    const auto begin = Clock::now();
    const std::string path = write_state_checkpoint(config, *sim);
    const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    last_checkpoint = sim->time_step();
    checkpoints.push_back(path);
    if (checkpoints.size() > 2) {
      if (decomposition.rank == 0) remove_checkpoint(checkpoints.front());
      checkpoints.erase(checkpoints.begin());
    }
    const double gigabytes = checkpoint_gigabytes(path);
    log << "  wrote checkpoint " << path << " (" << format("%.3g", gigabytes) << " GB in " << format("%.3g", seconds)
        << " s, " << format("%.3g", seconds > 0 ? gigabytes / seconds : 0.0) << " GB/s)\n";
    return path;
  };

  const double cells = double(config.size[0]) * config.size[1] * config.size[2];
  const std::int64_t first_step = sim->time_step();
  const auto start = Clock::now();
  auto interval_start = start;
  std::int64_t interval_steps = 0;
  log << std::flush;  // the set-up's lines before any progress or stop notice (written straight to stdout)
  std::int64_t chunk = 1;  // steps between checks: measured on the first, then about kCheckSeconds of them
  while (sim->time_step() < config.steps) {
    const std::int64_t t = sim->time_step();
    std::int64_t next = config.steps;
    next = std::min(next, (t / config.report_every + 1) * config.report_every);
    if (config.output_every > 0) next = std::min(next, (t / config.output_every + 1) * config.output_every);
    if (config.checkpoint_every > 0) {
      next = std::min(next, (t / config.checkpoint_every + 1) * config.checkpoint_every);
    }
    next = std::min(next, t + chunk);
    const auto chunk_start = Clock::now();
    sim->advance(next - t);
    interval_steps += next - t;
    const LoopCheck check =
        check_loop(*sim, comm, std::chrono::duration<double>(Clock::now() - chunk_start).count(), next - t);
    chunk = check.step_seconds > 0 ? std::clamp<std::int64_t>(std::int64_t(kCheckSeconds / check.step_seconds), 1,
                                                                kStabilityCheckSteps)
                                   : kStabilityCheckSteps;
    if (check.unstable >= 0) {
      // On one rank the state went back to right after the first unstable step (Simulation::unstable_step).
      sim->synchronize();
      const Diagnostics d = reduce_diagnostics(sim->diagnose(), decomposition);
      guard(config, d, sim->thermal_diagnostics(), *sim, snapshots, log, check.unstable);  // throws
    }
    const std::int64_t now = sim->time_step();
    const bool output = config.output_every > 0 && now % config.output_every == 0;

    if (check.signal != 0) {
      sim->synchronize();
      // A run that is unstable already stops as one (exit 3) and keeps its last good checkpoint; a sound one writes
      // the snapshot due at this step, then the checkpoint to resume from.
      guard(config, reduce_diagnostics(sim->diagnose(), decomposition), sim->thermal_diagnostics(), *sim, snapshots,
            log);
      if (output && snapshots.last_step() != now) snapshots.write(*sim, log);
      const std::string path = last_checkpoint == now ? checkpoints.back() : checkpoint();
      log << "stopped by " << stop_signal_name(check.signal) << " at step " << now << " of " << config.steps
          << "; resume with the same case and options (--set, mpirun) and:\n  eddy run "
          << (config.source_file.empty() ? std::string("CASE.toml") : config.source_file) << " ... --restart " << path
          << "\n";
      return;
    }
    const bool report = now % config.report_every == 0 || now == config.steps;
    const bool save = config.checkpoint_every > 0 && (now % config.checkpoint_every == 0 || now == config.steps);
    if (!report && !output && !save) continue;
    sim->synchronize();
    const Diagnostics d = reduce_diagnostics(sim->diagnose(), decomposition);
    const ThermalDiagnostics td = sim->thermal_diagnostics();  // collective; defaults without [thermal]
    if (report) {
      const auto wall = Clock::now();
      const double seconds = std::chrono::duration<double>(wall - interval_start).count();
      const double total = std::chrono::duration<double>(wall - start).count();
      const double mlups = seconds > 0 ? cells * interval_steps / seconds * 1e-6 : 0.0;
      const double eta = total / double(now - first_step) * double(config.steps - now);
      char line[256];
      std::snprintf(line, sizeof line,
                    "step %9lld  %5.1f%%  %9.2f MLUPS  ETA %s  max|u| %.4e  mass drift %+.3e",
                    static_cast<long long>(now), 100.0 * double(now) / double(config.steps), mlups,
                    duration_text(eta).c_str(), d.finite ? d.max_speed : std::nan(""),
                    !d.finite ? std::nan("") : initial.mass > 0 ? d.mass / initial.mass - 1.0 : 0.0);
      log << line;
      if (sim->has_particles()) log << "  particles " << sim->particle_count();  // collective
      if (sim->has_thermal()) log << thermal_progress(config, *sim, td);        // collective
      log << "\n" << std::flush;
      interval_start = wall;
      interval_steps = 0;
    }
    guard(config, d, td, *sim, snapshots, log);
    if (output) snapshots.write(*sim, log);
    if (save) checkpoint();
  }
  sim->synchronize();
  const double total = std::chrono::duration<double>(Clock::now() - start).count();

  if (snapshots.last_step() != sim->time_step()) snapshots.write(*sim, log);
  if (config.write_centerlines) write_centerlines(config, *sim, log);
  const double steps_run = double(config.steps - first_step);
  char line[160];
  std::snprintf(line, sizeof line, "done: %lld steps in %.2f s, %.2f MLUPS on average\n",
                static_cast<long long>(steps_run), total, total > 0 ? cells * steps_run / total * 1e-6 : 0.0);
  log << line;
}

}  // namespace eddy
