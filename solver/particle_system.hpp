// ParticleSystem<T>: the Lagrangian particles of one rank and their coupling to the lattice of storage type T.
//
// Owns the particle arrays (structure of arrays on the device, kernels/particles.hpp), the fluid velocity field
// they interpolate (one value per block cell, ghost layer included), and, with two-way coupling, the fixed-point
// force deposit and the force field the next lattice step applies. One call of step() per lattice step:
//   1. u of the current populations on every interior cell (kernels/field_launchers.hpp), wall velocities on
//      solid cells, ghost planes from the neighbours (solver/field_halo.hpp), so particles near a rank boundary
//      see the neighbour's flow;
//   2. particle-particle forces (solver/particle_contacts.hpp) on this rank's particles: with contacts, from its own
//      particles and the ghost copies of the neighbours' (and of the periodic images) within the contact cutoff of
//      its block (solver/particle_ghosts.hpp); the pair gravity from every particle of the run (gathered from all
//      ranks each step);
//   3. the particle update (kernels/particle_launchers.hpp: tracers by Heun's method, inertial spheres by
//      semi-implicit Euler with Stokes/Schiller-Naumann drag, gravity and buoyancy; walls; periodic wrap);
//   4. two-way: the drag reactions deposited in fixed point are added across rank boundaries and converted into the
//      force field of the next lattice step (Guo forcing, kernels/collision.hpp), so fluid + particle momentum is
//      conserved to round-off;
//   5. particles that left the block move to the neighbour rank that now holds them (axis by axis x, y, z, so a
//      diagonal move takes two hops within the same step).
// Every particle's update depends only on its own state, the field and its pair forces (summed in an order fixed by
// ids and positions), and the deposit is summed in integers, so the trajectories do not depend on the rank count.
// Device memory per particle: 13 arrays of 8 bytes plus the contact search's 28; ghost copies take the same room.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/launchers.hpp"
#include "kernels/particles.hpp"
#include "kernels/views.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/field_halo.hpp"
#include "solver/particle_arrays.hpp"
#include "solver/particle_contacts.hpp"
#include "solver/particle_ghosts.hpp"

namespace eddy {

/// Particles of one rank copied to the host (structure of arrays, lattice units, global coordinates).
struct ParticleSnapshot {
  std::array<std::vector<double>, 3> x, v;
  std::vector<double> diameter, density;
  std::vector<std::int64_t> id;
  std::size_t size() const { return id.size(); }
  /// Appends one particle.
  void push_back(const double (&position)[3], const double (&velocity)[3], double d, double rho_p, std::int64_t i) {
    for (int a = 0; a < 3; ++a) {
      x[a].push_back(position[a]);
      v[a].push_back(velocity[a]);
    }
    diameter.push_back(d);
    density.push_back(rho_p);
    id.push_back(i);
  }
  /// Appends particle k of `other`.
  void push_back(const ParticleSnapshot& other, std::size_t k) {
    const double position[3] = {other.x[0][k], other.x[1][k], other.x[2][k]};
    const double velocity[3] = {other.v[0][k], other.v[1][k], other.v[2][k]};
    push_back(position, velocity, other.diameter[k], other.density[k], other.id[k]);
  }
};

/// Health of the particles: all positions and velocities finite, and the fastest particle (lattice units).
struct ParticleDiagnostics {
  bool finite = true;
  double max_speed = 0.0;
  std::int64_t worst_id = -1;  ///< the first non-finite particle, else the fastest (-1: no particles)
};

/// Device bytes the particles of `config` add to a block of `decomposition` holding `particles` particles: the
/// velocity field (3 values of the arithmetic type per block cell), with two-way coupling the deposit (24 B) and
/// force field (3 values) per cell, the particle arrays and cell list, and with contacts the ghost copies of the
/// particles near the exchanging faces (solver/particle_ghosts.hpp) and their message buffers.
double particle_device_bytes(const CaseConfig& config, const Decomposition& decomposition, std::int64_t particles);

/// The particles of a Simulation as its read-outs, guards and checkpoints reach them (Simulation::particle_system;
/// ParticleSystem<T> is the one implementation). Precision-free: values in double, raw fields as bytes.
class ParticleComponent {
 public:
  virtual ~ParticleComponent() = default;
  /// Particles on all ranks (collective).
  virtual std::int64_t global_count() const = 0;
  /// Health of the particles on all ranks (collective; copies this rank's particles to the host).
  virtual ParticleDiagnostics diagnose() const = 0;
  /// This rank's particles on the host.
  virtual ParticleSnapshot snapshot() const = 0;
  /// Sum over this rank's interior cells of the force the particles apply to the fluid in the next lattice step
  /// (two-way coupling; zero otherwise), lattice units: the momentum in transit from the particles to the fluid.
  virtual std::array<double, 3> force_on_fluid() const = 0;
  /// The force field of two-way coupling on the interior cells as stored: 3 components back to back (k as in
  /// MacroscopicFields) in the arithmetic type, as bytes; empty without two-way coupling. For checkpoints.
  virtual std::vector<unsigned char> force_field_bytes() const = 0;
  /// Replaces this rank's particles by `s` (all inside this rank's block) and the force field by `force` (as
  /// force_field_bytes(), whose size the caller checked). For restarts.
  virtual void restore_bytes(const ParticleSnapshot& s, const std::vector<unsigned char>& force) = 0;
  /// What the ghost-particle exchange did on this rank (all zero without contacts or neighbours).
  virtual GhostExchangeStats ghost_stats() const = 0;
  /// Times the ghost exchange (it then waits for the device before and after itself): for `eddy bench`.
  virtual void time_ghost_exchange(bool on) = 0;
};

template <class T>
class ParticleSystem final : public ParticleComponent {
  using R = compute_t<T>;

