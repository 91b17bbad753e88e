// The transpose of the open-face pass (kernels/open_boundaries.hpp) for the reverse sweep of solver/adjoint.hpp: what
// the populations that the open faces' ghost nodes send into the domain owe to the post-collision populations they
// were made from.
//
// Forward, per link (x, i) from a ghost node g = x - c_i into fluid cell x (kernels/boundary_rules.hpp), with s the
// post-collision populations of the step just taken:
//   velocity inlet   f_i(x) = s_opp(i)(x) + 6 w_i c_i.u_in                         (linear; u_in constant)
//   outflow (zero gradient), free slip   f_i(x) = s_sd(y),  y = x - t_i or x, sd = i or its mirror image (linear)
//   pressure outlet  f_i(x) = s_i(y) + w_i [rho_g sh_i(u_g) - rho sh_i(u)],   sh_i(v) = 1 + 3 c_i.v + 9/2 (c_i.v)^2
//                    - 3/2 v.v, rho_g = 2 rho_w - rho, u_g = 2 u - u_n, with rho, u the moments of s at x and u_n
//                    those at x + n (u_n = u where x + n is not fluid): rho = 1 + sum_k s_k (the stored shifted form),
//                    u = (2 m - F_ext) / ((2 - alpha) rho), m = sum_k c_k s_k, with the cell's external force F_ext
//                    and porosity alpha (Guo, Zheng & Shi 2002, Chinese Physics 11, 366; the velocity the collision
//                    used, kernels/brinkman.hpp's velocity_after_collision).
// Adjoint: the adjoint step (kernels/adjoint_step.cpp) leaves nu_i(x) = dL/df_i(x) of each link in slot i of its ghost
// node g (S^T pushes it there, as to any non-solid upstream cell); this pass adds, to lambda = dL/ds,
//   linear terms    lambda_sd(y) += nu_i(x)          (the inlet: lambda_opp(i)(x) += nu_i(x))
//   outlet moments  lambda_k(x)   += rho_bar + u_bar.(kappa c_k - u) / rho,   lambda_k(x + n) += u_n_bar.(kappa_n c_k
//                   - u_n) / rho_n, kappa = 2 / (2 - alpha); dL/dF_ext(x) -= kappa u_bar / (2 rho), dL/dalpha(x) +=
//                   kappa u_bar.u / 2 (and so at x + n)
// with, summed over the outlet links of x: rho_bar = nu_i w_i (-sh_i(u_g) - sh_i(u)), u_bar = nu_i w_i (2 rho_g
// dsh_i(u_g) - rho dsh_i(u)), u_n_bar = -nu_i w_i rho_g dsh_i(u_g), dsh_i(v) = 3 c_i + 9 (c_i.v) c_i - 3 v (the
// derivatives of the rule above); where x + n is not fluid u_n_bar joins u_bar. Then the ghost slots are cleared.
// The convective outflow (a history across steps) is not covered (solver/adjoint.hpp refuses it).
//
// Order, for the same bits on every rank count (solver/open_adjoint.hpp): each slot of lambda adds its linear terms
// to the value S^T left there, in a fixed order, then the sum of its outlet-moment terms; a linear term whose y lies
// in the ghost layer (another rank's cell, or a periodic image) is added there, and the halo sums travel to the owner
// with the rest of S^T (FieldHalo::add_ghosts_to_owners), where the owner has added its outlet-moment terms to the 0
// that S^T left: the same two sums, added in the other order.
//
// Arrays (device memory): lambda as in kernels/adjoint_launchers.hpp (block fields, [i * n_cells + cell], type R);
// the state as the fused kernel stores it. Memory traffic: per outlet face cell 2 x 19 populations read and 18 values
// written; per target slot its terms read and one value read and written. The faces are sparse: nothing per cell of
// the block.
#pragma once

#include <cstdint>

#include "kernels/adjoint_launchers.hpp"
#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// A face cell x of a pressure outlet (one per cell and face) and its links: x, x + n (-1 where not fluid), the
/// range [first, first + count) of its links in OpenAdjointPlan::outlet_links, rho_w of its face.
struct OutletAdjointCell {
  std::int64_t cell;
  std::int64_t next;
  std::int32_t first;
  std::int32_t count;
  double rho_w;
};

/// An outlet link of an OutletAdjointCell: its direction i and where nu_i(x) lies (i * n_cells + g).
struct OutletAdjointLink {
  std::int64_t nu_slot;
  std::int32_t dir;
  std::int32_t pad;
};

/// A term of a target slot: a linear one (kind 0: the value at lambda[index], a link's nu) or an outlet-moment one
/// (kind 1: record `index`'s x; kind 2: its x + n).
struct OpenAdjointTerm {
  std::int64_t index;
  std::int32_t kind;
  std::int32_t pad;
};

/// What the pass works through (device arrays): the outlet cells and their links, the target slots of lambda
/// (i * n_cells + cell, ascending) with their terms [term_start[t], term_start[t + 1]) (the linear ones first),
/// the slots holding nu to clear afterwards, and room for 18 values per outlet cell.
template <class R>
struct OpenAdjointPlan {
  const OutletAdjointCell* outlet_cells = nullptr;
  std::int64_t n_outlet_cells = 0;
  const OutletAdjointLink* outlet_links = nullptr;
  const std::int64_t* targets = nullptr;
  const std::int64_t* term_start = nullptr;
  const OpenAdjointTerm* terms = nullptr;
  std::int64_t n_targets = 0;
  const std::int64_t* nu_slots = nullptr;
  std::int64_t n_nu_slots = 0;
  R* records = nullptr;
};

/// The pass (the file's formulas) on `lambda`, about the forward state `state` (in `layout`, after the step and its
/// open-face pass) with uniform body force `force` and the per-cell force and porosity `field` the step applied; the
/// outlet velocities' share of dL/dF and dL/dalpha added to force_bar (3 block fields) and porosity_bar (1; null
/// `at` without porosity). Queued on `stream`.
template <class T>
void open_faces_adjoint(const OpenAdjointPlan<compute_t<T>>& plan, const PopulationView<T>& state,
                        PopulationLayout layout, const BlockFields<compute_t<T>>& lambda,
                        const BlockFields<compute_t<T>>& force_bar, const BlockFields<compute_t<T>>& porosity_bar,
                        const FlagView& flags, const BlockShape& shape, const WallVelocities<compute_t<T>>& walls,
                        const compute_t<T> (&force)[3], const ForceFieldView<compute_t<T>>& field,
                        const backend::Stream* stream);

}  // namespace eddy
