// The open-face pass: after every step, the populations that the ghost nodes of the open faces (velocity_inlet,
// pressure_outlet, outflow, free_slip; kernels/cell_flags.hpp, kOpen + face) send into the domain, by the rules of
// kernels/boundary_rules.hpp, one thread per link.
//
// Why a pass and not solid_link: the rules read more than the face cell's own populations (the next cell inwards,
// a neighbour along the face) and hold a velocity profile and a ramp, which would cost the fused kernel registers
// on every cell. The ghost nodes are not solid, so the fused kernel streams into and out of them as into fluid
// neighbours, face cells of the bulk path included; the pass then overwrites the one slot of each link that the
// next step reads (the in-place AA layout keeps every population at a known slot between steps,
// kernels/streaming.hpp):
//   "swapped" (after an even step): slot opp(i) of the ghost node g = x - c_i, which the odd step gathers as
//                                   f_i(x); x's own post-collision f*_k(x) are in its slots opp(k);
//   "own"     (after an odd step):  slot i of x, which the even step reads as f_i(x); the odd step left f*_k(y) in
//                                   slot k of y + c_k (or, towards a solid cell, bounced into slot opp(k) of y).
// In both layouts the slots a rule reads (post-collision populations of fluid cells, open_post_collision) and the
// slots the pass writes are different, so links may be handled in any order and concurrently, and the result does
// not depend on the schedule.
//
// When: after the halo exchange that follows the step (solver/lattice_simulation.cpp), so that a rule reading a
// neighbour along the face that lives on another rank, or across a periodic face, finds its post-collision
// population: "swapped" in the ghost plane (filled into_ghosts), "own" delivered into this block's slot (out of the
// ghosts). The exchange also writes, out of the ghosts, slot i of face cells whose link comes from a ghost node
// across the rank boundary (their upstream cell is not solid); the pass overwrites those. Bitwise 1 vs N ranks.
//
// Memory traffic (the pass runs every step over every face cell, so it is written for the GPU's memory system):
//   - the links are direction-major (all links of c_1, then of c_2, ...; cell order within one; the pressure
//     outlet's after all others), so on the faces normal to y and z neighbouring threads read and write
//     neighbouring cells of one population plane;
//   - a link on the device is 16 bytes (OpenLinkCode: the cell, the packed direction, rule, face and source, an
//     index into the inlet velocities or the outlet moments); the ghost node and x - t_i follow from them;
//   - a pressure outlet's rule needs the moments rho, u of its face cell and of the next cell inwards: the fused
//     kernel of the step writes them for the two planes of one outlet face of the block (OutletMomentsView,
//     kernels/views.hpp), so the pass reads 2 x 4 values per link instead of 2 x 19 populations per face cell, and
//     all links run in one kernel. The face cells of other outlet faces of the block, and all of them after a state
//     was set without a step (set_populations), have their moments computed from the post-collision populations,
//     once per face cell (not per link), by a first kernel that also runs the other rules' links (their scattered
//     reads overlap); a second kernel then runs the outlet's links. Both give the same moments up to round-off;
//   - per link then: one or two populations read (2 flags per population in the "own" layout), one written, and for
//     the convective outflow one history value read and written. The face is sparse: no field over the whole block.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/boundary_rules.hpp"
#include "kernels/brinkman.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/rounding_bits.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Layers next to an open face whose post-collision populations the pass reads: the face cells x and x - t_i, and
/// x + n (the pressure outlet). Where such a population sits in a cut link's wall slot (x + c_k inside a [[solid]]),
/// the pass must read it before the interpolated walls' pass overwrites that slot: those links run after this pass
/// (solver/lattice_setup.hpp, cut_links; docs/boundaries.md, "The order of the passes within a step").
constexpr int kOpenPassReach = 2;

/// What a link's rule is (OpenLink::rule).
enum OpenRule : std::int32_t {
  kInletRule = 0,       ///< velocity_inlet_link: value[0..2] = u_in at the link's crossing point
  kPressureRule = 1,    ///< pressure_outlet_link: value[0] = rho_w; inner = f*_source_dir(source); `next` = x + n
                        ///< (or -1: u(+n) = u(x))
  kCopyRule = 2,        ///< zero_gradient_link / free_slip_link: f*_source_dir(source)
  kConvectiveRule = 3,  ///< convective_link: value[0] = lambda = U_c; inner = f*_source_dir(source)
};

/// One link from an open face's ghost node into a fluid interior cell of the block (block indices, BlockShape): the
/// host's description, which the tests read; the device holds its OpenLinkCode.
struct OpenLink {
  std::int64_t cell;         ///< x, the fluid cell
  std::int64_t ghost;        ///< g = x - c_dir, the ghost node
  std::int64_t source;       ///< the cell whose post-collision population the rule reads (see OpenRule)
  std::int64_t next;         ///< x + n, the next cell inwards (pressure outlet; -1 where it is not fluid)
  std::int32_t dir;          ///< i: the population f_i(x, t + 1) the link sets
  std::int32_t source_dir;   ///< the direction of the population read at `source`
  std::int32_t rule;         ///< OpenRule
  std::int32_t face;         ///< the face that owns the ghost node (kFaceNames order): its ramp
  std::int32_t position[3];  ///< block-local coordinates of x (fp16 rounding bits)
  double value[3];           ///< the rule's constants (OpenRule), lattice units
};