 public:
  /// Seeds this rank's particles (io/particle_seed.hpp) and allocates the fields. Throws InputError for a bad
  /// positions file, DeviceError when memory runs out.
  ParticleSystem(const CaseConfig& config, const Decomposition& decomposition, const BlockShape& shape);

  /// One particle step after a lattice step (see the file comment). `a` holds `layout` with its halo complete.
  /// `fluid_force`: the per-cell force in the fluid velocity the particles see (its F/2 shift), when another than
  /// their own two-way field (Simulation::force_array); nullptr: their own. Collective over the decomposition's
  /// ranks.
  void step(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags, const Relaxation<R>& relax,
            const WallVelocities<R>& walls, const backend::Stream* stream,
            const ForceFieldView<R>* fluid_force = nullptr);
  /// Positions and velocities of this rank's particles into device memory at `out`: 6 blocks of local_count()
  /// doubles (x, y, z, vx, vy, vz), queued on `stream`.
  void copy_state_to_device(double* out, const backend::Stream& stream) const;

  /// The per-cell force of two-way coupling for the next lattice step (absent without it).
  ForceFieldView<R> force_field() const;
  /// Particles on this rank.
  std::int64_t local_count() const { return n_; }
  GhostExchangeStats ghost_stats() const override { return ghosts_ ? ghosts_->stats() : GhostExchangeStats{}; }
  void time_ghost_exchange(bool on) override {
    if (ghosts_) ghosts_->set_timing(on);
  }
  std::int64_t global_count() const override;
  ParticleDiagnostics diagnose() const override;
  ParticleSnapshot snapshot() const override;
  std::array<double, 3> force_on_fluid() const override;
  std::vector<unsigned char> force_field_bytes() const override;
  void restore_bytes(const ParticleSnapshot& s, const std::vector<unsigned char>& force) override;
  /// The force field of two-way coupling on the interior cells, 3 components back to back (k as in
  /// MacroscopicFields); empty without two-way coupling.
  std::vector<R> force_field_interior() const;
  /// Replaces this rank's particles by `s` (all inside this rank's block) and the force field by `force` (as
  /// force_field_interior()).
  void restore(const ParticleSnapshot& s, const std::vector<R>& force);

 private:
  void upload(const ParticleSnapshot& s);
  ParticleView view() const { return arrays_.view(n_); }
  void migrate();
  /// Every particle of the run (x, diameter, density, id), gathered from all ranks, for the pair gravity; an empty
  /// view on one rank (the own particles are then the sources). Collective.
  ParticleView gravity_sources();

  CaseConfig config_;
  Decomposition decomposition_;
  BlockShape shape_;
  ParticleModel model_{};
  std::int64_t n_ = 0;  ///< this rank's particles: arrays_[0, n_); ghost copies may follow during a step
  ParticleArrays arrays_;
  ParticleArrays sources_;  ///< the gathered gravity sources (several ranks)
  std::array<DeviceBuffer<R>, 3> u_;
  std::array<DeviceBuffer<unsigned long long>, 3> deposit_;
  std::array<DeviceBuffer<R>, 3> force_field_;
  DeviceBuffer<unsigned long long> counter_;
  FieldHalo<R> u_halo_;
  std::unique_ptr<FieldHalo<unsigned long long>> deposit_halo_;
  std::unique_ptr<ParticleContacts> contacts_;
  std::unique_ptr<ParticleGhosts> ghosts_;
};

}  // namespace eddy
