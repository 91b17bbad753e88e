// The CPU reference oracle: a plain, double-precision, unfused D3Q19 lattice Boltzmann implementation, used only
// by tests to check the fused kernel on every backend.
//
// Deliberately written differently from kernels/: its own velocity table, no ghost layer (periodic wrap by
// modulo), collision as a separate loop over all cells computing the full Guo source term per direction, then
// push streaming as a separate loop with halfway bounce-back (Ladd's moving-wall term) decided per link, then the
// open faces (velocity_inlet, pressure_outlet, outflow, free_slip) as a loop over the populations entering the
// domain, each rule written out from its formula (cases/README.md, "Open boundaries"), not from kernels/.
// [[solid]] bodies: a cell whose centre lies inside a shape (solver/solid_shapes.hpp, inside_solid: the definition of
// the geometry) is solid; a link from a fluid cell into it bounces half-way, or with wall = "interpolated" by linear
// interpolation (Bouzidi, Firdaouss & Lallemand 2001) with its wall distance q found by bisection on the inside test
// (not the closed forms of solver/solid_shapes.hpp) and from the two-buffer post-collision state; a link whose
// second node x - c_i is solid or beyond a wall face bounces half-way. A second node beyond open faces only is the
// open face's ghost node: its population along c_i is the one the face sends into x (the open rules read the
// post-collision state, before any interpolated wall). Open rules next to a solid read x itself where x - t is solid
// and u(x) where x + n is. Solid cells neither stream nor collide.
// Sources: Krueger et al. (2017), eqs. 3.54 (f_eq), 10.25-10.29 (TRT), 6.14 (Guo), 5.26-5.27 (bounce-back); the open
// faces' sources are those of kernels/boundary_rules.hpp. Inlet profiles: uniform and parabolic (not csv).
// LES (config.les): each cell's rates from the full tensor Pi_neq of its unshifted populations and the quadratic for
// tau written out from its derivation (Hou et al. 1996), not from kernels/smagorinsky.hpp.
// Sponge layers (boundary.<face>.sponge): each cell's molecular tau from its own centre's distance to each face, the
// quadratic ramp written as (L - d)^2 / L^2 (kernels/sponge_layers.hpp's formula), the largest excess of the faces.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "io/case_config.hpp"

namespace eddy::reference {

/// The oracle's own D3Q19 table (same direction order as eddy's so populations compare index by index).
extern const int kVelocity[19][3];
extern const double kWeight[19];

class ReferenceLbm {
 public:
  /// Uses size, faces (periodic / wall / moving wall and velocities; the open types), tau, collision, magic,
  /// body_force and solids.
  explicit ReferenceLbm(const CaseConfig& config);

  /// Post-collision populations, [i * n + k], k = x + nx * (y + ny * z) over the fluid cells.
  const std::vector<double>& populations() const { return f_; }
  /// Sets the post-collision populations; the convective outflow has no history then (its first values are the
  /// zero-gradient ones), as after Simulation::set_populations.
  void set_populations(const std::vector<double>& f) {
    f_ = f;
    have_history_ = false;
  }
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

  /// The index of the first solid of `config` whose shape holds the centre of global cell (x, y, z), or -1.
  static int solid_at(const CaseConfig& config, int x, int y, int z);
  /// The wall distance q of the link from the fluid node at `fluid` (global lattice coordinates) along c into the
  /// solid that holds fluid + c: the first t in [0, 1] with fluid + t c inside a solid, the point wrapped into the
  /// domain across periodic faces (outside the domain across a wall face: not solid), by 80 bisections of the inside
  /// test (the segment entering the solids once).
  static double wall_distance(const CaseConfig& config, const double fluid[3], const int c[3]);

 private:
  /// The populations arriving at every cell at time `time_`; the convective outflow's values go to `entering`
  /// ([i * n + k], NaN where no open link ends).
  std::vector<double> stream(std::vector<double>* entering = nullptr) const;
  /// The population f_i(k) entering through the open faces (the face of highest precedence among `faces`, which
  /// holds the faces x - c_i lies beyond).
  double open_population(std::size_t k, int i, const std::vector<int>& faces) const;
  /// The density and velocity of cell (x, y, z) from the post-collision populations (u = (sum c f* - F/2) / rho).
  void post_moments(int x, int y, int z, double& rho, double u[3]) const;
  std::size_t index(int x, int y, int z) const {
    return std::size_t(x) + std::size_t(config_.size[0]) * (std::size_t(y) + std::size_t(config_.size[1]) * z);
  }
  void collide(std::vector<double>& f) const;
  /// The molecular relaxation time of cell k: physics.tau raised by the open faces' sponge layers.
  double molecular_tau(std::size_t k) const;
  /// The Smagorinsky rates of cell k with moments rho, u, force F and equilibrium feq (config.les).
  void smagorinsky_rates(const std::vector<double>& f, std::size_t k, double rho, const double u[3], const double F[3],
                         const double feq[19], double tau0, double& omega_plus, double& omega_minus) const;
  void moments(const std::vector<double>& f, std::size_t k, double& rho, double u[3]) const;

  CaseConfig config_;
  std::size_t n_;
  /// body_force plus the cell's share of force_field_.
  void force_at(std::size_t k, double (&force)[3]) const;
  double omega_plus_, omega_minus_;
  std::vector<double> f_;
  std::vector<double> history_;  // the convective outflow's values of the previous step
  bool have_history_ = false;
  std::int64_t time_ = 0;  // steps done since set_populations (the arrival time of stream())
  std::array<std::vector<double>, 3> force_field_;
  std::vector<int> solid_;  // per cell: the solid holding it, or -1
  std::vector<double> q_;   // [i * n + k]: the wall distance of link (k, i) into a solid (computed once)
};

}  // namespace eddy::reference
