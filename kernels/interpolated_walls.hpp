// The interpolated walls' pass (linear Bouzidi bounce-back, kernels/boundary_rules.hpp): after a step, for every
// interpolated cut link of the block (kernels/cut_links.hpp), the half-way value that the fused kernel left in the
// link's wall slot (opp(i), x_f) is replaced by the interpolated population arriving from the wall,
//   f_opp(i)(x_f, t + 1) = weight_out f*_i(x_f) + weight_other f_other,
// f_other = f*_i(x_f - c_i) (near links, q < 1/2) or f*_opp(i)(x_f) (far links), read from the slots of the table in
// kernels/cut_links.hpp for the layout the step left. The next step then reads it like any bounced population; the
// fused kernel is unchanged.
//
// No link reads a slot another one writes: a link writes (opp(i), x_f) only, and of the slots it reads only link
// (x_b, i) (impossible: x_b + c_i = x_f is fluid) or link (x_f, opp(i)) (needs a solid x_b, which the set-up makes
// a half-way link) would write one. One thread per link, any order, no atomics.
//
// Before overwriting, each link keeps the value it replaces, f*_i(x_f) as stored, in `saved[k]` (the forces' f_out,
// kernels/solid_forces.hpp, and the post-collision read-out, solver/lattice_simulation.cpp).
//
// When: after the step, once the slots it reads hold the step's values. Links whose x_b is an interior cell read
// only the block's own interior slots and may run before the pending halo exchange; those whose x_b is a ghost cell
// (their x_f is on the block's boundary layer) read what the exchange delivers (into the ghosts after an even step,
// out of them after an odd one) and run after it (solver/lattice_simulation.cpp).
//
// fp16: the new value is stored with stochastic rounding, its bits drawn like the fused kernel's from x_f's global
// position and the step (kernels/rounding_bits.hpp, a key of its own), so every decomposition gives the same bits.
// Memory traffic per link: the link (88 B) and 2 population slots read, 2 written (saved, wall slot).
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/cut_links.hpp"
#include "kernels/launchers.hpp"
#include "kernels/rounding_bits.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// The step's rounding key for the pass: the fused kernel's step number with its top bit flipped, so its draws are
/// not those of the collision at the same cell and step.
EDDY_HOST_DEVICE inline RoundingKey interpolated_wall_key(RoundingKey key) {
  key.step ^= 0x80000000u;
  return key;
}

/// Applies the interpolated walls to links [begin, end) of `links` (device array) on block array `a`, which holds
/// `layout` (the one the step just taken left), saving each replaced wall slot into saved[k] (k the link's index in
/// `links`, saved sized to at least `end`). `key`: the RoundingKey of the step just taken (its step number and the
/// block origin). With a `stability` watch that freezes, a pass after an unstable step (frozen(key.step)) leaves
/// everything alone, like the fused kernel.
template <class T>
void apply_interpolated_walls(const PopulationView<T>& a, PopulationLayout layout, const CutLink* links,
                              std::int64_t begin, std::int64_t end, T* saved, const RoundingKey& key,
                              const StabilityView<compute_t<T>>& stability, const backend::Stream* stream = nullptr);

}  // namespace eddy
