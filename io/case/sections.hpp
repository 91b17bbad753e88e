// io/case/sections.hpp: the reader and the finalizer of each group of sections, one file each under io/case/:
//   domain.cpp      [case], [domain], [boundary.<face>]
//   physics.cpp     [physics], [initial], numerics.min_tau, the Mach number
//   thermal.cpp     [thermal]
//   units.cpp       [units]
//   numerics.cpp    [numerics] (collision, storage, out-of-core)
//   run_output.cpp  [run], [output], [checkpoint]
//   parallel.cpp    [parallel]
//   particles.cpp   [particles]
//   solids.cpp      [[solid]], [forces]
//   probes.cpp      [[output.probe]]
//   statistics.cpp  [statistics]
// A reader takes the file's table (file values and units -> CaseConfig; checks that quote the value as written); a
// finalizer takes the plain struct (checks shared with cases built in code, derived values). Each range rule is
// written once, in its section's file. What a reader needs from another section is a parameter, so read_case
// (io/case_config.cpp) cannot call them in the wrong order.
// toml++ inside (Section): include only in host-only io/ sources.
#pragma once

#include <string>
#include <utility>

#include "io/case/rules.hpp"
#include "io/case/section.hpp"
#include "io/case_config.hpp"

namespace eddy::case_io {

// ---- domain.cpp ----------------------------------------------------------------------------------------------------
void read_case_section(const Section& section, CaseConfig& config);
/// [domain]: size and periodic axes (the faces of periodic axes become periodic, the others resting walls).
void read_domain(const Section& section, CaseConfig& config);
/// [boundary.<face>]; needs the faces of read_domain (periodic axes) and `velocity`, physics.velocity (wall
/// velocities are in units of U). `temperature` makes the face a fixed-temperature wall (config.thermal.walls).
void read_boundary(const Section& boundary, double velocity, CaseConfig& config);
/// domain.size limits, periodic pairs, wall velocities (finite, on moving walls only, tangential).
void finalize_domain(CaseConfig& config, const Source& source);

// ---- open_boundaries.cpp -------------------------------------------------------------------------------------------
/// The keys of an open [boundary.<face>] (`kind` velocity_inlet, pressure_outlet, outflow or free_slip), after
/// read_boundary has checked that the table holds only keys of its type; velocities in units of `velocity`
/// (physics.velocity), or SI under [units] (FaceBoundary::in_si). Reads the inlet's CSV profile file (CaseFileError
/// when it is missing or unreadable, InputError naming the line when malformed).
FaceBoundary read_open_face(const Section& section, int face, FaceKind kind, double velocity, const CaseConfig& config);
/// After finalize_units and finalize_physics, before finalize_mach: SI values to lattice units, the parabolic peak
/// from a mean velocity, the CSV profile's coverage of the face, the outlet density from a pressure, the convection
/// velocity's default (U); refuses open faces with [thermal] or [particles] and outlets on axes of one cell.
void finalize_open_boundaries(CaseConfig& config, const Source& source);
/// The fastest inlet speed of face `b` (lattice units; 0 for other types), for the Mach check.
double open_face_speed(const FaceBoundary& b);

// ---- thermal.cpp ---------------------------------------------------------------------------------------------------
/// [thermal] (the section's presence turns the temperature field on); an absent section gives ThermalConfig{}.
ThermalConfig read_thermal(const Section& section);
/// Before finalize_physics: the temperature walls need [thermal]; Pr, Ra, gravity, the perturbation; the defaults
/// of dT, T_ref and the initial T from the walls; L from the heated axis.
void finalize_thermal_inputs(CaseConfig& config, const Source& source);
/// After physics, the initial condition and the Mach check: kappa, g beta, the free-fall velocity and the sub-steps.
void finalize_thermal(CaseConfig& config, const Source& source);

// ---- units.cpp -----------------------------------------------------------------------------------------------------
/// [units] (SI quantities); an absent section gives UnitsConfig{}.
UnitsConfig read_units(const Section& section);
/// Before finalize_physics: dx, dt, the lattice velocity and viscosity from the SI values.
void finalize_units(CaseConfig& config, const Source& source);

// ---- physics.cpp ---------------------------------------------------------------------------------------------------
/// [physics]; needs [thermal] (with Ra > 0 the viscosity keys may be left out) and [units] (which fixes U and nu).
void read_physics(const Section& section, const ThermalConfig& thermal, const UnitsConfig& units, CaseConfig& config);
/// [initial]; needs physics.velocity (the amplitude is in units of U).
void read_initial(const Section& section, CaseConfig& config);
/// numerics.min_tau in (0.5, 1], before finalize_units and finalize_physics use it.
void finalize_min_tau(const CaseConfig& config, const Source& source);
/// nu, tau and Re from whichever fixes the viscosity; needs finalize_thermal_inputs and finalize_units first.
void finalize_physics(CaseConfig& config, const Source& source);
void finalize_initial(CaseConfig& config, const Source& source);
/// Ma <= kMachLimit for the largest imposed speed.
void finalize_mach(const CaseConfig& config, const Source& source);
/// The largest speed the case imposes (lattice units) and the key it comes from.
std::pair<double, std::string> max_speed(const CaseConfig& config);
/// nu at tau = numerics.min_tau: the smallest viscosity a run accepts.
double min_viscosity(const CaseConfig& config);
/// "tau = ... is too close to tau = 1/2 ...", and the way to run anyway: the parts of the messages that refuse a tau
/// below numerics.min_tau (here and in finalize_units).
std::string below_min_tau(const CaseConfig& config, double tau);
std::string accept_low_tau(double tau);

// ---- numerics.cpp --------------------------------------------------------------------------------------------------
void read_numerics(const Section& section, CaseConfig& config);
/// numerics.magic.
void finalize_numerics(const CaseConfig& config, const Source& source);
/// The out-of-core keys: ranges, the keys that need out_of_core, what out_of_core = true does not support.
void finalize_out_of_core(const CaseConfig& config, const Source& source);

// ---- run_output.cpp ------------------------------------------------------------------------------------------------
void read_run(const Section& section, CaseConfig& config);
void read_output(const Section& section, CaseConfig& config);
void read_checkpoint(const Section& section, CaseConfig& config);
/// run.steps, run.report_every (default steps / 10), output.every and directory, checkpoint.every.
void finalize_run_output(CaseConfig& config, const Source& source);

// ---- probes.cpp ----------------------------------------------------------------------------------------------------
/// [[output.probe]] inside [output] (`output`): names, points (cells; metres under [units]), every, fields.
void read_probes(const Section& output, CaseConfig& config);
/// After finalize_units and finalize_thermal_inputs: points to cells (metres / units.dx), each inside the domain
/// [0, n] per axis, "temperature" only with [thermal]. A point in a solid cell is refused at the run's set-up
/// (solver/probes.hpp), where the cells are known.
void finalize_probes(CaseConfig& config, const Source& source);

// ---- output_selection.cpp ----------------------------------------------------------------------------------------
/// [output] region (min, max: cells, or m under [units]), stride (one integer or three) and [[output.slice]]
/// (normal, position, name, every) inside [output] (`output`).
void read_output_selection(const Section& output, CaseConfig& config);
/// After finalize_units and finalize_run_output: the region to node indices (nodes at the cell centres inside
/// [min, max]; at least one per axis; inside the domain), strides >= 1, each slice's node layer (the cell holding its
/// position, inside [0, n]), unique slice names, a slice's every defaulting to output.every.
void finalize_output_selection(CaseConfig& config, const Source& source);

// ---- statistics.cpp ------------------------------------------------------------------------------------------------
/// [statistics] (the section's presence turns the running averages on); needs [units] (start_time in s).
void read_statistics(const Section& section, CaseConfig& config);
/// After finalize_units and finalize_run_output: start_time to a step (s over units.dt, or steps), the start before
/// run.steps, every >= 1, the fields' default (all that apply) in snapshot order, mean_temperature only with
/// [thermal]; refuses numerics.out_of_core = true.
void finalize_statistics(CaseConfig& config, const Source& source);

// ---- parallel.cpp --------------------------------------------------------------------------------------------------
/// [parallel]; needs domain.size (each rank needs at least one cell per axis).
void read_parallel(const Section& section, CaseConfig& config);
void finalize_parallel(const CaseConfig& config, const Source& source);

// ---- particles.cpp -------------------------------------------------------------------------------------------------
/// [particles]; needs domain.size (box, diameter) and the case file's location (positions).
void read_particles(const Section& section, CaseConfig& config);
/// Seeding, the box inside the domain, the diameter below the smallest side, the inertial-only settings.
void finalize_particles(CaseConfig& config, const Source& source);

// ---- solids.cpp ----------------------------------------------------------------------------------------------------
/// [[solid]] (an array of tables, one per body), lengths in cells, or in metres when `metres` ([units] present).
void read_solids(const Source& source, const toml::table& root, bool metres, CaseConfig& config);
/// [forces]: the sampling interval and the start of the summary's statistics.
void read_forces(const Section& section, CaseConfig& config);
/// After finalize_units (metres to cells by units.dx) and the thermal and particle sections: names unique, radii
/// > 0, boxes not empty, cylinder axes of non-zero length; refuses fixed-temperature walls and [particles] with
/// solids, and solids that leave no fluid cell; the force references of the solids with forces = true (defaults,
/// directions) and [forces] (needs run.report_every: finalize_run_output first).
void finalize_solids(CaseConfig& config, const Source& source);

}  // namespace eddy::case_io
