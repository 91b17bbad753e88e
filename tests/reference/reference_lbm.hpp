// The CPU reference oracle: a plain, double-precision, unfused D3Q19 lattice Boltzmann implementation, used only
// by tests to check the fused kernel on every backend.
//
// Deliberately written differently from kernels/: its own velocity table, no ghost layer (periodic wrap by
// modulo), collision as a separate loop over all cells computing the full Guo source term per direction, then
// push streaming as a separate loop with halfway bounce-back (Ladd's moving-wall term) decided per link.
// Sources: Krueger et al. (2017), eqs. 3.54 (f_eq), 10.25-10.29 (TRT), 6.14 (Guo), 5.26-5.27 (bounce-back).
#pragma once

#include <array>
#include <vector>

#include "io/case_config.hpp"

namespace eddy::reference {

/// The oracle's own D3Q19 table (same direction order as eddy's so populations compare index by index).
extern const int kVelocity[19][3];
extern const double kWeight[19];

class ReferenceLbm {
 public:
  /// Uses size, faces (periodic / wall / moving wall and velocities), tau, collision, magic and body_force.
  explicit ReferenceLbm(const CaseConfig& config);

  /// Post-collision populations, [i * n + k], k = x + nx * (y + ny * z) over the fluid cells.
  const std::vector<double>& populations() const { return f_; }
  void set_populations(const std::vector<double>& f) { f_ = f; }
  /// Sets f to f_eq(rho, u) of the given fields (layout k as above).
  void set_equilibrium(const std::vector<double>& rho, const std::array<std::vector<double>, 3>& u);

  /// A per-cell force density added to body_force from now on (layout k as above, one vector per component; empty:
  /// none), in the collision's source term and the F/2 of the velocity.
  void set_force_field(const std::array<std::vector<double>, 3>& force) { force_field_ = force; }
  /// One time step: push streaming with bounce-back, then collision (leaves post-collision populations).
  void step();
  /// Density and velocity (with the Guo F/2 shift) of the streamed populations, i.e. the current fields.
  void fields(std::vector<double>& rho, std::array<std::vector<double>, 3>& u) const;

  static double equilibrium(int i, double rho, const double u[3]);

 private:
  std::vector<double> stream() const;
  void collide(std::vector<double>& f) const;
  void moments(const std::vector<double>& f, std::size_t k, double& rho, double u[3]) const;

  CaseConfig config_;
  std::size_t n_;
  /// body_force plus the cell's share of force_field_.
  void force_at(std::size_t k, double (&force)[3]) const;
  double omega_plus_, omega_minus_;
  std::vector<double> f_;
  std::array<std::vector<double>, 3> force_field_;
};

}  // namespace eddy::reference
