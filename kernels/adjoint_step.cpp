// The adjoint step: the exact transpose of one stream-collide step of the fused kernel (kernels/stream_collide.cpp)
// linearised about its forward state, for the reverse sweep of a discrete adjoint (solver/adjoint.hpp).
//
// Forward, with s^n the post-collision populations of step n and S the streaming with halfway bounce-back:
//   s^{n+1}(x) = C(S(s^n)(x); F(x)),   S(s)_i(x) = s_i(x - c_i), or s_opp(i)(x) + 6 w_i c_i.u_w where x - c_i is a
//   wall (kernels/boundary_rules.hpp)                                        Krueger et al. 2017, eqs. 3.9, 5.26-5.27
// Adjoint, lambda^n = dL/ds^n from lambda^{n+1} (Griewank & Walther 2008, Evaluating Derivatives, ch. 3):
//   nu(x) = (dC/df)^T(S(s^n)(x)) lambda^{n+1}(x)       (collision pass, kernels/adjoint_collision.hpp)
//   dL/dF(x) += (dC/dF)^T lambda^{n+1}(x)
//   lambda^n_j(y) = nu_j(y + c_j), or nu_opp(j)(y) where y + c_j is a wall         (streaming pass, S^T)
// The moving-wall term is a constant and drops out of the derivative.
//
// Bytes per fluid cell: collision pass 19 * 2 * sizeof(R) read (state, lambda) + 19 * sizeof(R) written (nu)
//   + 3 * 2 * sizeof(R) force_bar read and written (+ 3 * sizeof(R) force field) + flags; streaming pass
//   19 * sizeof(R) read + 19 * sizeof(R) written + flags.
#include "kernels/adjoint_collision.hpp"
#include "kernels/adjoint_launchers.hpp"
#include "kernels/boundary_rules.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// f = S(s)(cell): the populations arriving at fluid `cell` from the post-collision state, with bounce-back.
template <class R>
EDDY_HOST_DEVICE inline void gather_arrived(const BlockFields<const R>& state, const FlagView& flags,
                                            const BlockShape& shape, std::int64_t cell, const WallVelocities<R>& walls,
                                            R (&f)[d3q19::Q]) {
  EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    const std::int64_t from = cell - shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
    const CellFlag neighbour = flags.flag[from];
    f[i] = is_solid(neighbour) ? solid_link(i, state(d3q19::opp(i), cell), neighbour, walls, R(1)) : state(i, from);
  }
}

template <class R>
struct AdjointCollide {
  BlockFields<const R> state, lambda_next;
  BlockFields<R> nu, force_bar;
  FlagView flags;
  BlockShape shape;
  Relaxation<R> relax;
  WallVelocities<R> walls;
  ForceFieldView<R> force_field;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) {
      for (int i = 0; i < d3q19::Q; ++i) nu(i, cell) = R(0);
      return;
    }
    R f[d3q19::Q], mu[d3q19::Q], lambda[d3q19::Q];
    gather_arrived(state, flags, shape, cell, walls, f);
    for (int i = 0; i < d3q19::Q; ++i) mu[i] = lambda_next(i, cell);
    R force[3] = {relax.force[0], relax.force[1], relax.force[2]};
    force_field.add_to(cell, force);
    R bar[3] = {R(0), R(0), R(0)};
    collide_adjoint(f, force, relax.omega_plus, relax.omega_minus, mu, lambda, bar);
    for (int i = 0; i < d3q19::Q; ++i) nu(i, cell) = lambda[i];
    for (int a = 0; a < 3; ++a) force_bar(a, cell) += bar[a];
  }
};

template <class R>
struct AdjointStream {
  BlockFields<const R> nu;
  BlockFields<R> lambda;
  FlagView flags;
  BlockShape shape;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const bool solid = is_solid(flags.flag[cell]);
    EDDY_UNROLL
    for (int j = 0; j < d3q19::Q; ++j) {
      if (solid) {
        lambda(j, cell) = R(0);
        continue;
      }
      const std::int64_t to = cell + shape.offset(d3q19::c(j, 0), d3q19::c(j, 1), d3q19::c(j, 2));
      lambda(j, cell) = is_solid(flags.flag[to]) ? nu(d3q19::opp(j), cell) : nu(j, to);
    }
  }
};

