#include "solver/validation.hpp"

#include <cmath>
#include <stdexcept>

namespace eddy {

namespace {

/// This rank's terms of the average of u[component] over the middle node(s) of the axis `across` and of z.
std::array<std::vector<double>, 4> centreline_terms(const MacroscopicFields& f, int component, int along, int across) {
  const int n_across = f.global_size[across], n_z = f.global_size[2];
  const int middle[2][2] = {{(n_across - 1) / 2, n_across / 2}, {(n_z - 1) / 2, n_z / 2}};
  std::array<std::vector<double>, 4> terms;
  for (auto& t : terms) t.assign(f.global_size[along], 0.0);
  for (int m = 0; m < 4; ++m) {
    const int a = middle[0][m / 2], z = middle[1][m % 2];
    const int la = a - f.offset[across], lz = z - f.offset[2];
    if (la < 0 || la >= f.size[across] || lz < 0 || lz >= f.size[2]) continue;
    for (int i = 0; i < f.size[along]; ++i) {
      int c[3] = {0, 0, lz};
      c[along] = i;
      c[across] = la;
      terms[m][f.offset[along] + i] = f.u[component][f.index(c[0], c[1], c[2])];
    }
  }
  return terms;
}

std::vector<double> average(const std::array<std::vector<double>, 4>& terms) {
  std::vector<double> mean(terms[0].size());
  for (std::size_t i = 0; i < mean.size(); ++i) mean[i] = 0.25 * (((terms[0][i] + terms[1][i]) + terms[2][i]) + terms[3][i]);
  return mean;
}

Profile profile_with_walls(const std::vector<double>& values, double scale, double wall_low, double wall_high) {
  const int n = static_cast<int>(values.size());
  Profile p;
  p.s.push_back(0.0);
  p.value.push_back(wall_low);
  for (int i = 0; i < n; ++i) {
    p.s.push_back((i + 0.5) / n);
    p.value.push_back(values[i] * scale);
  }
  p.s.push_back(1.0);
  p.value.push_back(wall_high);
  return p;
}

}  // namespace

CenterlineSums centerline_sums(const MacroscopicFields& fields) {
  return {centreline_terms(fields, 0, 1, 0), centreline_terms(fields, 1, 0, 1)};
}

CavityCenterlines cavity_centerlines(const CenterlineSums& sums, double lid_velocity, double lid_value) {
  const double scale = 1.0 / lid_velocity;
  return {profile_with_walls(average(sums.u_vertical), scale, 0.0, lid_value),
          profile_with_walls(average(sums.v_horizontal), scale, 0.0, 0.0)};
}

CavityCenterlines cavity_centerlines(const MacroscopicFields& fields, double lid_velocity, double lid_value) {
  return cavity_centerlines(centerline_sums(fields), lid_velocity, lid_value);
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
