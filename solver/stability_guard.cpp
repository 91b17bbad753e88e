// The physics guard of `eddy run` (solver/stability_guard.hpp).
#include "solver/stability_guard.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>

#include "solver/errors.hpp"
#include "solver/reductions.hpp"
#include "solver/run_report.hpp"

namespace eddy {

namespace {

/// What is wrong with the state ("" when nothing), and what to do about it ("": the general remedy).
struct Finding {
  std::string problem, hint;
};

/// Non-finite or too-fast fluid.
Finding fluid_problem(const Diagnostics& d) {
  Finding f;
  if (!d.finite) {
    f.problem = "non-finite density or velocity (NaN/inf) at cell " + cell_text(d.first_nonfinite_cell);
  } else if (d.max_speed > kMaxLatticeSpeed) {
    f.problem = "|u| = " + format_number("%.3g", d.max_speed) + " exceeds the lattice limit " +
                format_number("%.1f", kMaxLatticeSpeed) + " at cell " + cell_text(d.fastest_cell);
  }
  return f;
}

/// Non-finite or too-fast particles (collective).
Finding particle_problem(Simulation& sim) {
  Finding f;
  const ParticleDiagnostics p = sim.particle_diagnostics();  // collective
  if (!p.finite) {
    f.problem = "particle " + std::to_string(p.worst_id) + " has a non-finite position or velocity (NaN/inf)";
  } else if (p.max_speed > kMaxParticleSpeed) {
    f.problem = "particle " + std::to_string(p.worst_id) + " moves at " + format_number("%.3g", p.max_speed) +
                " cells per step, above the limit " + format_number("%.1f", kMaxParticleSpeed);
    f.hint = "lower the particle forces (gravity, contact stiffness)";
  }
  return f;
}

/// A non-finite temperature, a flow too fast for the explicit temperature update, or temperatures far outside the
/// case's scale.
Finding thermal_problem(const CaseConfig& config, const Diagnostics& d, const ThermalDiagnostics& t) {
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
  const double excursion =
      std::max(std::abs(t.max - th.reference_temperature), std::abs(t.min - th.reference_temperature));
  Finding f;
  if (!t.finite) {
    f.problem = "non-finite temperature (NaN/inf) at cell " + cell_text(t.first_nonfinite_cell);
  } else if (d.max_speed > speed_limit) {
    f.problem = "the flow reached |u| = " + format_number("%.3g", d.max_speed) + " at cell " +
                cell_text(d.fastest_cell) + ", above sqrt(2 kappa n) = " + format_number("%.3g", speed_limit) +
                ", the stability limit of the explicit temperature update with n = " + std::to_string(th.substeps) +
                " sub-steps (sized for the largest imposed speed, Ma = " + format_number("%.3g", config.mach()) + ")";
  } else if (scale > 0.0 && excursion > 10.0 * scale) {
    const double extreme =
        std::abs(t.max - th.reference_temperature) > std::abs(t.min - th.reference_temperature) ? t.max : t.min;
    f.problem = "the temperature reached " + format_number("%.4g", extreme) +
                ", more than 10 times the case's temperature scale " + format_number("%.4g", scale) +
                " from T_ref = " + format_number("%.4g", th.reference_temperature);
  }
  if (!f.problem.empty()) {
    f.hint =
        "the temperature update is unstable: give physics.velocity at least the flow's largest speed (the "
        "sub-steps follow from it), or weaken what drives the flow (physics.body_force" +
        std::string(th.rayleigh > 0 ? ", thermal.rayleigh" : "") + "), or raise the resolution";
  }
  return f;
}

/// The remedy of a problem that names none of its own.
std::string general_hint(const CaseConfig& config) {
  return std::string("lower the velocity, raise the resolution or tau") +
         (config.collision == Collision::bgk ? ", or use collision = \"trt\"" : "") +
         (config.thermal.buoyancy > 0 ? "; with buoyancy, a lower thermal.rayleigh" : "") +
         (config.particles.two_way ? "; with two-way coupling, smaller or lighter particles (the point-particle "
                                     "coupling assumes diameters below one cell)"
                                   : "");
}

}  // namespace

void guard(const CaseConfig& config, const Diagnostics& d, const ThermalDiagnostics& t, Simulation& sim,
           SnapshotWriter& snapshots, std::ostream& log, std::int64_t unstable) {
  Finding found = fluid_problem(d);
  // d is reduced over the ranks, so every rank takes the same branches and the collective checks below match.
  if (found.problem.empty() && sim.has_particles()) found = particle_problem(sim);
  if (found.problem.empty() && sim.has_thermal()) found = thermal_problem(config, d, t);
  if (found.problem.empty() && unstable >= 0) {
    // The kernel saw the velocity it collided in that step; the state written is the one after it, which the
    // checks above may find back in range.
    found.problem = "|u| exceeded the lattice limit " + format_number("%.1f", kMaxLatticeSpeed) +
                    " or became NaN during step " + std::to_string(unstable + 1) +
                    "; now max |u| = " + format_number("%.3g", d.max_speed) + " at cell " + cell_text(d.fastest_cell);
  }
  if (found.problem.empty()) return;
  const std::string hint = found.hint.empty() ? general_hint(config) : found.hint;
  const std::string message = "the run became unstable by step " + std::to_string(sim.time_step()) + ": " +
                              found.problem + " (0-based global cell indices; the flow is checked every " +
                              std::to_string(kStabilityCheckSteps) + " steps, the rest at reports); " + hint;
  if (config.write_vtk || !config.slices.empty()) {
    log << "  instability detected; writing the current fields before stopping\n";
    try {
      snapshots.write(sim, log);
    } catch (const OutputError& e) {
      // On several ranks only this rank may have failed: it must end the job (MPI_Abort), not wait for the others.
      if (sim.decomposition().size > 1) throw OutputError(message + "; the fields could not be written: " + e.what());
      throw InstabilityError(message + "; the fields could not be written: " + e.what());
    }
  }
  throw InstabilityError(message);
}

void guard_current_state(const CaseConfig& config, Simulation& sim, SnapshotWriter& snapshots, std::ostream& log,
                         std::int64_t unstable) {
  const Diagnostics d = reduce_diagnostics(sim.diagnose(), sim.decomposition());
  const ThermalDiagnostics t = sim.thermal_diagnostics();  // collective; defaults without [thermal]
  guard(config, d, t, sim, snapshots, log, unstable);
}

}  // namespace eddy
