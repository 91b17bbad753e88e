// The adjoint step: the exact transpose of one stream-collide step of the fused kernel (kernels/stream_collide.cpp)
// linearised about its forward state, for the reverse sweep of a discrete adjoint (solver/adjoint.hpp).
//
// Forward, with s^n the post-collision populations of step n and S the streaming with halfway bounce-back:
//   s^{n+1}(x) = C(S(s^n)(x); F(x)),   S(s)_j(x) = s_j(x - c_j), or s_opp(j)(x) + 6 w_j c_j.u_w where x - c_j is a
//   wall (kernels/boundary_rules.hpp)                                        Krueger et al. 2017, eqs. 3.9, 5.26-5.27
// Adjoint, lambda^n = dL/ds^n from lambda^{n+1} (Griewank & Walther 2008, Evaluating Derivatives, ch. 3), one pass
// per step, each fluid cell x:
//   nu(x) = (dC/df)^T(S(s^n)(x)) lambda^{n+1}(x)       (kernels/adjoint_collision.hpp)
//   dL/dF(x) += (dC/dF)^T lambda^{n+1}(x)
//   lambda^n_j(x - c_j) = nu_j(x), or lambda^n_opp(j)(x) = nu_j(x) where x - c_j is a wall      (S^T, pushed)
// S is a one-to-one map of slots, so every slot of lambda^n gets exactly one value and no sums are needed; a slot
// whose writer lies in the ghost layer is set to 0 here and receives its value from the neighbour's ghost layer
// (FieldHalo::add_ghosts_to_owners). The moving-wall term is a constant and drops out of the derivative. S(s^n)(x)
// is read from the stored state as the fused kernel reads it (load_arrived: either AA layout, walls included).
//
// Bytes per fluid cell and step: 19 * sizeof(T) state read + 19 * sizeof(R) lambda read + 19 * sizeof(R) lambda
//   written + 5 * 2 * sizeof(R) force_bar and omega_bar read and written (+ 3 * sizeof(R) force field) + flags:
//   269 B in float
//   (the forward step: 153 B); the objective: 4 * sizeof(R) read (+ 3 with a target), 4 * sizeof(R) written; the
//   seed: 8 * sizeof(R) read, 19 * sizeof(R) written.
//
// A force objective, L = F.d with F the momentum-exchange force on a solid at its half-way links (Ladd 1994, J. Fluid
// Mech. 271, 285: F = sum_links 2 f*_i(x_f) c_i, kernels/solid_forces.hpp), is linear in the post-collision state:
//   dL/ds_i(x_f) = 2 c_i.d at each link (x_f, i) of the solid, 0 elsewhere,
// added to lambda directly (no streaming between s and L).
//
// The starting equilibrium, after the sweep: where the run starts from s^0_i(x) = f_eq_i(rho0(x), u0(x))
// (Krueger et al. 2017, eq. 3.54: f_eq_i = w_i rho (1 + 3 c_i.u + 9/2 (c_i.u)^2 - 3/2 u.u)), the chain rule through
// the equilibrium, cell by cell (no streaming: s^0 is what leaves each cell):
//   dL/drho0(x) = sum_i lambda^0_i(x) w_i (1 + 3 c_i.u0 + 9/2 (c_i.u0)^2 - 3/2 u0.u0)
//   dL/du0(x)   = sum_i lambda^0_i(x) w_i rho0 (3 c_i + 9 (c_i.u0) c_i - 3 u0)
// at rho0 = sum_i s^0_i, u0 = sum_i c_i s^0_i / rho0 (the raw moments of s^0, which are rho0 and u0 for an
// equilibrium; no F/2 shift).
#include <climits>
#include <cstdint>

#include "kernels/adjoint_collision.hpp"
#include "kernels/adjoint_launchers.hpp"
#include "kernels/brinkman.hpp"
#include "kernels/equilibrium.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/streaming.hpp"

