// The DFG benchmark runs and their read-outs (tests/physics/dfg_benchmark.hpp).
#include "tests/physics/dfg_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "io/csv_table.hpp"
#include "solver/force_statistics.hpp"
#include "solver/solid_forces.hpp"
#include "tests/test_support.hpp"

namespace eddy::test::dfg {

namespace {

/// The number columns of the row (quantity, dfg_case) of a table "quantity,case,<numbers>" in tests/data.
std::vector<double> table_row(const std::string& file, const std::string& quantity, const std::string& dfg_case) {
  const std::string path = data_file(file);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (trim(line).empty() || trim(line).front() == '#') continue;
    if (header) {  // the column names
      header = false;
      continue;
    }
    const std::vector<std::string_view> cells = split_cells(line);
    if (cells.size() < 3 || cells[0] != quantity || cells[1] != dfg_case) continue;
    std::vector<double> values;
    for (std::size_t k = 2; k < cells.size(); ++k) values.push_back(std::stod(std::string(cells[k])));
    return values;
  }
  throw std::runtime_error(path + " has no row for " + quantity + " of " + dfg_case);
}

}  // namespace

Bounds bounds(const std::string& quantity, const std::string& dfg_case) {
  const std::vector<double> v = table_row("schaefer_turek1996_dfg_bounds.csv", quantity, dfg_case);
  if (v.size() != 2) throw std::runtime_error("bounds of " + quantity + ": expected lower and upper");
  return {v[0], v[1]};
}

double reference(const std::string& quantity, const std::string& dfg_case) {
  const std::vector<double> v = table_row("dfg_2d1_reference.csv", quantity, dfg_case);
  if (v.size() != 1) throw std::runtime_error("reference of " + quantity + ": expected one value");
  return v[0];
}

int cells_per_diameter(int stated, std::string* note) {
  const char* text = std::getenv("EDDY_DFG_CELLS");
  int cells = stated;
  if (text != nullptr && *text != '\0') cells = std::atoi(text);
  if (cells < 10 || cells % 10 != 0)
    throw std::runtime_error("EDDY_DFG_CELLS = " + std::string(text ? text : "") +
                             ": cells per diameter must be a multiple of 10 (the channel is 4.1 D high)");
  if (note != nullptr) {
    std::ostringstream s;
    if (cells == stated)
      s << "D = " << cells << " cells (the resolution the bounds are stated at)";
    else
      s << "D = " << cells << " cells from EDDY_DFG_CELLS, not the stated " << stated
        << ": the bounds are meant for D = " << stated;
    *note = s.str();
  }
  return cells;
}

namespace {

/// Whole cells of `metres` at `cells` per diameter (the benchmark's lengths are multiples of D / 10).
int whole_cells(double metres, int cells) {
  const double n = metres / kDiameter * cells;
  const double rounded = std::round(n);
  if (std::abs(n - rounded) > 1e-9) throw std::runtime_error("a length of the domain is not a whole number of cells");
  return int(rounded);
}

}  // namespace

CaseConfig load_case_at(const std::string& file, int cells, double lattice_velocity,
                        const std::vector<std::string>& overrides) {
  const std::string path = std::string(EDDY_SOURCE_DIR) + "/cases/" + file;
  // The file's own size says which channel it is (2D: one cell deep).
  const CaseConfig shipped = load_case(path);
  const double dx = shipped.units.dx;
  const double lx = shipped.size[0] * dx, ly = shipped.size[1] * dx, lz = shipped.size[2] * dx;
  const bool three_d = shipped.size[2] > 1;
  std::ostringstream size;
  size << "domain.size=[" << whole_cells(lx, cells) << "," << whole_cells(ly, cells) << ","
       << (three_d ? whole_cells(lz, cells) : 1) << "]";
  std::vector<std::string> sets = {size.str(), "physics.length=" + std::to_string(cells), "output.vtk=false"};
  const char* text = std::getenv("EDDY_DFG_LATTICE_VELOCITY");
  if (!(lattice_velocity > 0.0) && text != nullptr && *text != '\0') lattice_velocity = std::atof(text);
  if (lattice_velocity > 0.0) {
    std::ostringstream u;
    u.precision(17);
    u << "units.lattice_velocity=" << lattice_velocity;
    sets.push_back(u.str());
  }
  sets.insert(sets.end(), overrides.begin(), overrides.end());
  return load_case(path, sets);
}

std::int64_t steps_of(const CaseConfig& c, double seconds) {
  return std::max<std::int64_t>(1, std::llround(seconds / c.units.dt));
}

Coefficients coefficients(Simulation& sim, const CaseConfig& c) {
  const std::vector<SolidForce> forces = solid_forces(sim);
  const ForceCoefficients k = force_coefficients(c.solids.at(0), forces.at(0));
  return {k.drag, k.lift};
}

