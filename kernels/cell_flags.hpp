// Cell flags: one byte per cell of a block (ghost layer included) saying how the cell takes part in streaming.
//
// Solid cells beyond several domain faces (edges and corners of the ghost layer) follow solid_flag's rule: they
// move with the faces' velocity where all those faces move alike, and rest otherwise.
#pragma once

#include <array>
#include <cstdint>

namespace eddy {

using CellFlag = std::uint8_t;

inline constexpr CellFlag kFluid = 0;            ///< fluid; every neighbour is fluid (fast path, no flag reads)
inline constexpr CellFlag kFluidNearSolid = 1;   ///< fluid with at least one solid neighbour
inline constexpr CellFlag kWall = 2;             ///< resting solid: halfway bounce-back
inline constexpr CellFlag kMovingWall = 3;       ///< kMovingWall + face (0..5): moving solid, bounce-back + Ladd term

/// True for solid cells (wall or moving wall).
inline constexpr bool is_solid(CellFlag flag) { return flag >= kWall; }

/// Flag of a solid cell that lies beyond the non-periodic domain faces faces[0..count) (1 to 3 face indices,
/// ascending: x_min, x_max, y_min, y_max, z_min, z_max), where velocity(face) is each face's wall velocity u_w
/// (lattice units, std::array<double, 3>; a resting wall gives 0).
///
/// Edge rule. Halfway bounce-back puts the wall half-way along each link that ends in a solid cell, and the
/// moving-wall term uses that cell's u_w (Ladd 1994, J. Fluid Mech. 271, 285, eq. 3.2). A D3Q19 link from a fluid
/// cell into a cell beyond two faces has both its non-zero components pointing out, so its midpoint lies on the
/// edge where the two faces meet (no link reaches a corner cell, beyond three). There the wall velocity is that of
/// the faces when they all have the same u_w, and zero where they differ (a lid sliding over a resting side wall:
/// the edge belongs to the resting wall). Equal velocities are compared exactly, so a moving wall whose velocity
/// is [0, 0, 0] flags as a resting wall everywhere: its runs are bitwise those of `wall`.
///
/// | faces of the cell                          | flag                                           |
/// |--------------------------------------------|------------------------------------------------|
/// | one face, u_w = 0 (wall, or moving at 0)   | kWall                                          |
/// | one face, u_w != 0                         | kMovingWall + face                             |
/// | several faces, all with the same u_w != 0  | kMovingWall + the lowest of them (same u_w)    |
/// | several faces, all at rest                 | kWall                                          |
/// | several faces with different u_w           | kWall                                          |
template <class Velocity>
inline CellFlag solid_flag(const int* faces, int count, const Velocity& velocity) {
  const std::array<double, 3> u = velocity(faces[0]);
  for (int k = 1; k < count; ++k) {
    if (velocity(faces[k]) != u) return kWall;  // the faces move differently: the edge rests
  }
  if (u[0] == 0.0 && u[1] == 0.0 && u[2] == 0.0) return kWall;
  return static_cast<CellFlag>(kMovingWall + faces[0]);
}

}  // namespace eddy
