// Launchers of the particle kernels (kernels/particle_launchers.hpp): one thread per particle runs
// move_particle (kernels/particle_motion.hpp: trilinear interpolation, Heun's method for tracers, semi-implicit
// Euler with Stokes drag and the Schiller-Naumann correction for inertial spheres, walls, periodic wrap), and one
// thread per block cell converts the fixed-point two-way deposit into a force density.
// Bytes per particle and step: 136 B of particle state + 8 (16 for tracers) cells x 3 x sizeof(R) of the field
// + 24 atomic 8-byte adds with two-way coupling. resolve_deposit: 3 x (8 B read + 8 B cleared + sizeof(R)
// written) per block cell, ghost layer included.
#include "kernels/particle_motion.hpp"

#include <stdexcept>

#include "kernels/parallel_for.hpp"
#include "kernels/particle_launchers.hpp"

namespace eddy {
namespace {

/// Particles are laid out as rows of kRowLength in a 2D box, so parallel_for's int coordinates cover any count up
/// to 2^31 rows (and the OpenMP loop over rows spreads more than kRowLength particles over threads).
constexpr int kRowLength = 1024;

template <class R>
struct MoveParticles {
  ParticleView p;
  ParticleModel model;
  VelocityFieldView<R> field;
  ForceDepositView deposit;
  bool deposit_drag;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k < p.n) move_particle(p, k, model, field, deposit, deposit_drag);
  }
};

template <class R>
struct ResolveDeposit {
  ForceDepositView deposit;
  R* force[3];

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = deposit.shape.index(x, y, z);
    for (int a = 0; a < 3; ++a) {
      force[a][cell] = static_cast<R>(from_fixed(deposit.fixed[a][cell]));
      deposit.fixed[a][cell] = 0ull;
    }
  }
};

}  // namespace

template <class R>
void move_particles(const ParticleView& p, const ParticleModel& model, const VelocityFieldView<R>& u,
                    const ForceDepositView* deposit, const backend::Stream* stream) {
  const bool deposit_drag = model.two_way && model.kind == ParticleModel::kInertial;
  if (deposit_drag && deposit == nullptr) {
    throw std::invalid_argument("move_particles: two-way coupling of inertial particles needs a force deposit");
  }
  if (p.n <= 0) return;
  const int width = p.n < kRowLength ? static_cast<int>(p.n) : kRowLength;
  const int rows = static_cast<int>((p.n + kRowLength - 1) / kRowLength);
  const ForceDepositView none{{nullptr, nullptr, nullptr}, u.shape, {u.origin[0], u.origin[1], u.origin[2]}};
  const MoveParticles<R> move{p, model, u, deposit_drag ? *deposit : none, deposit_drag};
  parallel_for(Box{{0, 0, 0}, {width, rows, 1}}, move, "move_particles", stream);
}

template <class R>
void resolve_deposit(const ForceDepositView& deposit, R* const (&force)[3], const backend::Stream* stream) {
  const ResolveDeposit<R> resolve{deposit, {force[0], force[1], force[2]}};
  parallel_for(deposit.shape.whole(), resolve, "resolve_deposit", stream);
}

#define EDDY_INSTANTIATE(R)                                                                               \
  template void move_particles<R>(const ParticleView&, const ParticleModel&, const VelocityFieldView<R>&, \
                                  const ForceDepositView*, const backend::Stream*);                       \
  template void resolve_deposit<R>(const ForceDepositView&, R* const(&)[3], const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