namespace {

/// rho at node `i` along `axis`, interpolated linearly over the other axes (those longer than one cell) at the
/// point `p` (cells); every node with a weight must be fluid.
double line_node_density(const MacroscopicFields& f, const std::array<double, 3>& p, int axis, int i) {
  int lo[3], n[3];
  double w[3];
  for (int a = 0; a < 3; ++a) {
    if (a == axis || f.size[a] == 1) {
      lo[a] = (a == axis) ? i - f.offset[a] : 0, n[a] = 1, w[a] = 0.0;
    } else {
      const double x = p[a] - 0.5 - f.offset[a];
      lo[a] = int(std::floor(x)), w[a] = x - lo[a], n[a] = w[a] > 0.0 ? 2 : 1;
    }
    if (lo[a] < 0 || lo[a] + n[a] > f.size[a]) throw std::runtime_error("pressure point outside the block");
  }
  double rho = 0.0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int m = 0; m < n[0]; ++m) {
        const double value = f.rho[f.index(lo[0] + m, lo[1] + j, lo[2] + k)];
        if (!(value > 0.0)) throw std::runtime_error("pressure point next to a solid node");  // solids read 0
        rho += value * (m ? w[0] : 1.0 - w[0]) * (j ? w[1] : 1.0 - w[1]) * (k ? w[2] : 1.0 - w[2]);
      }
  return rho;
}

}  // namespace

double surface_pressure(const MacroscopicFields& f, const CaseConfig& c, const std::array<double, 3>& surface, int axis,
                        int side) {
  // The three node centres i + 0.5 nearest to the point on its fluid side along the axis, at distances d_k > 0.
  const double x = surface[axis];
  int i0 = side < 0 ? int(std::floor(x - 0.5)) : int(std::ceil(x - 0.5));
  if (std::abs(i0 + 0.5 - x) == 0.0) i0 += side;
  double d[3], rho[3];
  for (int k = 0; k < 3; ++k) {
    const int i = i0 + side * k;
    d[k] = std::abs(i + 0.5 - x);
    rho[k] = line_node_density(f, surface, axis, i);
  }
  // The quadratic through (d_k, rho_k) at d = 0 (Lagrange).
  double rho0 = 0.0;
  for (int k = 0; k < 3; ++k) {
    double weight = 1.0;
    for (int m = 0; m < 3; ++m)
      if (m != k) weight *= d[m] / (d[m] - d[k]);
    rho0 += weight * rho[k];
  }
  const double lattice_speed = c.units.dx / c.units.dt;  // m/s per lattice velocity
  return (rho0 - 1.0) / 3.0 * c.units.density * lattice_speed * lattice_speed;
}

double pressure_difference(Simulation& sim, const CaseConfig& c) {
  const SolidConfig& s = c.solids.at(0);
  const MacroscopicFields f = sim.fields();
  const double z = 0.5 * c.size[2];  // the channel's centre plane (2D: the one cell)
  const double p_front = surface_pressure(f, c, {s.start[0] - s.radius, s.start[1], z}, 0, -1);
  const double p_back = surface_pressure(f, c, {s.start[0] + s.radius, s.start[1], z}, 0, +1);
  return p_front - p_back;
}

double sound_period(const CaseConfig& c) { return 4.0 * c.size[0] * std::sqrt(3.0) * c.units.dt; }

namespace {

/// max - min of the values of `x` from index `first` on, over |x.back()|.
double relative_spread(const std::vector<double>& x, std::size_t first) {
  const auto [lo, hi] = std::minmax_element(x.begin() + first, x.end());
  return (*hi - *lo) / std::abs(x.back());
}

void check_stable(Simulation& sim) {
  if (sim.unstable_step() >= 0)
    throw std::runtime_error("the run went unstable at step " + std::to_string(sim.unstable_step()));
}

}  // namespace

SteadyState run_to_steady_state(const CaseConfig& c, double every_s, double tolerance, double min_s, double max_s) {
  auto sim = Simulation::create(c);
  const std::int64_t chunk = steps_of(c, every_s);
  const double window = 1.25 * sound_period(c);
  std::vector<double> time, drag, lift, dp;
  SteadyState s;
  while (s.time < max_s) {
    sim->advance(chunk);
    check_stable(*sim);
    s.steps += chunk;
    s.time = double(s.steps) * c.units.dt;
    const Coefficients k = coefficients(*sim, c);
    time.push_back(s.time);
    drag.push_back(k.drag);
    lift.push_back(k.lift);
    dp.push_back(pressure_difference(*sim, c));
    if (!std::isfinite(drag.back()) || !std::isfinite(dp.back())) throw std::runtime_error("non-finite C_D or dp");
    if (s.time - time.front() < window) continue;
    std::size_t first = time.size() - 1;
    while (first > 0 && s.time - time[first] < window) --first;
    s.spread_drag = relative_spread(drag, first);
    s.spread_dp = relative_spread(dp, first);
    if (s.time >= min_s && s.spread_drag < tolerance && s.spread_dp < tolerance) {
      s.steady = true;
      break;
    }
  }
  s.drag = drag.back(), s.lift = lift.back(), s.dp = dp.back();
  return s;
}

