// Random lattice states for kernel comparisons (tests/physics/test_oracle.cpp, test_odd_step_stage.cpp).
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "io/case_config.hpp"
#include "tests/reference/reference_lbm.hpp"

namespace eddy::test {

/// Populations f[i * n + k] of the n interior cells of case `c` near equilibrium with random density (1 +- 0.02)
/// and velocity (each component within +-0.03), plus non-equilibrium noise of +-5 %, from generator seed `seed`.
inline std::vector<double> random_state(const CaseConfig& c, unsigned seed = 2024) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> f(19 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const double rho = 1.0 + 0.02 * unit(rng);
    const double u[3] = {0.03 * unit(rng), 0.03 * unit(rng), 0.03 * unit(rng)};
    for (int i = 0; i < 19; ++i)
      f[i * n + k] = reference::ReferenceLbm::equilibrium(i, rho, u) * (1.0 + 0.05 * unit(rng));
  }
  return f;
}

}  // namespace eddy::test