namespace eddy {
namespace {

/// S^T at fluid `cell` (interior) whose flag is `own`: nu_j(x) to the slot whose population fed f_j(x); slots of x
/// whose writer is a non-solid ghost cell set to 0 (the ghost exchange adds their values later). kFluid cells have
/// no solid neighbour: no flag reads for the pushes. `lambda`: the adjoint's block fields seen from the cell
/// (CellSlots, kernels/streaming.hpp: 32-bit offsets where they fit, as the fused kernel's).
template <class R, class Index>
EDDY_HOST_DEVICE inline void scatter_transposed(const R (&nu)[d3q19::Q], const CellSlots<R, Index>& lambda,
                                                const FlagView& flags, const BlockShape& shape, int x, int y, int z,
                                                Index cell, CellFlag own) {
  const bool at_edge = x == 1 || x == shape.n[0] || y == 1 || y == shape.n[1] || z == 1 || z == shape.n[2];
  if (at_edge) {
    EDDY_UNROLL
    for (int j = 0; j < d3q19::Q; ++j) {
      const int cx = d3q19::c(j, 0), cy = d3q19::c(j, 1), cz = d3q19::c(j, 2);
      const bool to_ghost =
          x + cx < 1 || x + cx > shape.n[0] || y + cy < 1 || y + cy > shape.n[1] || z + cz < 1 || z + cz > shape.n[2];
      if (to_ghost && !is_solid(flags.flag[std::int64_t(cell) + shape.offset(cx, cy, cz)])) lambda(j) = R(0);
    }
  }
  if (own == kFluid) {
    EDDY_UNROLL
    for (int j = 0; j < d3q19::Q; ++j) {
      lambda(j, Index(0) - Index(shape.offset(d3q19::c(j, 0), d3q19::c(j, 1), d3q19::c(j, 2)))) = nu[j];
    }
    return;
  }
  EDDY_UNROLL
  for (int j = 0; j < d3q19::Q; ++j) {
    const Index from = Index(0) - Index(shape.offset(d3q19::c(j, 0), d3q19::c(j, 1), d3q19::c(j, 2)));
    if (is_solid(flags.flag[cell + from])) {
      lambda(d3q19::opp(j)) = nu[j];
    } else {
      lambda(j, from) = nu[j];
    }
  }
}

/// The Brinkman drag's part of the chain rule at a porous cell (kernels/brinkman.hpp): force_bar = dL/dF of the
/// total force becomes dL/dF_ext, its path through j = sum_i c_i g_i is added to lambda_i (c_i . dL/dj); returns
/// dL/dalpha. `momentum`: rho u = j + F/2.
template <class R>
EDDY_HOST_DEVICE inline R porosity_chain(R alpha, const R (&momentum)[3], R (&force_bar)[3], R (&lambda)[d3q19::Q]) {
  R j_bar[3] = {R(0), R(0), R(0)};
  const R alpha_bar = brinkman_adjoint(alpha, momentum, force_bar, j_bar);
  EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) lambda[i] += d3q19::c_dot(i, j_bar);
  return alpha_bar;
}

template <class T, class Index>
struct AdjointStep {
  using R = compute_t<T>;
  // The register cap (kernels/parallel_for.hpp, MaxRegisters): measured in docs/performance.md.
  static constexpr int kMaxRegisters = 80;
  PopulationView<T> state;
  bool swapped;
  BlockFields<const R> lambda_next;
  BlockFields<R> lambda, force_bar, omega_bar, porosity_bar;
  FlagView flags;
  BlockShape shape;
  Relaxation<R> relax;
  WallVelocities<R> walls;
  ForceFieldView<R> force_field;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const Index cell = Index(shape.index(x, y, z));
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) return;
    R f[d3q19::Q], mu[d3q19::Q], nu[d3q19::Q];
    load_arrived(state, swapped, flags, shape, cell, own, walls, f);
    const R unscale = R(1) / Stored<T>::kScale;
    const Index n = Index(lambda.n_cells);
    const CellSlots<const R, Index> next(lambda_next.at, cell, n);
    for (int i = 0; i < d3q19::Q; ++i) {
      f[i] *= unscale;
      mu[i] = next(i);
    }
    R force[3] = {relax.force[0], relax.force[1], relax.force[2]};
    force_field.cell_force(cell, f, R(1), force);
    R bar[3] = {R(0), R(0), R(0)}, rates_bar[2] = {R(0), R(0)};
    collide_adjoint(f, force, relax.omega_plus, relax.omega_minus, mu, nu, bar, rates_bar);
    if (force_field.porosity) {
      const R momentum[3] = {d3q19::c_moment(0, f) + R(0.5) * force[0], d3q19::c_moment(1, f) + R(0.5) * force[1],
                             d3q19::c_moment(2, f) + R(0.5) * force[2]};
      porosity_bar(0, cell) += porosity_chain(force_field.porosity[cell], momentum, bar, nu);
    }
    const CellSlots<R, Index> fb(force_bar.at, cell, n), ob(omega_bar.at, cell, n);
    for (int a = 0; a < 3; ++a) fb(a) += bar[a];
    for (int r = 0; r < 2; ++r) ob(r) += rates_bar[r];
    scatter_transposed(nu, CellSlots<R, Index>(lambda.at, cell, n), flags, shape, x, y, z, cell, own);
  }
};

