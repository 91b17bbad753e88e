// Cell flags: one byte per cell of a block (ghost layer included) saying how the cell takes part in streaming.
//
// Precedence where faces meet (edges and corners of the ghost layer): a no-slip wall beats a moving wall, and
// among moving walls the lower face index (x_min, x_max, y_min, y_max, z_min, z_max) wins. So where a lid meets
// the side walls, the side walls win, and repeated runs are bit-identical.
#pragma once

#include <cstdint>

namespace eddy {

using CellFlag = std::uint8_t;

inline constexpr CellFlag kFluid = 0;            ///< fluid; every neighbour is fluid (fast path, no flag reads)
inline constexpr CellFlag kFluidNearSolid = 1;   ///< fluid with at least one solid neighbour
inline constexpr CellFlag kWall = 2;             ///< resting solid: halfway bounce-back
inline constexpr CellFlag kMovingWall = 3;       ///< kMovingWall + face (0..5): moving solid, bounce-back + Ladd term

/// True for solid cells (wall or moving wall).
inline constexpr bool is_solid(CellFlag flag) { return flag >= kWall; }

}  // namespace eddy
