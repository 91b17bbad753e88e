// Voxelisation of a triangle mesh on the device: which cell centres lie inside a closed surface.
//
// Rule (ray parity, the crossing-number test for a point in a polyhedron, e.g. Haines 1994, "Point in polygon
// strategies", Graphics Gems IV, 24-46; here in 3D): the ray along +x through the centres of a column of cells
// (fixed y, z) crosses the surface at points x_1, x_2, ...; cell i of the column is inside when an odd number of
// crossings lie at or before its centre, x_k <= i + 1/2. Orientation plays no part, so a mesh whose triangles face
// inconsistently voxelises like a consistent one; a ray of a closed mesh crosses it an even number of times, and
// a column whose count is odd (a hole, a missing face) is reported by the caller (solver/mesh_voxeliser.hpp).
//
// Exactness: vertices are fixed-point integers, kMeshFractionBits fraction bits (2^-16 cells), in global lattice
// coordinates, so every rank, backend and the CPU reference decide each cell alike (no floating point at all).
// Rays through edges and vertices follow Simulation of Simplicity (Edelsbrunner & Muecke 1990, ACM Trans. Graph.
// 9(1), 66-104): the ray is taken through (y + eps, z + eps^2) for an infinitesimal eps > 0, which decides every
// tie by the signs of edge components (left_of_perturbed). Two triangles that share an edge then count a ray through
// it once (or, where the edge is a silhouette, zero or two times): the parity of a closed mesh stays even. A cell
// centre exactly on the surface counts the crossing at its own x as before it (x_k <= i + 1/2), so with the
// perturbation a mesh covers the cells of half-open ranges: an axis-aligned mesh box from 2.5 to 5.5 covers cells
// 2, 3 and 4 on every axis.
//
// Integer sizes: every triangle spans less than kMeshTriangleSpan (2^31 fixed-point units, 32768 cells) along each
// axis (checked by the caller). Edge functions of a column centre inside a triangle's bounding box are products of
// two differences < 2^31, so they and twice the projected area fit int64; the crossing test sums three products of
// such an edge function (< 2^63) and an x difference (< 2^32) in 128 bits (Wide).
//
// Work: a triangle covers the columns whose centres lie in its (y, z) bounding box, in tiles of kTileColumns x
// kTileColumns columns; each tile is one work item (count_mesh_tiles, list_mesh_tiles), so large and small
// triangles balance. Each crossing toggles one bit with an atomic exclusive or at the first sampled cell at or
// beyond it, and counts the column's crossings with an atomic add: the result does not depend on the order of the
// work. fill_voxel_parity then turns toggles into parities by a prefix exclusive-or along each column.
//
// Memory traffic: per triangle 72 B read twice (tiles) plus 72 B per tile; per crossing one 4-byte atomic and one
// 8-byte atomic; per column its words read and written once (fill), 4 bytes per 32 sampled cells.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"

