// The DFG benchmark "laminar flow around a cylinder" (Schaefer & Turek 1996; set-up, definitions and bounds in
// tests/data/schaefer_turek1996_dfg_bounds.csv) on the shipped cases cases/cylinder_2d_re20.toml (2D-1),
// cylinder_2d_re100.toml (2D-2) and cylinder_3d_re20.toml (3D-1Z), at any resolution: the runs, the drag and lift
// coefficients from the momentum exchange on the cylinder (solver/solid_forces.hpp), the pressure difference between
// the cylinder's front and back points from the density field, and, for 2D-2, the maxima over the last periods and
// the Strouhal number.
//
// Resolution: D = `cells` cells per diameter (the cases' length unit, physics.length, spans units.length = D), so
// dx = D / cells and the domain is (2.2, 0.41, dx) / dx cells in 2D, (2.5, 0.41, 0.41) / dx in 3D: whole numbers
// for cells a multiple of 10. units.lattice_velocity (U_mean in lattice units) is the case's unless given; times
// are physical (s), so a resolution changes the steps, not the flow's history.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/simulation.hpp"

namespace eddy::test::dfg {

/// The benchmark's geometry (m): cylinder diameter and channel height.
inline constexpr double kDiameter = 0.1;
inline constexpr double kHeight = 0.41;

/// The interval [lower, upper] of `quantity` ("c_D", "c_L", "dp", "St", "c_D_max", "c_L_max", "L_a") for
/// `dfg_case` ("2D-1", "2D-2", "3D-1Z") from tests/data/schaefer_turek1996_dfg_bounds.csv. Fails the test (throws
/// std::runtime_error) when the file lacks the row.
struct Bounds {
  double lower = 0.0, upper = 0.0;
  bool contains(double x) const { return x >= lower && x <= upper; }
  double mid() const { return 0.5 * (lower + upper); }
};
Bounds bounds(const std::string& quantity, const std::string& dfg_case);

/// The precise reference value of `quantity` ("c_D", "c_L", "dp") of 2D-1 from tests/data/dfg_2d1_reference.csv
/// (throws std::runtime_error when the file lacks the row).
double reference(const std::string& quantity, const std::string& dfg_case);

/// Cells per diameter: the environment variable EDDY_DFG_CELLS when set (a coarser grid for a CPU), else
/// `stated`, the resolution the test's bounds are stated at. `note` receives a line saying which.
int cells_per_diameter(int stated, std::string* note = nullptr);

/// cases/<file> at `cells` cells per diameter (a multiple of 10), with `lattice_velocity` (U_mean in lattice units;
/// 0: the environment variable EDDY_DFG_LATTICE_VELOCITY when set, for studies of the Mach number's part, else the
/// case's) and further --set style overrides; finalized. VTK output off (the tests read the fields).
CaseConfig load_case_at(const std::string& file, int cells, double lattice_velocity = 0.0,
                        const std::vector<std::string>& overrides = {});

/// Steps of `seconds` of flow (rounded to the nearest step, at least 1).
std::int64_t steps_of(const CaseConfig& c, double seconds);

/// The drag and lift coefficients of the case's first solid for the step just taken (C_D = 2 F_x / (rho U^2 A),
/// C_L = 2 F_y / (rho U^2 A) with the solid's reference area and velocity; collective).
struct Coefficients {
  double drag = 0.0, lift = 0.0;
};
Coefficients coefficients(Simulation& sim, const CaseConfig& c);

/// The pressure p = c_s^2 (rho - 1) rho_si (dx / dt)^2 (Pa relative to the reference density's) at the point
/// `surface` (cells, global coordinates) on the cylinder's surface, from its fluid side along `axis` (side -1:
/// towards lower coordinates, +1 higher): rho at the three node centres nearest to the point on that side of the grid
/// line through it (interpolated linearly across the other axes; each node used must be fluid), extrapolated to the
/// point by the quadratic through them (Lagrange; third order in dx). Throws std::runtime_error when a node used is
/// solid or outside the block.
double surface_pressure(const MacroscopicFields& f, const CaseConfig& c, const std::array<double, 3>& surface, int axis,
                        int side);

/// dp = p(x_a) - p(x_e): the front point x_a = (x_c - D/2, y_c, z_m) and the back point x_e = (x_c + D/2, y_c, z_m)
/// of the cylinder of `c` (its axis through (x_c, y_c)), z_m the centre plane of a 3D channel (the benchmark's
/// 0.205); Pa (rho_si = 1 in the cases). Collective.
double pressure_difference(Simulation& sim, const CaseConfig& c);

/// The period (s) of the channel's slowest sound wave: a quarter wavelength between the velocity inlet (a closed
/// end for sound) and the pressure outlet (an open one), 4 nx / c_s steps, c_s = 1 / sqrt(3). The inlet's ramp
/// excites it and it decays slowly (viscously), so a steady state is judged over windows longer than it.
double sound_period(const CaseConfig& c);

/// A steady run: sampled every `every_s` seconds of flow; steady once, over the samples of the last window of
/// 1.25 sound periods (sound_period), C_D and dp each vary by less than `tolerance` relative to their last value
/// (max - min over the window), after at least `min_s` seconds; at `max_s` seconds it stops unsteady. C_D, C_L
/// and dp are the last sample's; spread_* the window's relative variations.
struct SteadyState {
  double drag = 0.0, lift = 0.0, dp = 0.0;
  double spread_drag = 0.0, spread_dp = 0.0;
  double time = 0.0;  // s of flow
  std::int64_t steps = 0;
  bool steady = false;
};
SteadyState run_to_steady_state(const CaseConfig& c, double every_s, double tolerance, double min_s, double max_s);

/// Vortex shedding (2D-2): after `spinup_s` seconds, C_D and C_L sampled about `per_period` times per period (of
/// the guess St = 0.3) for `window_s` seconds; St = f L / U from C_L's dominant frequency f (dominant_frequency,
/// solver/force_statistics.hpp; L, U the solid's reference length and velocity), the largest C_D and C_L over each
/// of the last `periods` periods (refined_maximum), their maxima and spreads (max - min over those periods); then
/// dp at t0 + 1 / (2 f), t0 the time of the next maximum of C_L (the benchmark's definition), from fields read at
/// every sample of one and a half further periods (linear interpolation between samples).
struct Shedding {
  bool found = false;
  std::string reason;                      // when no frequency was found
  double frequency = 0.0, strouhal = 0.0;  // 1/s
  double drag_max = 0.0, lift_max = 0.0;
  double drag_max_spread = 0.0, lift_max_spread = 0.0;
  double dp = 0.0;
  double time = 0.0;
  std::int64_t steps = 0;
};
Shedding run_shedding(const CaseConfig& c, double spinup_s, double window_s, int per_period, int periods);

/// The largest value of `x` over the samples with t_from <= t < t_to, refined by the parabola through the largest
/// sample and its two neighbours (for a smooth periodic signal sampled at n points per period, the raw maximum is low
/// by up to about (pi / n)^2 / 2 of the amplitude; the parabola's error is of order (pi / n)^4).
double refined_maximum(const std::vector<double>& t, const std::vector<double>& x, double t_from, double t_to);

}  // namespace eddy::test::dfg
