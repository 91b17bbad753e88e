// Runs a 2D lid-driven cavity to steady state and compares its centrelines with tabulated reference data.
#pragma once

#include <string>
#include <vector>

#include "io/csv_table.hpp"
#include "solver/simulation.hpp"
#include "solver/validation.hpp"
#include "tests/test_support.hpp"

namespace eddy::test {

/// RMS errors (in units of the lid speed) of the two centreline profiles.
struct GhiaErrors {
  double u_rms, v_rms;
};

/// A reference table pair: file, position column and value column for u(y) on x = 1/2 and v(x) on y = 1/2.
struct CenterlineReference {
  std::string u_file, y_column, u_column;
  std::string v_file, x_column, v_column;
};

inline CenterlineReference ghia1982(const std::string& re) {
  return {"ghia1982_u_vertical_centerline.csv", "y_exact", "u_Re" + re,
          "ghia1982_v_horizontal_centerline.csv", "x_exact", "v_Re" + re};
}

/// The centrelines (in units of the lid speed) of an N x N x 1 cavity at `reynolds`, lid speed 0.1, TRT, run for
/// `turnovers` lid passages (t U / L), with subgrid model `les`.
inline CavityCenterlines cavity_run(int n, double reynolds, double turnovers, Precision precision,
                                    LesModel les = LesModel::none) {
  const double lid = 0.1;
  CaseConfig c = box_case(n, n, 1, 0.0);
  c.tau = 0.0;
  c.reynolds = reynolds;
  c.velocity = lid;
  make_periodic(c, 2);
  c.faces[3] = {FaceKind::moving_wall, {lid, 0.0, 0.0}};
  c.precision = precision;
  c.les = les;
  finalize_case(c);
  auto sim = Simulation::create(c);
  sim->advance(std::int64_t(turnovers * n / lid));  // t U / L turnovers of the lid
  return cavity_centerlines(sim->fields(), lid, 1.0);
}

/// The cavity of cavity_run compared with each reference.
inline std::vector<GhiaErrors> cavity_vs_reference(int n, double reynolds, double turnovers, Precision precision,
                                                   const std::vector<CenterlineReference>& references) {
  const CavityCenterlines lines = cavity_run(n, reynolds, turnovers, precision);

  std::vector<GhiaErrors> errors;
  for (const CenterlineReference& r : references) {
    const CsvTable u_ref = read_csv(data_file(r.u_file));
    const CsvTable v_ref = read_csv(data_file(r.v_file));
    errors.push_back({rms_error(lines.u_vertical, u_ref.column(r.y_column), u_ref.column(r.u_column)),
                      rms_error(lines.v_horizontal, v_ref.column(r.x_column), v_ref.column(r.v_column))});
  }
  return errors;
}

}  // namespace eddy::test
