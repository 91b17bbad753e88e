// What `eddy run` prints (rank 0): the start-of-run table, the restart and checkpoint lines, the progress line of
// every report, and the lines that end a run. Timings aside, every line is part of eddy's public behaviour.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/timing.hpp"

namespace eddy {

/// `value` printed by the printf format `fmt` ("%.3g", ...), at most 63 characters.
std::string format_number(const char* fmt, double value);
/// "(x, y, z)" of 0-based cell coordinates.
std::string cell_text(const std::array<int, 3>& c);
/// Size of a checkpoint's data file in GB (0 when it cannot be read), for the log.
double checkpoint_gigabytes(const std::string& manifest_path);

/// "device      <name> (<backend>)", and on several ranks their arrangement and the halo transport.
void print_device_line(const CaseConfig& config, const Decomposition& decomposition, const std::string& device_name,
                       std::ostream& log);

/// Start-up warnings about the open faces of `config` (finalized), one "warning: ...\n" line each, empty when none:
/// velocity inlets (the reader makes each push fluid in) with no pressure_outlet or outflow for the fluid to leave
/// by (the density then rises every step), and a ramp_time longer than the run (the inlet never reaches its
/// velocity). Part of print_case_summary's table.
std::string open_face_warnings(const CaseConfig& config);

/// The "statistics" lines of the case summary (config finalized, [statistics] on): the fields, the steps sampled
/// from when and how often with their count by the run's end, the sums per cell, and the profile file if any.
std::string statistics_summary(const CaseConfig& config);

/// Prints the start-of-run table: grid, tau, omega, nu, Re, Ma, collision, precision, memory per cell and the
/// device bytes of rank 0's block (`device_bytes`, Simulation::device_bytes) out of `ranks`. `out_of_core`: the
/// cells live in host memory and device_bytes are the slab buffers. `solids`: the set-up's summary of the [[solid]]
/// bodies (Simulation::solid_summary; empty: the analytic shapes are counted here, meshes and voxels not).
void print_case_summary(const CaseConfig& config, std::size_t bytes_per_cell, std::size_t device_bytes, int ranks,
                        std::ostream& log, bool out_of_core = false, const std::vector<SolidSummary>& solids = {});

/// The table of print_case_summary for `sim`, and for an out-of-core run the slab plan (with a warning when the
/// plan's halos multiply the work by more than 3).
void print_run_summary(const CaseConfig& config, Simulation& sim, std::ostream& log);

/// What a restart did to the statistics: "statistics  continued from the checkpoint: N samples since step S", or that
/// the averages start afresh (a checkpoint without them; a warning when statistics.start lies before the restart's
/// step, whose samples are then missing), or that the checkpoint's are dropped (a case without [statistics]).
/// `stored`: the checkpoint holds the statistics' sums.
void print_statistics_restart(const CaseConfig& config, const Simulation& sim, bool stored, std::ostream& log);

/// Wall-clock seconds of a run's start-up, up to its first step (0 where a part does not apply).
struct StartUpTimes {
  double total = 0;    ///< from the start of the run's set-up (case read, MPI started) to the first step
  double set_up = 0;   ///< device memory, solid flags and the initial state (Simulation::create)
  double restart = 0;  ///< reading a checkpoint
  double check = 0;    ///< the initial state's mass, speed and finiteness check
  double output = 0;   ///< the step-0 snapshot and slices
};

/// "start-up    <total> s from the case read to the first step: set-up (memory, flags, initial state) ..., check
/// ..., output ..." (the MPI start-up and the reading of the case before it are not counted).
void print_start_up(const StartUpTimes& times, std::ostream& log);

/// "restarted   from <manifest> at step ..." with the read's size and speed, and a warning when the checkpoint was
/// written by another case (`written_by`).
void print_restart(const CaseConfig& config, const std::string& manifest_path, std::int64_t step, double seconds,
                   const std::string& written_by, std::ostream& log);

/// "  wrote checkpoint <manifest> (... GB in ... s, ... GB/s)".
void print_checkpoint(const std::string& manifest_path, double seconds, std::ostream& log);
/// "  wrote checkpoint <manifest> (... GB in ... s, ... GB/s, in the background; the run paused ... s to stage it)"
/// for a checkpoint written by the background writer: `write_seconds` the write's time on its thread,
/// `stage_seconds` the copy into host memory.
void print_background_checkpoint(const std::string& manifest_path, double stage_seconds, double write_seconds,
                                 std::ostream& log);

/// The notice of a run ended by stop signal `signal` at step `step`: how to resume from checkpoint `manifest_path`.
void print_stop(const CaseConfig& config, int signal, std::int64_t step, const std::string& manifest_path,
                std::ostream& log);

/// The progress line of each report ("step ... MLUPS ETA ... max|u| ... mass drift ..." with the particle count and
/// the thermal state when present) and the final "done:" line; keeps the wall times they need.
class ProgressReport {
 public:
  /// Starts the clocks; `first_step`: the step the run starts from (after a restart, the restored one).
  ProgressReport(const CaseConfig& config, std::int64_t first_step);
  /// Counts `steps` more steps into the current report interval.
  void add_steps(std::int64_t steps) { interval_steps_ += steps; }
  /// Prints the line of step sim.time_step() (collective: particle count, heat inflow); `d` and `t` reduced over
  /// the ranks, `initial` the diagnostics at the start (the mass drift's reference). Starts the next interval.
  /// `extra`: appended to the line before its end (the solids' forces, ForceSeries::sample).
  void print(Simulation& sim, const Diagnostics& d, const ThermalDiagnostics& t, const Diagnostics& initial,
             std::ostream& log, const std::string& extra = std::string());
  /// Wall seconds since the start.
  double seconds() const;
  /// "done: <steps> steps in <total_seconds> s, <MLUPS> on average".
  void print_done(double total_seconds, std::ostream& log) const;

 private:
  const CaseConfig& config_;
  double cells_;
  std::int64_t first_step_;
  Clock::time_point start_, interval_start_;
  std::int64_t interval_steps_ = 0;
};

}  // namespace eddy