/// The device form of an OpenLink (16 bytes; solver/open_boundaries.cpp encodes it): `cell` = x, `code` packs
/// dir (bits 0-4), source_dir (5-9), rule (10-11), face (12-14), whether the rule reads x - t_i (bit 15; else x
/// itself) and, for the pressure outlet, whether x + n is fluid (bit 16; else u(x + n) = u(x)); `index` is the link's
/// inlet velocity (kInletRule: inlet_velocity[3 index + d]) or its face cell's record of outlet moments (kPressureRule:
/// OpenPassArguments::outlet_moments; x + n's record is index + next_offset[face]), -1 for the other rules.
struct OpenLinkCode {
  std::int64_t cell;
  std::uint32_t code;
  std::int32_t index;

  EDDY_HOST_DEVICE int dir() const { return int(code & 31u); }
  EDDY_HOST_DEVICE int source_dir() const { return int((code >> 5) & 31u); }
  EDDY_HOST_DEVICE int rule() const { return int((code >> 10) & 3u); }
  EDDY_HOST_DEVICE int face() const { return int((code >> 12) & 7u); }
  EDDY_HOST_DEVICE bool reads_along() const { return ((code >> 15) & 1u) != 0u; }
  EDDY_HOST_DEVICE bool next_is_fluid() const { return ((code >> 16) & 1u) != 0u; }

  EDDY_HOST_DEVICE static std::uint32_t pack(int dir, int source_dir, int rule, int face, bool reads_along,
                                             bool next_is_fluid) {
    return std::uint32_t(dir) | std::uint32_t(source_dir) << 5 | std::uint32_t(rule) << 10 | std::uint32_t(face) << 12 |
           std::uint32_t(reads_along ? 1u : 0u) << 15 | std::uint32_t(next_is_fluid ? 1u : 0u) << 16;
  }
  /// The ghost node g = x - c_dir.
  EDDY_HOST_DEVICE std::int64_t ghost(const BlockShape& shape) const {
    const int i = dir();
    return cell - shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
  }
  /// Block-local coordinates of x (ghost layer at 0; the fp16 rounding bits, the checkpoint's interior index).
  EDDY_HOST_DEVICE void position(const BlockShape& shape, int (&p)[3]) const {
    const std::int64_t row = cell / shape.pitch();
    p[0] = int(cell - row * shape.pitch());
    p[2] = int(row / (shape.n[1] + 2));
    p[1] = int(row - std::int64_t(p[2]) * (shape.n[1] + 2));
  }
  /// The cell the rule reads: x - t_i (t_i the part of c_i along the face) or x.
  EDDY_HOST_DEVICE std::int64_t source(const BlockShape& shape) const {
    if (!reads_along()) return cell;
    const int i = dir(), axis = face() / 2;
    int t[3] = {d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)};
    t[axis] = 0;
    return cell - shape.offset(t[0], t[1], t[2]);
  }
};

/// A face cell of a pressure outlet (one per cell and face, however many of its links come from the face) whose
/// moments the pass computes itself: x and the next cell inwards x + n (-1 where it is not fluid: u(x + n) = u(x)),
/// and their records in OpenPassArguments::outlet_moments.
struct OutletCell {
  std::int64_t cell;
  std::int64_t next;
  std::int32_t record;
  std::int32_t next_record;
};

/// The post-collision population f*_k(z, t) of the step just taken at fluid cell z (block index), scaled, from
/// array `a` in the layout the step left (`swapped`): slot opp(k) of z, or slot k of z + c_k, or, when z + c_k is
/// solid, the bounced value in slot opp(k) of z with the moving-wall term taken off.
template <class T, class R>
EDDY_HOST_DEVICE inline R open_post_collision(const PopulationView<T>& a, bool swapped, const FlagView& flags,
                                              const BlockShape& shape, const WallVelocities<R>& walls, std::int64_t z,
                                              int k) {
  if (swapped) return Stored<T>::load_scaled(a.f[std::int64_t(d3q19::opp(k)) * a.n_cells + z]);
  const std::int64_t to = z + shape.offset(d3q19::c(k, 0), d3q19::c(k, 1), d3q19::c(k, 2));
  const CellFlag neighbour = flags.flag[to];
  if (!is_solid(neighbour)) return Stored<T>::load_scaled(a.f[std::int64_t(k) * a.n_cells + to]);
  R value = Stored<T>::load_scaled(a.f[std::int64_t(d3q19::opp(k)) * a.n_cells + z]);
  if (neighbour >= kMovingWall) {
    value -= Stored<T>::kScale * ladd_term(d3q19::opp(k), walls.u[neighbour - kMovingWall]);
  }
  return value;
}

