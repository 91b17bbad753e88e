// In-place streaming in the AA pattern (Bailey et al. 2009, "Accelerating lattice Boltzmann fluid flow
// simulations using graphics processors", ICPP 2009, 550): one population array, two kinds of time step.
//
// Layouts of the array A[i][x] (i = direction, x = block cell):
//   own     (after an odd step, and initially): A[i][x] = f_i(x), the populations that have arrived at x;
//   swapped (after an even step):              A[opp(i)][x] = f*_i(x), x's post-collision populations, not yet
//                                              moved.
// Even step, on "own": each cell reads A[i][x], collides, writes f*_i to A[opp(i)][x]. No neighbour is touched.
// Odd step, on "swapped": each cell gathers f_i(x) = f*_i(x - c_i) = A[opp(i)][x - c_i], collides, and writes
//   f*_i(x) to A[i][x + c_i], where x + c_i finds it as an arrived population. Every location A[j][y] is read and
//   written by one cell only (y - c_j in the odd step, y itself in the even step), so cells update in any order.
//
// Walls: where x - c_i is solid, f_i(x, t+1) comes from x's own f*_opp(i)(x, t) by the rule the solid cell's flag
// names (kernels/boundary_rules.hpp, solid_link: halfway bounce-back, with the moving-wall term for moving walls).
// Odd steps apply it on both sides: a population arriving from a solid cell is read from x's own slot i (where the
// even step left f*_opp(i)(x)), and a population heading into a solid cell is bounced at once into x's own slot
// opp(i). Even steps then need no neighbour flags at all.
//
// Out of place: a step may read one array and write every slot it would have written into another array of the
// same shape instead (the adjoint's kept forward states, solver/adjoint.cpp: the array read survives the step without
// a copy). Since each slot has one reader and one writer, the result is bitwise the in-place one; the slots no step
// writes (those of solid cells, and the ghost slots the exchange fills before they are read) keep the other array's
// values.
//
// Index: the integer type of population offsets relative to the cell's own slot 0 (i * n_cells +- a neighbour
// offset, never negative for the slots a cell touches), std::int64_t in general; std::uint32_t when
// 19 * n_cells fits (blocks up to ~600^3). Each access is then a 32-bit offset added to a 64-bit pointer to the
// cell (CellSlots), which takes fewer instructions (docs/performance.md, "Tuning notes").
//
// Scale: the functions below hand over and take populations as Stored<T>::kScale * g (load_scaled/store_scaled,
// kernels/storage.hpp), the form collide() and shifted_moments() take with their `scale` argument.
//
// Ghost layer: odd steps read and write the ghost cells next to exchanged faces; the halo exchange fills them
// before an odd step and sends what the step wrote there to the neighbour after it (solver/halo_exchange.hpp).
#pragma once

#include <type_traits>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/boundary_rules.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/rounding_bits.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// The population slots seen from one cell: slot (i, cell + d) is at[i * n + d], with i * n + d >= 0.
template <class T, class Index>
struct CellSlots {
  T* at;    ///< slot (0, cell)
  Index n;  ///< cells per population (the array's stride between directions)
  EDDY_HOST_DEVICE CellSlots(const PopulationView<T>& a, Index cell) : at(a.f + cell), n(Index(a.n_cells)) {}
  /// `n` from a kernel parameter of type Index, so that the products i * n are Index arithmetic in the compiled
  /// code (derived from the view's 64-bit n_cells they were not: docs/performance.md, "Tuning notes").
  EDDY_HOST_DEVICE CellSlots(T* f, Index cell, Index n) : at(f + cell), n(n) {}
  /// Slot (i, cell + d), d a neighbour offset (BlockShape::offset).
  EDDY_HOST_DEVICE T& operator()(int i, Index d = Index(0)) const { return at[Index(i) * n + d]; }
};

/// A fluid cell's 19 reads and 19 writes in one kind of step: the cell reads the population it collides as
/// direction i from slot read(i) and writes its f*_i to slot write(i), where
///   even step:                      read(i) = slot (i, cell),             write(i) = slot (opp(i), cell);
///   odd step, no solid neighbour:   read(i) = slot (opp(i), cell - c_i),  write(i) = slot (i, cell + c_i).
/// The even step's writes give the "swapped" layout; the odd step makes the same accesses, in the same order, as
/// gather_swapped's fluid path and as scatter_own where no neighbour is solid. Every direction's offset
/// (i * n_cells + neighbour offset) is formed once on the host (step_slots) and passed as a kernel parameter. How an
/// offset is held depends on Index (the measurements behind it: docs/performance.md, "Tuning notes"):
///   std::uint32_t: a 32-bit offset from the array's start, added to the cell index in 32 bits; the address is
///                  then one 32 x 32 -> 64-bit multiply-add onto the base pointer, as in CellSlots;
///   std::int64_t:  a pointer per direction (64-bit offsets held through the kernel cost a register pair each).
template <class T, class Index>
struct StepSlots;

