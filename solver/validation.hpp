// Validation helpers: cavity centreline profiles and their comparison with tabulated reference data.
#pragma once

#include <array>
#include <vector>

#include "solver/simulation.hpp"

namespace eddy {

/// A velocity profile along a line: positions s (normalised, 0..1) and values (normalised by U), ascending s.
struct Profile {
  std::vector<double> s;
  std::vector<double> value;
};

/// Cavity centreline profiles in normalised units (lengths / L, velocities / U), from fields in lattice units:
/// u_x along the vertical centreline (x = 1/2, mid-plane z) as a function of y, and u_y along the horizontal
/// centreline (y = 1/2) as a function of x. Node i sits at (i + 0.5) / n; for even n the two middle rows are
/// averaged. Wall values (0 on the walls, the lid speed at y = 1) are included as end points.
struct CavityCenterlines {
  Profile u_vertical;    ///< s = y, value = u_x / U
  Profile v_horizontal;  ///< s = x, value = u_y / U
};
CavityCenterlines cavity_centerlines(const MacroscopicFields& fields, double lid_velocity, double lid_value);

/// The four terms of each centreline average (the middle nodes across the line and in z), one entry per global
/// node along the line (lattice units). Each entry is owned by exactly one rank (others hold 0), so adding them over
/// ranks (MPI_SUM) is exact, and cavity_centerlines below averages them in a fixed order: any decomposition gives
/// bitwise the one-rank profile.
struct CenterlineSums {
  std::array<std::vector<double>, 4> u_vertical;    ///< u_x on x = 1/2, per global y
  std::array<std::vector<double>, 4> v_horizontal;  ///< u_y on y = 1/2, per global x
};
CenterlineSums centerline_sums(const MacroscopicFields& fields);
CavityCenterlines cavity_centerlines(const CenterlineSums& sums, double lid_velocity, double lid_value);

/// Natural cubic spline through (s, value), evaluated at `at` (each inside [s.front(), s.back()]).
std::vector<double> spline_interpolate(const Profile& profile, const std::vector<double>& at);

/// Root-mean-square of (profile(at) - reference) over the stations strictly inside (0, 1).
double rms_error(const Profile& profile, const std::vector<double>& at, const std::vector<double>& reference);

}  // namespace eddy
