#include "solver/validation.hpp"

#include <cmath>
#include <stdexcept>

namespace eddy {

namespace {

/// Average of a field component over the middle node(s) of the two axes other than `along`.
Profile centreline(const MacroscopicFields& f, int component, int along, int across, double scale, double wall_low,
                   double wall_high) {
  const int n_along = f.size[along], n_across = f.size[across];
  const int z_lo = (f.size[2] - 1) / 2, z_hi = f.size[2] / 2;
  const int a_lo = (n_across - 1) / 2, a_hi = n_across / 2;
  Profile p;
  p.s.push_back(0.0);
  p.value.push_back(wall_low);
  for (int i = 0; i < n_along; ++i) {
    double sum = 0.0;
    int count = 0;
    for (int z : {z_lo, z_hi})
      for (int a : {a_lo, a_hi}) {
        int c[3] = {0, 0, z};
        c[along] = i;
        c[across] = a;
        sum += f.u[component][f.index(c[0], c[1], c[2])];
        ++count;
      }
    p.s.push_back((i + 0.5) / n_along);
    p.value.push_back(sum / count * scale);
  }
  p.s.push_back(1.0);
  p.value.push_back(wall_high);
  return p;
}

}  // namespace

CavityCenterlines cavity_centerlines(const MacroscopicFields& fields, double lid_velocity, double lid_value) {
  const double scale = 1.0 / lid_velocity;
  CavityCenterlines c;
  c.u_vertical = centreline(fields, 0, 1, 0, scale, 0.0, lid_value);
  c.v_horizontal = centreline(fields, 1, 0, 1, scale, 0.0, 0.0);
  return c;
}

std::vector<double> spline_interpolate(const Profile& p, const std::vector<double>& at) {
  const std::size_t n = p.s.size();
  if (n < 3 || p.value.size() != n) throw std::invalid_argument("spline_interpolate: need >= 3 points");
  // Second derivatives m of the natural spline: tridiagonal system (Thomas algorithm), m_0 = m_{n-1} = 0.
  std::vector<double> m(n, 0.0), c_prime(n, 0.0), d_prime(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double h0 = p.s[i] - p.s[i - 1], h1 = p.s[i + 1] - p.s[i];
    const double a = h0, b = 2.0 * (h0 + h1), c = h1;
    const double d = 6.0 * ((p.value[i + 1] - p.value[i]) / h1 - (p.value[i] - p.value[i - 1]) / h0);
    const double denom = b - a * c_prime[i - 1];
    c_prime[i] = c / denom;
    d_prime[i] = (d - a * d_prime[i - 1]) / denom;
  }
  for (std::size_t i = n - 2; i >= 1; --i) m[i] = d_prime[i] - c_prime[i] * m[i + 1];

  std::vector<double> out;
  out.reserve(at.size());
  for (double x : at) {
    std::size_t k = 0;
    while (k + 2 < n && x > p.s[k + 1]) ++k;
    const double h = p.s[k + 1] - p.s[k];
    const double a = (p.s[k + 1] - x) / h, b = (x - p.s[k]) / h;
    out.push_back(a * p.value[k] + b * p.value[k + 1] +
                  ((a * a * a - a) * m[k] + (b * b * b - b) * m[k + 1]) * h * h / 6.0);
  }
  return out;
}

double rms_error(const Profile& profile, const std::vector<double>& at, const std::vector<double>& reference) {
  const std::vector<double> values = spline_interpolate(profile, at);
  double sum = 0.0;
  int count = 0;
  for (std::size_t i = 0; i < at.size(); ++i) {
    if (at[i] <= 0.0 || at[i] >= 1.0) continue;
    sum += (values[i] - reference[i]) * (values[i] - reference[i]);
    ++count;
  }
  return count > 0 ? std::sqrt(sum / count) : 0.0;
}

}  // namespace eddy
