// Vectors for directional-derivative checks (the adjoint tests' central differences): random directions, the dot
// product that pairs a gradient with one, and x + e d.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace eddy::test {

/// `size` values uniform in [-amplitude, amplitude], drawn from `rng`.
inline std::vector<double> random_vector(std::size_t size, double amplitude, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> v(size);
  for (double& x : v) x = amplitude * unit(rng);
  return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

/// x + e d.
inline std::vector<double> axpy(const std::vector<double>& x, double e, const std::vector<double>& d) {
  std::vector<double> y(x);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += e * d[i];
  return y;
}

}  // namespace eddy::test
