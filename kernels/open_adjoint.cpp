// The transposed open-face pass of kernels/open_adjoint.hpp: three kernels, one thread per outlet face cell, per
// target slot and per cleared slot.
#include "kernels/open_adjoint.hpp"

#include "kernels/d3q19.hpp"
#include "kernels/open_boundaries.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

constexpr int kRow = 1024;  // threads per row of the launch box
// Values per outlet cell, two halves of the same form: (rho_bar, u_bar[3], u[3], rho, kappa) of x, (0, u_n_bar[3],
// u_n[3], rho_n, kappa_n) of x + n; kappa = 2 / (2 - alpha) (kernels/brinkman.hpp, velocity_after_collision).
constexpr int kHalf = 9;
constexpr int kRecord = 2 * kHalf;

Box rows_for(std::int64_t n) {
  const int width = n < kRow ? int(n) : kRow;
  return Box{{0, 0, 0}, {width, int((n + kRow - 1) / kRow), 1}};
}

/// sh_i(v) = 1 + 3 c_i.v + 9/2 (c_i.v)^2 - 3/2 v.v and its gradient dsh_i(v) = 3 c_i + 9 (c_i.v) c_i - 3 v.
template <class R>
EDDY_HOST_DEVICE inline R shape_and_gradient(int i, const R (&v)[3], R (&gradient)[3]) {
  const R cv = d3q19::c_dot(i, v);
  for (int a = 0; a < 3; ++a) gradient[a] = (R(3) + R(9) * cv) * R(d3q19::c(i, a)) - R(3) * v[a];
  return R(1) + R(3) * cv + R(4.5) * cv * cv - R(1.5) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/// Per outlet face cell: its moments and those of x + n from the state, and the moment adjoints of its links.
template <class T>
struct OutletRecords {
  using R = compute_t<T>;
  OpenAdjointPlan<R> plan;
  PopulationView<T> state;
  bool swapped;
  BlockFields<R> lambda;
  FlagView flags;
  BlockShape shape;
  WallVelocities<R> walls;
  R force[3];
  ForceFieldView<R> field;

  EDDY_HOST_DEVICE R kappa(std::int64_t cell) const {
    return field.porosity ? R(2) / (R(2) - field.porosity[cell]) : R(1);
  }

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t r = std::int64_t(y) * kRow + x;
    if (r >= plan.n_outlet_cells) return;
    const OutletAdjointCell c = plan.outlet_cells[r];
    R rho, u[3], rho_n, u_n[3];
    open_post_collision_moments<T, R>(state, swapped, flags, shape, walls, force, field, c.cell, rho, u);
    if (c.next >= 0) {
      open_post_collision_moments<T, R>(state, swapped, flags, shape, walls, force, field, c.next, rho_n, u_n);
    } else {
      rho_n = rho;
      for (int a = 0; a < 3; ++a) u_n[a] = u[a];
    }
    const R rho_g = R(2) * R(c.rho_w) - rho;
    R u_g[3];
    for (int a = 0; a < 3; ++a) u_g[a] = R(2) * u[a] - u_n[a];
    R rho_bar = R(0), u_bar[3] = {R(0), R(0), R(0)}, u_n_bar[3] = {R(0), R(0), R(0)};
    for (int l = 0; l < c.count; ++l) {
      const OutletAdjointLink link = plan.outlet_links[c.first + l];
      const int i = link.dir;
      const R nu_w = lambda.at[link.nu_slot] * d3q19::w<R>(i);
      R d_g[3], d_u[3];
      const R sh_g = shape_and_gradient(i, u_g, d_g), sh = shape_and_gradient(i, u, d_u);
      rho_bar -= nu_w * (sh_g + sh);
      for (int a = 0; a < 3; ++a) {
        u_bar[a] += nu_w * (R(2) * rho_g * d_g[a] - rho * d_u[a]);
        u_n_bar[a] -= nu_w * rho_g * d_g[a];
      }
    }
    if (c.next < 0) {  // u_n = u
      for (int a = 0; a < 3; ++a) {
        u_bar[a] += u_n_bar[a];
        u_n_bar[a] = R(0);
      }
    }
    R* out = plan.records + kRecord * r;
    out[0] = rho_bar;
    out[7] = rho;
    out[8] = kappa(c.cell);
    out[kHalf] = R(0);  // x + n's rho is not read
    out[kHalf + 7] = rho_n;
    out[kHalf + 8] = c.next >= 0 ? kappa(c.next) : R(1);
    for (int a = 0; a < 3; ++a) {
      out[1 + a] = u_bar[a];
      out[4 + a] = u[a];
      out[kHalf + 1 + a] = u_n_bar[a];
      out[kHalf + 4 + a] = u_n[a];
    }
  }
};