namespace eddy {

/// Fraction bits of the fixed-point vertex coordinates: a vertex at x cells is stored as round(x 2^16).
inline constexpr int kMeshFractionBits = 16;
/// One cell and half a cell in fixed point: the centre of global cell i is i kMeshCell + kMeshHalfCell.
inline constexpr std::int64_t kMeshCell = std::int64_t(1) << kMeshFractionBits;
inline constexpr std::int64_t kMeshHalfCell = kMeshCell / 2;
/// Every triangle spans less than this along each axis (fixed point: 2^31 units = 32768 cells).
inline constexpr std::int64_t kMeshTriangleSpan = std::int64_t(1) << 31;
/// Columns per side of one work item's tile.
inline constexpr int kTileColumns = 8;

/// One triangle, fixed point: v[vertex][axis], global lattice coordinates times 2^16.
struct MeshTriangle {
  std::int64_t v[3][3];
};

/// The cells one voxelisation samples: every (x[s], y[iy], z[iz]) of three ascending lists of global cell
/// indices. Column c = iy + ny iz is the ray along x at (y[iy], z[iz]); its slot s is the cell x[s] on that ray.
/// Device arrays.
struct VoxelSampleView {
  const std::int32_t* x;
  std::int32_t nx;
  const std::int32_t* y;
  std::int32_t ny;
  const std::int32_t* z;
  std::int32_t nz;
  std::int32_t words;             ///< 32-bit words per column, ceil(nx / 32)
  std::uint32_t* bits;            ///< [c * words + s / 32], bit s % 32: slot s inside (after fill_voxel_parity)
  unsigned long long* crossings;  ///< [c]: crossings of column c's whole ray (any x)
};

/// One work item: tile `tile` of triangle `triangle`'s columns (tiles numbered y fastest).
struct TileItem {
  std::uint32_t triangle;
  std::uint32_t tile;
};

// ---- exact arithmetic ------------------------------------------------------------------------------------------

/// A 128-bit two's complement integer (hi holds the upper 64 bits), for exact sums of products of int64 values.
struct Wide {
  std::uint64_t hi;
  std::uint64_t lo;
};

EDDY_HOST_DEVICE inline Wide wide_negate(Wide a) {
  const std::uint64_t lo = ~a.lo + 1u;
  return Wide{~a.hi + (lo == 0u ? 1u : 0u), lo};
}

EDDY_HOST_DEVICE inline Wide wide_add(Wide a, Wide b) {
  const std::uint64_t lo = a.lo + b.lo;
  return Wide{a.hi + b.hi + (lo < a.lo ? 1u : 0u), lo};
}

/// The exact product a b (schoolbook on 32-bit halves, the same on every backend).
EDDY_HOST_DEVICE inline Wide wide_product(std::int64_t a, std::int64_t b) {
  const bool negative = (a < 0) != (b < 0);
  const std::uint64_t ua = a < 0 ? 0u - std::uint64_t(a) : std::uint64_t(a);
  const std::uint64_t ub = b < 0 ? 0u - std::uint64_t(b) : std::uint64_t(b);
  const std::uint64_t mask = 0xffffffffu;
  const std::uint64_t a0 = ua & mask, a1 = ua >> 32, b0 = ub & mask, b1 = ub >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & mask) + (p10 & mask);
  const Wide r{p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & mask)};
  return negative ? wide_negate(r) : r;
}

/// -1, 0 or +1.
EDDY_HOST_DEVICE inline int wide_sign(Wide a) {
  if (static_cast<std::int64_t>(a.hi) < 0) return -1;
  return (a.hi | a.lo) != 0u ? 1 : 0;
}

/// floor(a / b) for b > 0.
EDDY_HOST_DEVICE inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

// ---- the predicates ----------------------------------------------------------------------------------------------

/// E(a, b, p) = (b_u - a_u)(p_v - a_v) - (b_v - a_v)(p_u - a_u) in the (u, v) = (y, z) plane: positive when p lies
/// left of the directed edge a -> b, twice the signed area of (a, b, p). Exact while every difference is < 2^31.
EDDY_HOST_DEVICE inline std::int64_t edge_function(std::int64_t au, std::int64_t av, std::int64_t bu, std::int64_t bv,
                                                   std::int64_t pu, std::int64_t pv) {
  return (bu - au) * (pv - av) - (bv - av) * (pu - au);
}

/// Whether the perturbed point p + (eps, eps^2) lies left of a -> b, given e = E(a, b, p): E of the perturbed point
/// is e - eps (b_v - a_v) + eps^2 (b_u - a_u), so a zero e is decided by a_v > b_v, then by b_u > a_u (never both
/// equal: a and b differ in (u, v) in a triangle of non-zero area). Exactly the opposite for b -> a.
EDDY_HOST_DEVICE inline bool left_of_perturbed(std::int64_t e, std::int64_t au, std::int64_t av, std::int64_t bu,
                                               std::int64_t bv) {
  if (e != 0) return e > 0;
  if (av != bv) return av > bv;
  return bu > au;
}

