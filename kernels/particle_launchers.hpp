// Host-callable launchers of the particle kernels (kernels/particle_motion.cpp), instantiated for the lattice's
// arithmetic type R = float and double (the type of the velocity field). Asynchronous on GPUs.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/particles.hpp"

namespace eddy {

/// One time step (dt = 1) of every particle of `p`: interpolates u trilinearly at the particle, integrates
/// (model.kind), applies walls (model.wall_mode) and periodic wrap-around (model.periodic, global coordinates).
/// Inertial particles also feel p.force (contacts, pair forces). With model.two_way, the reaction of the drag
/// (-F_drag, spread with the same trilinear weights) is added to `deposit`, which must then be non-null.
template <class R>
void move_particles(const ParticleView& p, const ParticleModel& model, const VelocityFieldView<R>& u,
                    const ForceDepositView* deposit, const backend::Stream* stream = nullptr);

/// Converts the fixed-point deposit of every block cell into force density (force[a][cell] = fixed *
/// 2^-kFractionBits) and clears the deposit for the next step.
template <class R>
void resolve_deposit(const ForceDepositView& deposit, R* const (&force)[3], const backend::Stream* stream = nullptr);

/// Number of particles of `p` outside the box [lo, hi) (global lattice coordinates) on any axis: those that must
/// move to another rank (kernels/particle_region.cpp). `counter` is one device value of scratch. Waits for the
/// device (the count is returned to the host).
std::int64_t count_particles_outside(const ParticleView& p, const double (&lo)[3], const double (&hi)[3],
                                     unsigned long long* counter, const backend::Stream* stream = nullptr);

}  // namespace eddy
