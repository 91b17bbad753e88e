// solver/probes.hpp: the [[output.probe]] time series: fields at points, interpolated (solver/probe_interpolation.hpp)
// from the nodes around them, written every `every` steps to <output>/<case>_probe_<name>.csv.
//
// Cost per sample: one small kernel over the probes' nodes (kernels/probe_samples.hpp, at most 8 per point) on the
// rank that owns each node, a copy of 6 values per node to the host and, on several ranks, one MPI_Gatherv of them
// to rank 0, which interpolates (in a fixed order: the same bits on every rank count) and appends the rows
// (io/forces_csv.hpp: buffered, written at flush()). No field is read back whole.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "solver/probe_interpolation.hpp"
#include "solver/simulation.hpp"

namespace eddy {

class ForcesCsvFile;

/// The probes of a case. The file of each: '#' comment lines (the probe, its units, each point's index and
/// coordinates as given), a header "step,time,p0_density,p0_ux,p0_uy,p0_uz,p1_density,..." (per point, per field
/// in the probe's order: density; velocity as ux, uy, uz; temperature), then one row per sample step (steps that
/// are multiples of `every`, step 0 excluded), 17 significant digits. Lattice units (time in steps) without
/// [units]; under [units] time in s, density in kg/m^3, velocity in m/s (temperature in the case's units). A
/// restarted run continues the file of the run it restarts (its rows up to the restart's step kept, later ones
/// written again); a file it cannot continue is kept as "<file>.before_step_<s>" with a warning on `log`.
class ProbeSeries {
 public:
  /// Collective: finds each point's nodes and their ranks, refuses (CollectiveInputError, exit 2) a run out of core
  /// and a point in a solid cell, naming the probe and the point; rank 0 opens (or continues) the files.
  ProbeSeries(const CaseConfig& config, Simulation& simulation, std::ostream& log);
  ~ProbeSeries();
  ProbeSeries(const ProbeSeries&) = delete;
  ProbeSeries& operator=(const ProbeSeries&) = delete;

  bool enabled() const { return !probes_.empty(); }
  /// The first step after `t` at which a probe samples; INT64_MAX without probes.
  std::int64_t next_due(std::int64_t t) const;
  /// Samples the probes due at the simulation's current step (collective; nothing when none is due).
  void sample(Simulation& simulation);
  /// Writes the buffered rows (rank 0): before a checkpoint, at reports and at the end. Throws OutputError.
  void flush();

 private:
  struct Probe {
    std::size_t config = 0;                       // index in config.probes
    std::vector<ProbeStencil> stencils;           // per point
    std::vector<std::array<std::size_t, 8>> ids;  // per point and stencil node: the index in nodes_
    std::unique_ptr<ForcesCsvFile> file;          // rank 0
  };
  /// The values of every node of nodes_ (kProbeValues each), on rank 0 (collective).
  std::vector<double> gather(Simulation& simulation);
  void write_row(const Probe& probe, std::int64_t step, const std::vector<double>& values);

  const CaseConfig& config_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool writer_ = false;
  std::vector<Probe> probes_;
  std::vector<std::array<int, 3>> nodes_;    // every probe node, global coordinates, sorted and unique
  std::vector<std::int64_t> local_cells_;    // this rank's nodes (local interior indices), in nodes_ order
  std::vector<int> counts_, displacements_;  // rank 0: nodes per rank, and their offsets in order_
  std::vector<std::size_t> order_;           // rank 0: nodes_ index of each gathered node
};

}  // namespace eddy