template <class T>
struct StepSlots<T, std::uint32_t> {
  T* base;        // the array read
  T* write_base;  // the array written: base itself (in place) or another of the same shape
  std::uint32_t read_offset[d3q19::Q];
  std::uint32_t write_offset[d3q19::Q];
  EDDY_HOST_DEVICE T& read(int i, std::uint32_t cell) const { return base[read_offset[i] + cell]; }
  EDDY_HOST_DEVICE T& write(int i, std::uint32_t cell) const { return write_base[write_offset[i] + cell]; }
  /// From offsets into array f, the writes into array `out` (host side).
  static StepSlots from(T* f, T* out, const std::int64_t (&read)[d3q19::Q], const std::int64_t (&write)[d3q19::Q]) {
    StepSlots s;
    s.base = f;
    s.write_base = out;
    for (int i = 0; i < d3q19::Q; ++i) {
      s.read_offset[i] = std::uint32_t(read[i]);
      s.write_offset[i] = std::uint32_t(write[i]);
    }
    return s;
  }
};

template <class T>
struct StepSlots<T, std::int64_t> {
  T* read_at[d3q19::Q];
  T* write_at[d3q19::Q];
  EDDY_HOST_DEVICE T& read(int i, std::int64_t cell) const { return read_at[i][cell]; }
  EDDY_HOST_DEVICE T& write(int i, std::int64_t cell) const { return write_at[i][cell]; }
  /// From offsets into array f, the writes into array `out` (host side).
  static StepSlots from(T* f, T* out, const std::int64_t (&read)[d3q19::Q], const std::int64_t (&write)[d3q19::Q]) {
    StepSlots s;
    for (int i = 0; i < d3q19::Q; ++i) {
      s.read_at[i] = f + read[i];
      s.write_at[i] = out + write[i];
    }
    return s;
  }
};

/// StepSlots of array `a` of a block of shape `shape` for the even (odd = false) or odd step (host side), writing
/// into array `out` (a.f: in place; another array of a's shape: out of place, the same slots). Every offset is >= 0
/// and, with 32-bit offsets, offset + cell < 19 n_cells <= 2^32 for the cells a step updates.
template <class T, class Index>
inline StepSlots<T, Index> step_slots(const PopulationView<T>& a, T* out, const BlockShape& shape, bool odd) {
  std::int64_t read[d3q19::Q], write[d3q19::Q];
  for (int i = 0; i < d3q19::Q; ++i) {
    const std::int64_t ahead = odd ? shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)) : 0;
    read[i] = std::int64_t(odd ? d3q19::opp(i) : i) * a.n_cells - ahead;
    write[i] = std::int64_t(odd ? i : d3q19::opp(i)) * a.n_cells + ahead;
  }
  return StepSlots<T, Index>::from(a.f, out, read, write);
}

/// No stage: every population is read and written at its slot. The odd step's GPU launch may pass a stage instead
/// (BlockStage, kernels/odd_step_stage.hpp) that has loaded the cell's populations already (load_step takes them
/// from stage.read(i)), and that takes some of the cell's results when written: store_step leaves f*_i in it where
/// stage.write(i, value) takes it, stores the others at their slots, and marks the cell with stage.mark_written().
struct NoStage {
  static constexpr bool kUsed = false;
};

/// Reads of a fluid cell through StepSlots (even step; odd step without solid neighbours), scaled.
template <class T, class R, class Index, class Stage = NoStage>
EDDY_HOST_DEVICE inline void load_step(const StepSlots<T, Index>& slots, Index cell, R (&f)[d3q19::Q],
                                       const Stage& stage = {}) {
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    if constexpr (Stage::kUsed) {
      f[i] = Stored<T>::load_scaled(stage.read(i));
    } else {
      f[i] = Stored<T>::load_scaled(slots.read(i, cell));
    }
  }
}

/// Writes of a fluid cell through StepSlots (even step; odd step without solid neighbours); f is scaled.
template <class T, class R, class Index, class Stage = NoStage>
EDDY_HOST_DEVICE inline void store_step(const StepSlots<T, Index>& slots, Index cell, const R (&f)[d3q19::Q],
                                        RoundingBits& bits, const Stage& stage = {}) {
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    const T value = Stored<T>::store_scaled(f[i], bits.next());
    if constexpr (Stage::kUsed) {
      if (stage.write(i, value)) continue;
    }
    slots.write(i, cell) = value;
  }
  if constexpr (Stage::kUsed) stage.mark_written();
}

/// The populations that have arrived at `cell` in the "own" layout (after an odd step), scaled: the even step's
/// reads, for read-outs (load_arrived).
template <class T, class R, class Index>
EDDY_HOST_DEVICE inline void load_own(const CellSlots<T, Index>& slot, R (&f)[d3q19::Q]) {
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) f[i] = Stored<T>::load_scaled(slot(i));
}