template <class R>
struct ArrivedMoments {
  BlockFields<const R> state;
  BlockFields<R> moments;
  FlagView flags;
  BlockShape shape;
  Relaxation<R> relax;
  WallVelocities<R> walls;
  ForceFieldView<R> force_field;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) {
      for (int c = 0; c < 4; ++c) moments(c, cell) = R(0);
      return;
    }
    R f[d3q19::Q];
    gather_arrived(state, flags, shape, cell, walls, f);
    R force[3] = {relax.force[0], relax.force[1], relax.force[2]};
    force_field.add_to(cell, force);
    R drho, rho, u[3];
    shifted_moments(f, force, drho, rho, u);
    moments(0, cell) = rho;
    for (int a = 0; a < 3; ++a) moments(1 + a, cell) = u[a];
  }
};

template <class R>
struct AdjointMoments {
  BlockFields<const R> moments, moments_bar;
  BlockFields<R> nu, force_bar;
  FlagView flags;
  BlockShape shape;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    R lambda[d3q19::Q];
    for (int i = 0; i < d3q19::Q; ++i) lambda[i] = R(0);
    if (!is_solid(flags.flag[cell])) {
      const R u[3] = {moments(1, cell), moments(2, cell), moments(3, cell)};
      const R u_bar[3] = {moments_bar(1, cell), moments_bar(2, cell), moments_bar(3, cell)};
      R bar[3] = {R(0), R(0), R(0)};
      moments_adjoint(moments_bar(0, cell), u_bar, moments(0, cell), u, lambda, bar);
      for (int a = 0; a < 3; ++a) force_bar(a, cell) += bar[a];
    }
    for (int i = 0; i < d3q19::Q; ++i) nu(i, cell) = lambda[i];
  }
};

}  // namespace

template <class R>
void adjoint_collide(const BlockFields<const R>& state, const BlockFields<const R>& lambda_next,
                     const BlockFields<R>& nu, const BlockFields<R>& force_bar, const FlagView& flags,
                     const BlockShape& shape, const Relaxation<R>& relax, const WallVelocities<R>& walls,
                     const ForceFieldView<R>& force_field, const backend::Stream* stream) {
  parallel_for(shape.interior(),
               AdjointCollide<R>{state, lambda_next, nu, force_bar, flags, shape, relax, walls, force_field},
               "adjoint_collide", stream);
}

template <class R>
void adjoint_stream(const BlockFields<const R>& nu, const BlockFields<R>& lambda, const FlagView& flags,
                    const BlockShape& shape, const backend::Stream* stream) {
  parallel_for(shape.interior(), AdjointStream<R>{nu, lambda, flags, shape}, "adjoint_stream", stream);
}

template <class R>
void arrived_moments_of(const BlockFields<const R>& state, const BlockFields<R>& moments, const FlagView& flags,
                        const BlockShape& shape, const Relaxation<R>& relax, const WallVelocities<R>& walls,
                        const ForceFieldView<R>& force_field, const backend::Stream* stream) {
  parallel_for(shape.interior(), ArrivedMoments<R>{state, moments, flags, shape, relax, walls, force_field},
               "arrived_moments_of", stream);
}

template <class R>
void adjoint_moments(const BlockFields<const R>& moments, const BlockFields<const R>& moments_bar,
                     const BlockFields<R>& nu, const BlockFields<R>& force_bar, const FlagView& flags,
                     const BlockShape& shape, const backend::Stream* stream) {
  parallel_for(shape.interior(), AdjointMoments<R>{moments, moments_bar, nu, force_bar, flags, shape},
               "adjoint_moments", stream);
}

#define EDDY_INSTANTIATE(R)                                                                                         \
  template void adjoint_collide<R>(const BlockFields<const R>&, const BlockFields<const R>&, const BlockFields<R>&, \
                                   const BlockFields<R>&, const FlagView&, const BlockShape&, const Relaxation<R>&, \
                                   const WallVelocities<R>&, const ForceFieldView<R>&, const backend::Stream*);     \
  template void adjoint_stream<R>(const BlockFields<const R>&, const BlockFields<R>&, const FlagView&,              \
                                  const BlockShape&, const backend::Stream*);                                       \
  template void arrived_moments_of<R>(const BlockFields<const R>&, const BlockFields<R>&, const FlagView&,          \
                                      const BlockShape&, const Relaxation<R>&, const WallVelocities<R>&,            \
                                      const ForceFieldView<R>&, const backend::Stream*);                            \
  template void adjoint_moments<R>(const BlockFields<const R>&, const BlockFields<const R>&, const BlockFields<R>&, \
                                   const BlockFields<R>&, const FlagView&, const BlockShape&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