double refined_maximum(const std::vector<double>& t, const std::vector<double>& x, double t_from, double t_to) {
  std::size_t best = t.size();
  for (std::size_t n = 0; n < t.size(); ++n)
    if (t[n] >= t_from && t[n] < t_to && (best == t.size() || x[n] > x[best])) best = n;
  if (best == t.size()) throw std::runtime_error("no samples in the window");
  if (best == 0 || best + 1 >= t.size()) return x[best];
  // The parabola through three evenly spaced samples (-1, a), (0, b), (1, e) peaks at b - (a - e)^2 / (8 (a - 2b + e)).
  const double a = x[best - 1], b = x[best], e = x[best + 1];
  const double curvature = a - 2.0 * b + e;
  if (!(curvature < 0.0)) return b;
  return b - (a - e) * (a - e) / (8.0 * curvature);
}

Shedding run_shedding(const CaseConfig& c, double spinup_s, double window_s, int per_period, int periods) {
  const SolidConfig& solid = c.solids.at(0);
  const double period_guess = solid.reference_length / (0.3 * solid.reference_velocity) * c.units.dt;  // s
  const std::int64_t every = std::max<std::int64_t>(1, std::llround(period_guess / per_period / c.units.dt));
  auto sim = Simulation::create(c);
  sim->advance(steps_of(c, spinup_s));
  check_stable(*sim);
  std::vector<double> time, drag, lift;
  const std::int64_t samples = std::max<std::int64_t>(1, steps_of(c, window_s) / every);
  for (std::int64_t n = 0; n < samples; ++n) {
    sim->advance(every);
    if (n % 64 == 0) check_stable(*sim);
    const Coefficients k = coefficients(*sim, c);
    time.push_back(double(sim->time_step()) * c.units.dt);
    drag.push_back(k.drag);
    lift.push_back(k.lift);
  }
  check_stable(*sim);
  Shedding s;
  const DominantFrequency f = dominant_frequency(time, lift);
  s.found = f.found;
  s.reason = f.reason;
  if (!f.found) return s;
  s.frequency = f.frequency;
  // St = f L / U: f in 1/s, L and U finalized to cells and lattice velocity (dx / dt per lattice velocity).
  s.strouhal = f.frequency * c.units.dt * solid.reference_length / solid.reference_velocity;
  const double T = 1.0 / f.frequency, end = time.back() + 0.5 * every * c.units.dt;
  double drag_lo = HUGE_VAL, lift_lo = HUGE_VAL;
  s.drag_max = s.lift_max = -HUGE_VAL;
  for (int p = 0; p < periods; ++p) {
    const double from = end - (p + 1) * T, to = end - p * T;
    const double d = refined_maximum(time, drag, from, to), l = refined_maximum(time, lift, from, to);
    s.drag_max = std::max(s.drag_max, d), drag_lo = std::min(drag_lo, d);
    s.lift_max = std::max(s.lift_max, l), lift_lo = std::min(lift_lo, l);
  }
  s.drag_max_spread = s.drag_max - drag_lo;
  s.lift_max_spread = s.lift_max - lift_lo;
  // dp half a period after the next maximum of C_L.
  std::vector<double> t2, lift2, dp2;
  const std::int64_t more = std::llround(1.5 * T / (every * c.units.dt)) + 2;
  for (std::int64_t n = 0; n < more; ++n) {
    sim->advance(every);
    t2.push_back(double(sim->time_step()) * c.units.dt);
    lift2.push_back(coefficients(*sim, c).lift);
    dp2.push_back(pressure_difference(*sim, c));
  }
  check_stable(*sim);
  std::size_t peak = 0;
  for (std::size_t n = 0; n < t2.size() && t2[n] < t2.front() + T; ++n)
    if (lift2[n] > lift2[peak]) peak = n;
  double t0 = t2[peak];
  if (peak > 0 && peak + 1 < t2.size()) {  // the parabola's vertex, as in refined_maximum
    const double a = lift2[peak - 1], b = lift2[peak], e = lift2[peak + 1], curvature = a - 2.0 * b + e;
    if (curvature < 0.0) t0 += 0.5 * (a - e) / curvature * (t2[1] - t2[0]);
  }
  const double target = t0 + 0.5 * T;
  std::size_t n = 0;
  while (n + 2 < t2.size() && t2[n + 1] < target) ++n;
  const double w = (target - t2[n]) / (t2[n + 1] - t2[n]);
  s.dp = (1.0 - w) * dp2[n] + w * dp2[n + 1];
  s.steps = sim->time_step();
  s.time = double(s.steps) * c.units.dt;
  return s;
}

}  // namespace eddy::test::dfg