/// dL/drho0 and dL/du0 of a starting equilibrium (the file's formula) into the 4 block fields of `out`
/// (rho, ux, uy, uz), 0 on solid cells.
template <class T>
struct InitialEquilibriumAdjoint {
  using R = compute_t<T>;
  PopulationView<T> state;
  bool swapped;
  BlockFields<const R> lambda;
  BlockFields<R> out;
  FlagView flags;
  BlockShape shape;
  WallVelocities<R> walls;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) {
      for (int c = 0; c < 4; ++c) out(c, cell) = R(0);
      return;
    }
    R g[d3q19::Q];
    for (int i = 0; i < d3q19::Q; ++i) g[i] = load_leaving<R>(state, swapped, flags, shape, cell, walls, i);
    const R no_force[3] = {R(0), R(0), R(0)};
    R drho, rho, u[3];
    shifted_moments(g, no_force, drho, rho, u);  // the raw moments: no F/2 shift
    const R usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    R rho_bar = R(0), u_bar[3] = {R(0), R(0), R(0)};
    for (int i = 0; i < d3q19::Q; ++i) {
      const R wl = d3q19::w<R>(i) * lambda(i, cell), cu = d3q19::c_dot(i, u);
      rho_bar += wl * (R(1) + R(3) * cu + R(4.5) * cu * cu - R(1.5) * usq);
      for (int a = 0; a < 3; ++a) u_bar[a] += wl * rho * ((R(3) + R(9) * cu) * R(d3q19::c(i, a)) - R(3) * u[a]);
    }
    out(0, cell) = rho_bar;
    for (int a = 0; a < 3; ++a) out(1 + a, cell) = u_bar[a];
  }
};

constexpr int kLinkRow = 1024;  // links per row of the launch box (one thread per link)

/// lambda_i(x_f) += 2 c_i.d at the cut links (x_f, i) of `solid` (the file's force objective).
template <class R>
struct ForceSeed {
  const CutLink* links;
  std::int64_t n_links;
  int solid;
  R d[3];
  BlockFields<R> lambda;
  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kLinkRow + x;
    if (k >= n_links) return;
    const CutLink link = links[k];
    if (link.solid != solid) return;
    lambda(link.dir, link.cell) += R(2) * d3q19::c_dot(link.dir, d);
  }
};