/// The density rho and velocity u of fluid cell z that its collision used, from its post-collision populations:
/// rho = 1 + sum_k f*_k (shifted), u = (2 m - F_ext) / ((2 - alpha) rho) with m = sum_k c_k f*_k (Guo forcing: the
/// collision added its total force F to the momentum; kernels/brinkman.hpp, velocity_after_collision), F_ext the
/// uniform `force` plus the cell's share of `field` and alpha its porosity (0 without). Lattice units. The same
/// moments as the fused kernel's (OutletMomentsView) up to round-off, for every force.
template <class T, class R>
EDDY_HOST_DEVICE inline void open_post_collision_moments(const PopulationView<T>& a, bool swapped,
                                                         const FlagView& flags, const BlockShape& shape,
                                                         const WallVelocities<R>& walls, const R (&force)[3],
                                                         const ForceFieldView<R>& field, std::int64_t z, R& rho,
                                                         R (&u)[3]) {
  R mass = R(0), momentum[3] = {R(0), R(0), R(0)};
  for (int k = 0; k < d3q19::Q; ++k) {
    const R g = open_post_collision<T, R>(a, swapped, flags, shape, walls, z, k);
    mass += g;
    for (int d = 0; d < 3; ++d) momentum[d] += R(d3q19::c(k, d)) * g;
  }
  rho = R(1) + mass / Stored<T>::kScale;
  for (int d = 0; d < 3; ++d) momentum[d] /= Stored<T>::kScale;
  R force_ext[3] = {force[0], force[1], force[2]};
  field.add_to(z, force_ext);
  velocity_after_collision(momentum, rho, force_ext, field.porosity ? field.porosity[z] : R(0), u);
}

/// What the pass needs besides the links: the state and the time.
template <class T>
struct OpenPassArguments {
  using R = compute_t<T>;
  PopulationView<T> a;
  bool swapped;  ///< the layout the step left
  FlagView flags;
  BlockShape shape;
  WallVelocities<R> walls;
  R force[3];               ///< uniform body force (the F/2 shift of the pressure outlet's velocities)
  ForceFieldView<R> field;  ///< the per-cell force and porosity the step applied (open_post_collision_moments)
  R ramp[6];                ///< per face, the inlet's ramp factor at the arrival time (1 without a ramp)
  R face_value[6];          ///< per face, rho_w of a pressure outlet, lambda = U_c of a convective outflow
  const R* inlet_velocity;  ///< u_in of the inlet links at their crossing points, [3 index + d], lattice units
  /// The moments of the step just taken at the outlet face cells and the cells next to them, one record of rho, u_x,
  /// u_y, u_z ([4 r + k]) per cell and face: written by the fused kernel (OutletMomentsView) or by the first kernel
  /// (OutletCell), read by the links.
  R* outlet_moments;
  std::int64_t next_offset[6];  ///< per outlet face, x + n's record minus x's
  std::int64_t n_outlet;  ///< outlet cells whose moments the first kernel computes (0: the fused kernel wrote all)
  std::int64_t n_outlet_links;  ///< the pressure outlet's links, the last ones of the list (open_links)
  RoundingKey key;              ///< step = the arrival time (fp16 rounding bits, drawn apart from the fused kernel's)
  std::uint32_t step_taken;     ///< the step that left the state (the arrival time - 1; wraps below 0)
  /// Per link the value the convective rule gave one step before, as stored (T); null without convective links.
  T* history;
  bool have_history;           ///< false: the convective links take the zero-gradient value (a state set by the caller)
  StabilityView<R> stability;  ///< a step the fused kernel froze is frozen here too
};

/// Sets the population each of `n_links` links (device array) sends into the domain, in the layout the step left
/// (see above): first the moments of the `args.n_outlet` outlet cells (device array `outlet`) and the links of the
/// other rules, then the last `args.n_outlet_links` links (the pressure outlet's); all links in one kernel when
/// args.n_outlet is 0. Asynchronous on GPUs.
template <class T>
void apply_open_boundaries(const OpenPassArguments<T>& args, const OutletCell* outlet, const OpenLinkCode* links,
                           std::int64_t n_links, const backend::Stream* stream = nullptr);

/// After a state was restored: the links' values are in slot i of x (both layouts: the checkpoint keeps them
/// there, solver/open_boundaries.hpp); "swapped" copies them to slot opp(i) of the ghost node, where the odd step
/// gathers them, and the convective links' history is set from them. Asynchronous on GPUs.
template <class T>
void restore_open_boundaries(const PopulationView<T>& a, bool swapped, const BlockShape& shape,
                             const OpenLinkCode* links, std::int64_t n_links, T* history,
                             const backend::Stream* stream = nullptr);

}  // namespace eddy