/// Whether the ray along +x through the column centre (pu, pv) (fixed point, y and z) crosses triangle t (the
/// perturbed ray of the header; a triangle of zero area in (y, z), seen edge-on, is never crossed), and where:
/// `cell` = the smallest global cell index i with the crossing at or before the centre i + 1/2. Needs |p - vertex|
/// < 2^31 in y and z (p within t's bounding box) and t's spans < kMeshTriangleSpan.
EDDY_HOST_DEVICE inline bool ray_crossing(const MeshTriangle& t, std::int64_t pu, std::int64_t pv, std::int64_t& cell) {
  int ia = 0, ib = 1, ic = 2;
  const std::int64_t area = edge_function(t.v[0][1], t.v[0][2], t.v[1][1], t.v[1][2], t.v[2][1], t.v[2][2]);
  if (area == 0) return false;
  if (area < 0) {  // counter-clockwise in (y, z)
    ib = 2;
    ic = 1;
  }
  const std::int64_t au = t.v[ia][1], av = t.v[ia][2], bu = t.v[ib][1], bv = t.v[ib][2], cu = t.v[ic][1],
                     cv = t.v[ic][2];
  const std::int64_t wa = edge_function(bu, bv, cu, cv, pu, pv);  // weight of a: p's side of b -> c
  if (!left_of_perturbed(wa, bu, bv, cu, cv)) return false;
  const std::int64_t wb = edge_function(cu, cv, au, av, pu, pv);
  if (!left_of_perturbed(wb, cu, cv, au, av)) return false;
  const std::int64_t wc = edge_function(au, av, bu, bv, pu, pv);
  if (!left_of_perturbed(wc, au, av, bu, bv)) return false;
  // p = (wa a + wb b + wc c) / (wa + wb + wc), all weights >= 0: the crossing lies at or before the centre C_i =
  // i S + S/2 iff F(i) = wa (x_a - C_i) + wb (x_b - C_i) + wc (x_c - C_i) <= 0, F decreasing in i. The crossing lies
  // between the smallest and largest vertex x, so i lies in [lo, hi]: the first centres at or beyond them.
  const std::int64_t xa = t.v[ia][0], xb = t.v[ib][0], xc = t.v[ic][0];
  const std::int64_t xmin = xa < xb ? (xa < xc ? xa : xc) : (xb < xc ? xb : xc);
  const std::int64_t xmax = xa > xb ? (xa > xc ? xa : xc) : (xb > xc ? xb : xc);
  std::int64_t lo = -floor_div(kMeshHalfCell - xmin, kMeshCell);  // ceil((xmin - S/2) / S)
  std::int64_t hi = -floor_div(kMeshHalfCell - xmax, kMeshCell);
  while (lo < hi) {  // smallest i in [lo, hi] with F(i) <= 0 (F(hi) <= 0 always)
    const std::int64_t mid = lo + (hi - lo) / 2;
    const std::int64_t centre = mid * kMeshCell + kMeshHalfCell;
    const Wide f =
        wide_add(wide_add(wide_product(wa, xa - centre), wide_product(wb, xb - centre)), wide_product(wc, xc - centre));
    if (wide_sign(f) <= 0) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  cell = lo;
  return true;
}

/// First index in the ascending list a[0, n) whose value is >= v (n when none).
EDDY_HOST_DEVICE inline std::int32_t lower_bound_index(const std::int32_t* a, std::int32_t n, std::int64_t v) {
  std::int32_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    if (std::int64_t(a[mid]) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The sampled columns whose centres lie in triangle t's (y, z) bounding box: list indices [y0, y1) x [z0, z1)
/// (empty for a triangle of zero area in (y, z), which no ray crosses).
struct TileRange {
  std::int32_t y0, y1, z0, z1;
  EDDY_HOST_DEVICE std::int64_t tiles() const {
    if (y1 <= y0 || z1 <= z0) return 0;
    return std::int64_t((y1 - y0 + kTileColumns - 1) / kTileColumns) * ((z1 - z0 + kTileColumns - 1) / kTileColumns);
  }
};

EDDY_HOST_DEVICE inline TileRange triangle_columns(const MeshTriangle& t, const VoxelSampleView& s) {
  TileRange r{0, 0, 0, 0};
  if (edge_function(t.v[0][1], t.v[0][2], t.v[1][1], t.v[1][2], t.v[2][1], t.v[2][2]) == 0) return r;
  std::int32_t* first[2] = {&r.y0, &r.z0};
  std::int32_t* last[2] = {&r.y1, &r.z1};
  const std::int32_t* list[2] = {s.y, s.z};
  const std::int32_t n[2] = {s.ny, s.nz};
  for (int k = 0; k < 2; ++k) {
    const int a = k + 1;
    const std::int64_t v0 = t.v[0][a], v1 = t.v[1][a], v2 = t.v[2][a];
    const std::int64_t vmin = v0 < v1 ? (v0 < v2 ? v0 : v2) : (v1 < v2 ? v1 : v2);
    const std::int64_t vmax = v0 > v1 ? (v0 > v2 ? v0 : v2) : (v1 > v2 ? v1 : v2);
    // Columns j with vmin <= j S + S/2 <= vmax.
    const std::int64_t j_lo = -floor_div(kMeshHalfCell - vmin, kMeshCell);
    const std::int64_t j_hi = floor_div(vmax - kMeshHalfCell, kMeshCell);
    *first[k] = lower_bound_index(list[k], n[k], j_lo);
    *last[k] = lower_bound_index(list[k], n[k], j_hi + 1);
  }
  return r;
}

// ---- launchers (kernels/mesh_voxels.cpp), asynchronous on GPUs -------------------------------------------------

/// Zeroes s.bits and s.crossings.
void clear_voxel_samples(const VoxelSampleView& s, const backend::Stream* stream = nullptr);

/// tiles[t] = the work items of triangle t (triangle_columns(t).tiles(), at most 2^32 - 1), and adds their sum to
/// *total. `triangles`: n device triangles.
void count_mesh_tiles(const MeshTriangle* triangles, std::int64_t n, const VoxelSampleView& s, std::uint32_t* tiles,
                      unsigned long long* total, const backend::Stream* stream = nullptr);

/// Writes the work items (t, 0 .. tiles[t] - 1) of every triangle into `items` (in an order that depends on the
/// thread schedule; the toggles do not), taking slots from *cursor (zero on entry).
void list_mesh_tiles(std::int64_t n, const std::uint32_t* tiles, unsigned long long* cursor, TileItem* items,
                     const backend::Stream* stream = nullptr);

/// For each item, each crossing of a ray of its tile: adds one to the column's count and toggles the bit of the
/// first sampled cell at or beyond it (none when it lies beyond the last).
void toggle_mesh_crossings(const MeshTriangle* triangles, const TileItem* items, std::int64_t n_items,
                           const VoxelSampleView& s, const backend::Stream* stream = nullptr);

/// Turns each column's toggles into inside bits: bit s = exclusive or of the toggles of slots 0..s (padding bits of
/// the last word cleared).
void fill_voxel_parity(const VoxelSampleView& s, const backend::Stream* stream = nullptr);

/// repair = "fill": every column with an odd crossing count takes, slot by slot, the majority of the columns with an
/// even count among its 24 neighbours within two columns in y and z (solid when more than half of them are; not
/// solid when none is even). `y_near[iy * 5 + dy + 2]` is the list index of global y[iy] + dy (dy in -2..2), or -1
/// when it is not sampled; `z_near` the same in z.
void repair_odd_columns(const VoxelSampleView& s, const std::int32_t* y_near, const std::int32_t* z_near,
                        const backend::Stream* stream = nullptr);

}  // namespace eddy