template <class R>
struct AdjointSeed {
  const R* moments;
  const R* moments_bar;
  BlockFields<R> lambda, force_bar, porosity_bar;
  FlagView flags;
  BlockShape shape;
  const R* porosity;  // alpha per block cell, or null

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) return;
    const std::int64_t n = std::int64_t(shape.n[0]) * shape.n[1] * shape.n[2];
    const std::int64_t k = (x - 1) + std::int64_t(shape.n[0]) * ((y - 1) + std::int64_t(shape.n[1]) * (z - 1));
    const R u[3] = {moments[n + k], moments[2 * n + k], moments[3 * n + k]};
    const R u_bar[3] = {moments_bar[n + k], moments_bar[2 * n + k], moments_bar[3 * n + k]};
    R nu[d3q19::Q], bar[3] = {R(0), R(0), R(0)};
    for (int i = 0; i < d3q19::Q; ++i) nu[i] = R(0);
    moments_adjoint(moments_bar[k], u_bar, moments[k], u, nu, bar);
    if (porosity) {
      const R rho = moments[k];
      const R momentum[3] = {rho * u[0], rho * u[1], rho * u[2]};
      porosity_bar(0, cell) += porosity_chain(porosity[cell], momentum, bar, nu);
    }
    for (int a = 0; a < 3; ++a) force_bar(a, cell) += bar[a];
    scatter_transposed(nu, CellSlots<R, std::int64_t>(lambda.at, cell, lambda.n_cells), flags, shape, x, y, z, cell,
                       flags.flag[cell]);
  }
};

template <class R>
struct AdjointObjective {
  const R* moments;
  ObjectiveView<R> objective;
  R* moments_bar;
  double* row_sums;
  BlockShape shape;

  EDDY_HOST_DEVICE void operator()(int /*x*/, int y, int z) const {
    const std::int64_t n = std::int64_t(shape.n[0]) * shape.n[1] * shape.n[2];
    const std::int64_t row = std::int64_t(shape.n[0]) * ((y - 1) + std::int64_t(shape.n[1]) * (z - 1));
    double sum = 0.0;
    for (int x = 1; x <= shape.n[0]; ++x) {
      const std::int64_t k = row + (x - 1);
      const R rho = moments[k];
      R rho_bar = R(0), u_bar[3] = {R(0), R(0), R(0)};
      const bool up = objective.upstream(x, y, z), down = objective.downstream(x, y, z);
      if (objective.kind == 2 && (up || down) && rho > R(0)) {
        // L = c_s^2 (<rho>_up - <rho>_down): each cell's weight times its rho.
        rho_bar = (up ? objective.up_weight : R(0)) - (down ? objective.down_weight : R(0));
        sum += double(rho_bar) * double(rho);
      } else if (objective.kind != 2 && up && rho > R(0)) {
        const R u[3] = {moments[n + k], moments[2 * n + k], moments[3 * n + k]};
        R u_t[3] = {R(0), R(0), R(0)};
        if (objective.target) {
          for (int a = 0; a < 3; ++a) u_t[a] = objective.target[a * n + k];
        }
        sum += cell_objective(objective.kind, rho, u, u_t, rho_bar, u_bar);
      }
      moments_bar[k] = rho_bar;
      for (int a = 0; a < 3; ++a) moments_bar[(1 + a) * n + k] = u_bar[a];
    }
    row_sums[(z - 1) * std::int64_t(shape.n[1]) + (y - 1)] = sum;
  }
};

/// rows[(z - 1) ny + (y - 1)] = the sum over x of one block field's interior row, in double.
template <class R>
struct RowSums {
  const R* field;
  BlockShape shape;
  double* rows;
  EDDY_HOST_DEVICE void operator()(int /*x*/, int y, int z) const {
    double sum = 0.0;
    for (int x = 1; x <= shape.n[0]; ++x) sum += double(field[shape.index(x, y, z)]);
    rows[(z - 1) * std::int64_t(shape.n[1]) + (y - 1)] = sum;
  }
};