/// Odd step, read ("swapped" layout): gathers into f the populations arriving at fluid `cell` whose own flag is
/// `own` (kFluid: no solid neighbour, no flag reads), with bounce-back from solid neighbours; scaled.
template <class T, class R, class Index>
EDDY_HOST_DEVICE inline void gather_swapped(const CellSlots<T, Index>& slot, const FlagView& flags,
                                            const BlockShape& shape, Index cell, CellFlag own,
                                            const WallVelocities<R>& walls, R (&f)[d3q19::Q]) {
  if (own == kFluid) {
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) {
      const Index from = Index(0) - Index(shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)));
      f[i] = Stored<T>::load_scaled(slot(d3q19::opp(i), from));
    }
    return;
  }
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    const Index from = Index(0) - Index(shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)));
    const CellFlag neighbour = flags.flag[cell + from];
    if (!is_solid(neighbour)) {
      f[i] = Stored<T>::load_scaled(slot(d3q19::opp(i), from));
    } else {
      // f*_opp(i)(x), left in slot i by the even step, through the solid neighbour's rule.
      f[i] = solid_link(i, Stored<T>::load_scaled(slot(i)), neighbour, walls, Stored<T>::kScale);
    }
  }
}

/// Odd step, write: f*_i(x) to slot i of x + c_i ("own" layout there), or, when x + c_i is solid, bounced back
/// at once into slot opp(i) of x. f is scaled. Reads the neighbour flags: for cells next to a wall (fluid cells
/// write through StepSlots, store_step).
template <class T, class R, class Index>
EDDY_HOST_DEVICE inline void scatter_own(const CellSlots<T, Index>& slot, const FlagView& flags,
                                         const BlockShape& shape, Index cell, const WallVelocities<R>& walls,
                                         const R (&f)[d3q19::Q], RoundingBits& bits) {
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    const Index ahead = Index(shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)));
    const CellFlag neighbour = flags.flag[cell + ahead];
    const std::uint32_t random = bits.next();
    if (!is_solid(neighbour)) {
      slot(i, ahead) = Stored<T>::store_scaled(f[i], random);
    } else {
      // f*_i(x) comes back to x as the population arriving from the solid x + c_i = x - c_opp(i).
      const int back = d3q19::opp(i);
      slot(back) = Stored<T>::store_scaled(solid_link(back, f[i], neighbour, walls, Stored<T>::kScale), random);
    }
  }
}

/// The populations that have arrived at fluid `cell` in either layout (`swapped`: the odd step's gather, `own`:
/// the cell's own slots), for read-outs that do not collide (moments, the particles' velocity field); scaled.
template <class T, class R, class Index>
EDDY_HOST_DEVICE inline void load_arrived(const PopulationView<T>& a, bool swapped, const FlagView& flags,
                                          const BlockShape& shape, Index cell, CellFlag own,
                                          const WallVelocities<R>& walls, R (&f)[d3q19::Q]) {
  if (swapped) {
    gather_swapped(CellSlots<T, Index>(a, cell), flags, shape, cell, own, walls, f);
  } else {
    load_own(CellSlots<T, Index>(a, cell), f);
  }
}

/// The post-collision population f*_i - w_i leaving fluid `cell` in direction c_i, unscaled, from either layout:
/// "swapped" keeps it in slot opp(i) of the cell; "own" has moved it to slot i of cell + c_i or, where that cell is
/// solid, bounced it into slot opp(i) of the cell with the wall's Ladd term added (kernels/boundary_rules.hpp),
/// which is taken off again. The inverse of the streaming's reads; for read-backs and the adjoint
/// (solver/host_state.hpp, kernels/adjoint_step.cpp).
/// Out: the type of the result and of the subtraction (double for host read-backs).
template <class Out, class T, class W>
EDDY_HOST_DEVICE inline Out load_leaving(const PopulationView<T>& a, bool swapped, const FlagView& flags,
                                         const BlockShape& shape, std::int64_t cell, const WallVelocities<W>& walls,
                                         int i) {
  using S = std::remove_const_t<T>;
  if (swapped) return Out(Stored<S>::load(a.f[d3q19::opp(i) * a.n_cells + cell]));
  const std::int64_t to = cell + shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
  const CellFlag neighbour = flags.flag[to];
  if (!is_solid(neighbour)) return Out(Stored<S>::load(a.f[i * a.n_cells + to]));
  Out g = Out(Stored<S>::load(a.f[d3q19::opp(i) * a.n_cells + cell]));
  if (neighbour >= kMovingWall) g -= Out(ladd_term(d3q19::opp(i), walls.u[neighbour - kMovingWall]));
  return g;
}

}  // namespace eddy