/// Per target slot: the linear terms added to the slot in order, then the sum of the outlet-moment terms; at the
/// slots of direction 0 (one per cell) also the moments' share of dL/dF and dL/dalpha of that cell.
template <class R>
struct TargetSums {
  OpenAdjointPlan<R> plan;
  R* lambda;
  std::int64_t n_cells;
  BlockFields<R> force_bar, porosity_bar;  // porosity_bar.at null without a porosity field

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t t = std::int64_t(y) * kRow + x;
    if (t >= plan.n_targets) return;
    const std::int64_t slot = plan.targets[t];
    const int k = int(slot / n_cells);
    R value = lambda[slot], moments = R(0);
    for (std::int64_t m = plan.term_start[t]; m < plan.term_start[t + 1]; ++m) {
      const OpenAdjointTerm term = plan.terms[m];
      if (term.kind == 0) {
        value += lambda[term.index];
        continue;
      }
      // x's record (kind 1): rho_bar + u_bar.(kappa c_k - u) / rho; x + n's (kind 2): u_n_bar.(kappa c_k - u_n) /
      // rho_n (du/ds_k through m and rho, kernels/brinkman.hpp).
      const R* rec = plan.records + kRecord * term.index + (term.kind == 1 ? 0 : kHalf);
      const R rho = rec[7], kappa = rec[8];
      R part = rec[0];
      for (int a = 0; a < 3; ++a) part += rec[1 + a] * (kappa * R(d3q19::c(k, a)) - rec[4 + a]) / rho;
      moments += part;
      if (k == 0) {  // du/dF_ext = -kappa / (2 rho), du/dalpha = u / (2 - alpha) = kappa u / 2; slot = the cell
        R alpha_bar = R(0);
        for (int a = 0; a < 3; ++a) {
          force_bar(a, slot) -= R(0.5) * kappa * rec[1 + a] / rho;
          alpha_bar += R(0.5) * kappa * rec[1 + a] * rec[4 + a];
        }
        if (porosity_bar.at) porosity_bar(0, slot) += alpha_bar;
      }
    }
    lambda[slot] = value + moments;  // 0 + moments on an owner whose linear terms came from another rank
  }
};

template <class R>
struct ClearSlots {
  const std::int64_t* slots;
  std::int64_t n;
  R* lambda;
  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t s = std::int64_t(y) * kRow + x;
    if (s < n) lambda[slots[s]] = R(0);
  }
};

}  // namespace

template <class T>
void open_faces_adjoint(const OpenAdjointPlan<compute_t<T>>& plan, const PopulationView<T>& state,
                        PopulationLayout layout, const BlockFields<compute_t<T>>& lambda,
                        const BlockFields<compute_t<T>>& force_bar, const BlockFields<compute_t<T>>& porosity_bar,
                        const FlagView& flags, const BlockShape& shape, const WallVelocities<compute_t<T>>& walls,
                        const compute_t<T> (&force)[3], const ForceFieldView<compute_t<T>>& field,
                        const backend::Stream* stream) {
  using R = compute_t<T>;
  if (plan.n_outlet_cells > 0) {
    const OutletRecords<T> k{plan,  state, layout == PopulationLayout::swapped, lambda, flags,
                             shape, walls, {force[0], force[1], force[2]},      field};
    parallel_for(rows_for(plan.n_outlet_cells), k, "open_adjoint_outlet", stream);
  }
  if (plan.n_targets > 0) {
    const TargetSums<R> k{plan, lambda.at, lambda.n_cells, force_bar, porosity_bar};
    parallel_for(rows_for(plan.n_targets), k, "open_adjoint_targets", stream);
  }
  if (plan.n_nu_slots > 0) {
    parallel_for(rows_for(plan.n_nu_slots), ClearSlots<R>{plan.nu_slots, plan.n_nu_slots, lambda.at},
                 "open_adjoint_clear", stream);
  }
}

#define EDDY_INSTANTIATE(T)                                                                                 \
  template void open_faces_adjoint<T>(                                                                      \
      const OpenAdjointPlan<compute_t<T>>&, const PopulationView<T>&, PopulationLayout,                     \
      const BlockFields<compute_t<T>>&, const BlockFields<compute_t<T>>&, const BlockFields<compute_t<T>>&, \
      const FlagView&, const BlockShape&, const WallVelocities<compute_t<T>>&, const compute_t<T>(&)[3],    \
      const ForceFieldView<compute_t<T>>&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