template <class R>
struct ZeroFields {
  BlockFields<R> fields;
  int components;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    for (int c = 0; c < components; ++c) fields(c, cell) = R(0);
  }
};

/// to(c, cell) += from(c, cell) for the components c of one cell.
template <class R>
struct AddFields {
  BlockFields<R> to;
  BlockFields<const R> from;
  int components;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    for (int c = 0; c < components; ++c) to(c, cell) += from(c, cell);
  }
};

}  // namespace

template <class R>
void add_fields(const BlockFields<R>& to, const BlockFields<const R>& from, int components, const BlockShape& shape,
                const backend::Stream* stream) {
  parallel_for(shape.interior(), AddFields<R>{to, from, components, shape}, "add_fields", stream);
}

template <class R>
void row_sums(const R* field, const BlockShape& shape, double* rows, const backend::Stream* stream) {
  const Box all_rows{{1, 1, 1}, {2, shape.n[1] + 1, shape.n[2] + 1}};
  parallel_for(all_rows, RowSums<R>{field, shape, rows}, "row_sums", stream);
}

template <class R>
void zero_fields(const BlockFields<R>& fields, int components, const BlockShape& shape, const backend::Stream* stream) {
  parallel_for(shape.whole(), ZeroFields<R>{fields, components, shape}, "zero_fields", stream);
}

template <class R>
void adjoint_objective(const R* moments, const ObjectiveView<R>& objective, R* moments_bar, double* row_sums,
                       const BlockShape& shape, const backend::Stream* stream) {
  const Box rows{{1, 1, 1}, {2, shape.n[1] + 1, shape.n[2] + 1}};
  parallel_for(rows, AdjointObjective<R>{moments, objective, moments_bar, row_sums, shape}, "adjoint_objective",
               stream);
}

template <class T>
void adjoint_step(const PopulationView<T>& state, PopulationLayout layout,
                  const BlockFields<const compute_t<T>>& lambda_next, const BlockFields<compute_t<T>>& lambda,
                  const BlockFields<compute_t<T>>& force_bar, const BlockFields<compute_t<T>>& omega_bar,
                  const BlockFields<compute_t<T>>& porosity_bar, const FlagView& flags, const BlockShape& shape,
                  const Relaxation<compute_t<T>>& relax, const WallVelocities<compute_t<T>>& walls,
                  const ForceFieldView<compute_t<T>>& force_field, const backend::Stream* stream, bool wide_index) {
  const auto launch = [&](auto index) {
    using Index = decltype(index);
    const AdjointStep<T, Index> k{state,        layout == PopulationLayout::swapped,
                                  lambda_next,  lambda,
                                  force_bar,    omega_bar,
                                  porosity_bar, flags,
                                  shape,        relax,
                                  walls,        force_field};
    // Warps on aligned runs of cells, as the fused kernel's (kernels/parallel_for.hpp).
    parallel_for_aligned(shape, shape.interior(), k, "adjoint_step", stream);
  };
  // 32-bit offsets where every slot i * n_cells + cell fits (kernels/streaming.hpp), as in the fused kernel.
  if (!wide_index && std::uint64_t(d3q19::Q) * std::uint64_t(shape.n_cells()) <= std::uint64_t(UINT32_MAX)) {
    launch(std::uint32_t(0));
  } else {
    launch(std::int64_t(0));
  }
}

template <class T>
void initial_equilibrium_adjoint(const PopulationView<T>& state, PopulationLayout layout,
                                 const BlockFields<const compute_t<T>>& lambda, const BlockFields<compute_t<T>>& out,
                                 const FlagView& flags, const BlockShape& shape,
                                 const WallVelocities<compute_t<T>>& walls, const backend::Stream* stream) {
  const InitialEquilibriumAdjoint<T> k{state, layout == PopulationLayout::swapped, lambda, out, flags, shape, walls};
  parallel_for(shape.interior(), k, "initial_equilibrium_adjoint", stream);
}

