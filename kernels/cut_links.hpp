// The cut links of the [[solid]] bodies: every (fluid cell x_f, direction i) of a block whose neighbour x_f + c_i
// lies inside a solid, listed once at set-up per block (solver/lattice_setup.cpp, cut_links), and where their
// populations sit between two steps of the in-place (AA) layout (kernels/streaming.hpp). Two sparse passes read
// them: the interpolated walls (kernels/interpolated_walls.hpp) and the forces (kernels/solid_forces.hpp).
//
// Slots of a link's populations after a step, x_b = x_f - c_i the link's second fluid node:
//
//   population                     after an even step ("swapped")   after an odd step ("own")
//   f*_i(x_f)        (leaves x_f)  slot (opp(i), x_f)               slot (opp(i), x_f), bounced there by scatter_own
//   f*_i(x_b)        (near links)  slot (opp(i), x_b)               slot (i, x_f)
//   f*_opp(i)(x_f)   (far links)   slot (i, x_f)                    slot (opp(i), x_b)
//
// and the population that arrives at x_f from the wall, f_opp(i)(x_f, t + 1), is read by the next step from slot
// (opp(i), x_f) in either layout (the odd step's gather_swapped through the resting wall's rule, the identity; the
// even step as its own slot). Half-way bounce-back leaves f*_i(x_f) there; an interpolated wall overwrites it.
//
// Units: lattice. Memory: sizeof(CutLink) = 88 B per link (a few per surface cell; no field over the domain).
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// One cut link of a block. Interpolated links (near or far) come first in a block's list (interior second node
/// first, then those whose x_b is a ghost cell), half-way links after them (solver/lattice_setup.hpp).
struct CutLink {
  std::int64_t cell;     ///< x_f, the fluid interior cell (block index)
  std::int64_t behind;   ///< x_b = x_f - c_dir (block index; interior or ghost cell, fluid for interpolated links)
  std::int32_t dir;      ///< i: x_f + c_i lies inside the solid
  std::int32_t solid;    ///< index into CaseConfig::solids (the first that holds x_f + c_i)
  std::int32_t x, y, z;  ///< block-local coordinates of x_f (fp16's rounding bits)
  std::int32_t near;     ///< 1 when q < 1/2: the wall value interpolates with f*_i(x_b); 0: with f*_opp(i)(x_f)
  double q;              ///< the wall at x_f + q c_i, q in [0, 1]; exactly 1/2 for half-way links
  double weight_out;     ///< interpolation weight of f*_i(x_f) (boundary_rules.hpp, bouzidi_linear_weights)
  double weight_other;   ///< weight of f*_i(x_b) (near) or f*_opp(i)(x_f) (far)
  double arm[3];         ///< r x c_i, r the wall point x_f + q c_i relative to the solid's centre (torque)
};

/// Block index offset of slot (i, cell): i * n_cells + cell.
EDDY_HOST_DEVICE inline std::int64_t slot_index(int i, std::int64_t cell, std::int64_t n_cells) {
  return std::int64_t(i) * n_cells + cell;
}

/// The slot that holds f*_i(x_f) after a step of either parity (and, after the interpolated walls' pass, the
/// population arriving at x_f from the wall): slot (opp(i), x_f).
EDDY_HOST_DEVICE inline std::int64_t wall_slot(const CutLink& link, std::int64_t n_cells) {
  return slot_index(d3q19::opp(link.dir), link.cell, n_cells);
}

/// The slot of the second population an interpolated link reads: f*_i(x_b) (near) or f*_opp(i)(x_f) (far), after
/// an even step (`swapped`) or an odd one (the table above).
EDDY_HOST_DEVICE inline std::int64_t other_slot(const CutLink& link, bool swapped, std::int64_t n_cells) {
  const int i = link.dir, o = d3q19::opp(link.dir);
  if (link.near != 0) return swapped ? slot_index(o, link.behind, n_cells) : slot_index(i, link.cell, n_cells);
  return swapped ? slot_index(i, link.cell, n_cells) : slot_index(o, link.behind, n_cells);
}

}  // namespace eddy
