// Launchers of the adjoint step (kernels/adjoint_step.cpp): the transpose of one stream-collide step, as two passes
// over a block, for the reverse sweep of solver/adjoint.hpp.
//
// Arrays: block fields of kernels/block.hpp's cell index (ghost layer and row padding included), components back to
// back, [component * n_cells + cell], in the arithmetic type R (float or double), lattice units:
//   state:   the forward state s^n of the step, post-collision shifted populations g*_i = f*_i - w_i of step n (19
//            components; what Simulation::populations() returns less w_i), ghost cells filled as the halo
//            exchange would (solver/field_halo.hpp per component);
//   lambda:  an adjoint of 19 components, dL/ds_i at every cell (zero on solid cells);
//   nu:      dL/df_i, the adjoint of the pre-collision (arrived) populations of a step (19 components);
//   force_bar: dL/dF, 3 components, added to.
// Only walls (resting and moving, halfway bounce-back) and periodic or rank faces: the callers refuse the other
// boundary kinds before they get here.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/collision.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// A block field of `components` back to back (the header's layout).
template <class R>
struct BlockFields {
  R* at = nullptr;
  std::int64_t n_cells = 0;
  EDDY_HOST_DEVICE R& operator()(int component, std::int64_t cell) const { return at[component * n_cells + cell]; }
};

/// Collision pass: for every interior fluid cell x, from the arrived populations f(x) = S(s^n)(x) (streaming with
/// bounce-back and the moving-wall term, as the fused kernel) and lambda_next = dL/ds^{n+1}, sets
/// nu(x) = (dC/df)^T lambda_next(x) and adds (dC/dF)^T lambda_next(x) to force_bar(x) (kernels/adjoint_collision.hpp).
/// F(x) is relax.force plus force_field at x. Solid cells get nu = 0.
template <class R>
void adjoint_collide(const BlockFields<const R>& state, const BlockFields<const R>& lambda_next,
                     const BlockFields<R>& nu, const BlockFields<R>& force_bar, const FlagView& flags,
                     const BlockShape& shape, const Relaxation<R>& relax, const WallVelocities<R>& walls,
                     const ForceFieldView<R>& force_field, const backend::Stream* stream);

/// Streaming pass, the transpose of s -> f = S(s): for every interior fluid cell y and direction j,
/// lambda_j(y) = nu_j(y + c_j) where y + c_j is fluid (or a ghost cell facing a neighbour: nu's ghosts filled), and
/// nu_opp(j)(y) where y + c_j is solid (the population bounced back into y). Solid cells get 0.
template <class R>
void adjoint_stream(const BlockFields<const R>& nu, const BlockFields<R>& lambda, const FlagView& flags,
                    const BlockShape& shape, const backend::Stream* stream);

/// Arrived moments rho and u (with the F/2 shift) of S(state) at every interior fluid cell, into 4 block fields
/// (rho, ux, uy, uz); solid cells get rho = 0 and the wall's velocity 0.
template <class R>
void arrived_moments_of(const BlockFields<const R>& state, const BlockFields<R>& moments, const FlagView& flags,
                        const BlockShape& shape, const Relaxation<R>& relax, const WallVelocities<R>& walls,
                        const ForceFieldView<R>& force_field, const backend::Stream* stream);

/// The objective's seed: from moments_bar = (dL/drho, dL/du) at every interior fluid cell (4 block fields) and
/// the moments themselves, sets nu(x) = dL/df(x) (the pre-collision populations' adjoint, through
/// kernels/adjoint_collision.hpp's moments_adjoint) and adds dL/dF through the F/2 shift to force_bar.
template <class R>
void adjoint_moments(const BlockFields<const R>& moments, const BlockFields<const R>& moments_bar,
                     const BlockFields<R>& nu, const BlockFields<R>& force_bar, const FlagView& flags,
                     const BlockShape& shape, const backend::Stream* stream);

}  // namespace eddy