template <class R>
void adjoint_force_seed(const CutLink* links, std::int64_t n_links, int solid, const R (&direction)[3],
                        const BlockFields<R>& lambda, const backend::Stream* stream) {
  if (n_links <= 0) return;
  const int width = n_links < kLinkRow ? int(n_links) : kLinkRow;
  const int rows = int((n_links + kLinkRow - 1) / kLinkRow);
  const ForceSeed<R> k{links, n_links, solid, {direction[0], direction[1], direction[2]}, lambda};
  parallel_for(Box{{0, 0, 0}, {width, rows, 1}}, k, "adjoint_force_seed", stream);
}

template <class R>
void adjoint_seed(const R* moments, const R* moments_bar, const BlockFields<R>& lambda, const BlockFields<R>& force_bar,
                  const BlockFields<R>& porosity_bar, const R* porosity, const FlagView& flags, const BlockShape& shape,
                  const backend::Stream* stream) {
  parallel_for(shape.interior(),
               AdjointSeed<R>{moments, moments_bar, lambda, force_bar, porosity_bar, flags, shape, porosity},
               "adjoint_seed", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                          \
  template void adjoint_step<T>(                                                                                     \
      const PopulationView<T>&, PopulationLayout, const BlockFields<const compute_t<T>>&,                            \
      const BlockFields<compute_t<T>>&, const BlockFields<compute_t<T>>&, const BlockFields<compute_t<T>>&,          \
      const BlockFields<compute_t<T>>&, const FlagView&, const BlockShape&, const Relaxation<compute_t<T>>&,         \
      const WallVelocities<compute_t<T>>&, const ForceFieldView<compute_t<T>>&, const backend::Stream*, bool);       \
  template void initial_equilibrium_adjoint<T>(const PopulationView<T>&, PopulationLayout,                           \
                                               const BlockFields<const compute_t<T>>&,                               \
                                               const BlockFields<compute_t<T>>&, const FlagView&, const BlockShape&, \
                                               const WallVelocities<compute_t<T>>&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE
template void adjoint_objective<float>(const float*, const ObjectiveView<float>&, float*, double*, const BlockShape&,
                                       const backend::Stream*);
template void adjoint_objective<double>(const double*, const ObjectiveView<double>&, double*, double*,
                                        const BlockShape&, const backend::Stream*);
template void row_sums<float>(const float*, const BlockShape&, double*, const backend::Stream*);
template void row_sums<double>(const double*, const BlockShape&, double*, const backend::Stream*);
template void zero_fields<float>(const BlockFields<float>&, int, const BlockShape&, const backend::Stream*);
template void zero_fields<double>(const BlockFields<double>&, int, const BlockShape&, const backend::Stream*);
template void add_fields<float>(const BlockFields<float>&, const BlockFields<const float>&, int, const BlockShape&,
                                const backend::Stream*);
template void add_fields<double>(const BlockFields<double>&, const BlockFields<const double>&, int, const BlockShape&,
                                 const backend::Stream*);
template void adjoint_force_seed<float>(const CutLink*, std::int64_t, int, const float (&)[3],
                                        const BlockFields<float>&, const backend::Stream*);
template void adjoint_force_seed<double>(const CutLink*, std::int64_t, int, const double (&)[3],
                                         const BlockFields<double>&, const backend::Stream*);
template void adjoint_seed<float>(const float*, const float*, const BlockFields<float>&, const BlockFields<float>&,
                                  const BlockFields<float>&, const float*, const FlagView&, const BlockShape&,
                                  const backend::Stream*);
template void adjoint_seed<double>(const double*, const double*, const BlockFields<double>&, const BlockFields<double>&,
                                   const BlockFields<double>&, const double*, const FlagView&, const BlockShape&,
                                   const backend::Stream*);

}  // namespace eddy
