// Cell flags: one byte per cell of a block (ghost layer included) saying how the cell takes part in streaming.
//
// Cells beyond several domain faces (edges and corners of the ghost layer) follow boundary_flag's precedence: a
// wall face beats every open face, and among wall faces solid_flag's rule holds (they move with the faces' velocity
// where all those faces move alike, and rest otherwise); among open faces the type of highest precedence owns the
// cell (velocity_inlet, pressure_outlet, outflow, free_slip; ties: the lowest face index).
#pragma once

#include <array>
#include <cstdint>

namespace eddy {

using CellFlag = std::uint8_t;

inline constexpr CellFlag kFluid = 0;           ///< fluid; every neighbour is fluid (fast path, no flag reads)
inline constexpr CellFlag kFluidNearSolid = 1;  ///< fluid with at least one neighbour that is not fluid (solid or open)
/// kOpen + face (0..5): a ghost node beyond an open face (velocity_inlet, pressure_outlet, outflow, free_slip) that
/// the face owns. Not solid: the fused kernel streams into and out of it like a fluid neighbour, and the open-face
/// pass (kernels/open_boundaries.hpp) fills, after every step, the populations it sends into the domain.
inline constexpr CellFlag kOpen = 2;
inline constexpr CellFlag kWall = 8;        ///< resting solid: halfway bounce-back
inline constexpr CellFlag kMovingWall = 9;  ///< kMovingWall + face (0..5): moving solid, bounce-back + Ladd term

/// True for solid cells (wall or moving wall).
inline constexpr bool is_solid(CellFlag flag) { return flag >= kWall; }
/// True for fluid cells (kFluid, kFluidNearSolid): neither solid nor an open face's ghost node.
inline constexpr bool is_fluid(CellFlag flag) { return flag <= kFluidNearSolid; }
/// True for the ghost nodes of open faces (kOpen + face).
inline constexpr bool is_open(CellFlag flag) { return flag >= kOpen && flag < kWall; }

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

/// Precedence of an open face's type where it meets other faces (boundary_flag); 0 for a wall face.
inline constexpr int kWallFace = 0;
inline constexpr int kFreeSlipPrecedence = 1;
inline constexpr int kOutflowPrecedence = 2;
inline constexpr int kPressureOutletPrecedence = 3;
inline constexpr int kVelocityInletPrecedence = 4;

/// Flag of a ghost cell beyond the non-periodic domain faces faces[0..count) (1 to 3, ascending), where
/// precedence(face) is kWallFace for a wall or moving wall and the open type's precedence otherwise, and
/// velocity(face) the wall velocity solid_flag takes.
///
/// | faces of the cell                     | flag                                                            |
/// |---------------------------------------|-----------------------------------------------------------------|
/// | any wall face among them              | solid_flag over the wall faces only (a wall beats an open face) |
/// | only open faces                       | kOpen + the face of highest precedence: velocity_inlet >        |
/// |                                       | pressure_outlet > outflow > free_slip; ties: the lowest index   |
///
/// A link from a fluid cell into a cell beyond two faces crosses the domain edge, where both faces end: a wall there
/// keeps the wall's no-slip, and an inlet or outlet keeps its rule up to the edge (the free-slip plane yields: the
/// inlet's velocity bounce-back and the outlet's anti-bounce-back are exact for a uniform flow along a free-slip
/// wall, cases/README.md "Edges and corners"). Corner cells (three faces) are reached by no D3Q19 link.
template <class Precedence, class Velocity>
inline CellFlag boundary_flag(const int* faces, int count, const Precedence& precedence, const Velocity& velocity) {
  int walls[3];
  int n_walls = 0, owner = -1, best = kWallFace;
  for (int k = 0; k < count; ++k) {
    const int p = precedence(faces[k]);
    if (p == kWallFace) {
      walls[n_walls++] = faces[k];
    } else if (p > best) {  // strict: the lowest face index wins a tie
      best = p;
      owner = faces[k];
    }
  }
  if (n_walls > 0) return solid_flag(walls, n_walls, velocity);
  return static_cast<CellFlag>(kOpen + owner);
}

}  // namespace eddy
