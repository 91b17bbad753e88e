// How an out-of-core block is cut into z-slabs (solver/out_of_core.hpp): slab boundaries, the ghost region each slab
// carries for temporal blocking, and the device memory this takes. Pure arithmetic, no device.
//
// A visit advances a slab k = time_block steps on the device. With the in-place AA pattern (kernels/streaming.hpp) a
// cell's slots can only go wrong through cells within 2 planes at an odd step and 0 at an even one, and the device
// block's outermost plane is never updated; over k steps the wrong values reach at most k + 1 planes in from the
// device block's end. So each slab carries halo = k + 1 planes of its neighbours on each side that is not a wall (a
// wall side carries only the block's own ghost plane), and after k steps its own planes equal an in-core run's bit for
// bit (tests/physics/test_out_of_core.cpp; with k planes those tests fail).
//
// With a temperature field ([thermal], S sub-steps per step) the wrong values travel S planes per step instead: each
// sub-step of the scalar transport reads its face neighbours' T and u, and the outermost plane's T and u are never
// updated. Counting the wrong depth L (planes from the device block's end) of f, u and T through a step: u reads the
// cell's slots (even step) or its neighbours' (odd), and T at the cell (the buoyancy), L_u = max(L_f (+1 odd), L_T,
// 1); the odd step writes the neighbours' slots from the cell's T too, L_f -> max(L_f + 2, L_T + 1, 2) (even:
// max(L_f, L_T, 1)); and L_T -> max(L_T, L_u) + S. From L = 0 these give at most k S + 1 after k steps, reached for
// every k, S and parity: the halo is k S + 1 planes (SlabRequest::reach = S; the thermal tests fail with k S).
//
// Run backwards, the same rules say which planes each step must compute at all (visit_widths): a visit hands back f
// on the slab's own planes and one beyond (the block's ghost plane) and T on its own planes; a cell computed at an
// odd step needs f of the cells within 1 plane and writes into them, at an even step only its own, and always T at
// the cell; each sub-step needs T and u within 1 plane. So step s computes the own planes widened by a few planes
// more than step s + 1 (1 a step on average, S + 1 with [thermal]), and planes beyond, which would only feed planes
// never handed back, are left alone: about half the halo work of updating every plane of the buffer at every step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace eddy {

/// Inputs of plan_slabs: one block of nz interior z-planes; sizes in bytes.
struct SlabRequest {
  int nz = 0;                  ///< interior z-planes of the block
  std::size_t plane_bytes = 0;  ///< device bytes of one z-plane of a slab buffer: cells of the plane (ghosts, padding)
                                ///< times (19 population values + 1 flag, with [thermal] + 2 T + 3 u values)
  std::string plane_contents = "19 populations and a flag";  ///< what plane_bytes holds per cell, for messages
  int reach = 1;               ///< planes the wrong values travel per step: 1, or the thermal sub-steps S
  bool wall_below = true;      ///< the block's lower z side is a wall face (else a periodic face or another rank)
  bool wall_above = true;
  std::int64_t budget = 0;     ///< device bytes the slab buffers may take (> 0)
  int time_block = 0;          ///< k; 0 = chosen here
  int slabs = 0;               ///< slab count; 0 = chosen here
  /// Interior z-planes of the thinnest other rank's block a halo is taken from: the halo cannot be deeper. 0 when
  /// no halo comes from another rank (walls, or this block itself across a periodic face: its halo wraps around
  /// it as often as needed).
  int neighbour_planes = 0;
  std::string budget_name;     ///< how messages name the budget (the case key, or "the free device memory")
};

/// Buffers on the device: two, so that one slab computes while the other's planes travel. Beside them a carry
/// buffer of 2 halo planes hands the planes two consecutive slabs share (the next slab's lower halo and its first
/// halo-deep own planes), as they were before the sweep, to the next slab: each host plane is uploaded once per
/// sweep, never after it was written back, and no slab waits for its neighbour's copy.
inline constexpr int kSlabBuffers = 2;

/// Planes a slab carries beyond its own on each non-wall side for time_block k: k reach + 1 (the file's head).
inline int halo_planes(int time_block, int reach) { return time_block * reach + 1; }

struct SlabPlan {
  int time_block = 1;             ///< k: steps per visit
  int halo = 2;  ///< k reach + 1 (halo_planes): planes carried beyond a slab's own on each non-wall side
  std::vector<int> first;         ///< first interior plane (1-based) of each slab, then nz + 1
  int buffer_planes = 0;          ///< z-planes of each device buffer (ghost planes included)
  /// (kSlabBuffers * buffer_planes + 2 halo) * plane_bytes: buffers and carry (no carry with one slab)
  std::int64_t device_bytes = 0;
  int slabs() const { return int(first.size()) - 1; }
  int planes(int slab) const { return first[slab + 1] - first[slab]; }
  /// Host planes [lo, hi) a slab's device buffer holds with `depth` planes beyond its own, clamped to the block's
  /// ghost plane on a wall side; host plane 0 and nz + 1 are the ghost planes, planes outside [0, nz + 1] lie beyond
  /// a periodic face or in the next rank.
  void device_range(int slab, int depth, const SlabRequest& request, int& lo, int& hi) const;
  /// z-planes the stream-collide kernel updates per step of a visit of time_block steps (from an even step),
  /// summed over the slabs (own planes and the halo planes visit_widths asks for), divided by the block's nz: 1 is
  /// no redundant work; the halos add about k + 2 planes per slab.
  double work_factor(const SlabRequest& request) const;
};

/// Planes beyond a slab's own ones, on each side, that each step of a visit computes (the rules at the head of this
/// file, run backwards from what the visit hands back). The caller clips them to the device block.
struct VisitWidths {
  std::vector<int> fused;                ///< [s]: the stream-collide kernel of step s (0-based)
  std::vector<std::vector<int>> scalar;  ///< [s][j]: sub-step j of the scalar transport of step s (empty without T)
};

/// VisitWidths of a visit of `steps` steps whose first step is odd (`first_odd`: the layout is swapped) or even,
/// with `substeps` scalar sub-steps per step (0: no [thermal]).
VisitWidths visit_widths(int steps, bool first_odd, int substeps);

/// Chooses time_block and slabs (those not given) and checks the plan fits:
///   - default time_block: the largest k <= 32 whose slabs still have at least 2 halo own planes (redundant
///     halo work at most the useful work), at least 1; with a z side that is not a wall also halo <= nz / 4,
///     and halo <= neighbour_planes when the halo comes from another rank (halo = halo_planes(k, reach));
///   - default slabs: as few as fit the budget, sizes differing by at most one plane.
/// Throws InputError naming request.budget_name and the minimum budget when even one slab does not fit, and naming
/// numerics.slabs / numerics.time_block when the given values do not fit together.
SlabPlan plan_slabs(const SlabRequest& request);

/// Device bytes the smallest workable plan for `request` needs (its time_block, or 1 when not given).
std::int64_t minimum_slab_budget(const SlabRequest& request);

}  // namespace eddy
