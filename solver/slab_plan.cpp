#include "solver/slab_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "io/case_config.hpp"
#include "io/number_format.hpp"

namespace eddy {

namespace {

constexpr int kMaxDefaultTimeBlock = 32;

/// "7.71 GiB (8278020096 bytes)".
std::string gib(std::int64_t bytes) {
  return format_bytes(double(bytes)) + " (" + std::to_string(bytes) + " bytes)";
}

/// Largest buffer (z-planes) over the slabs when nz planes are cut into n slabs as evenly as possible (the first
/// nz % n slabs get one plane more). A lower halo on a wall side stops at the ghost plane (device_range).
int buffer_for(const SlabRequest& r, int n, int halo) {
  const int q = r.nz / n, extra = r.nz % n;
  int buffer = 0;
  auto first = [&](int j) { return 1 + j * q + std::min(j, extra); };
  for (int j = 0; j < n; ++j) {  // O(n): a wall clamps only the slabs near it, so the largest can be anywhere
    int lo = first(j) - halo, hi = first(j + 1) + halo;
    if (r.wall_below) lo = std::max(lo, 0);
    if (r.wall_above) hi = std::min(hi, r.nz + 2);
    buffer = std::max(buffer, hi - lo);
  }
  return buffer;
}

/// Device bytes of the buffers and, with more than one slab, the carry of 2 halo planes.
std::int64_t bytes_for(const SlabRequest& r, int buffer_planes, int halo, int slabs) {
  return (std::int64_t(kSlabBuffers) * buffer_planes + (slabs > 1 ? 2 * halo : 0)) * std::int64_t(r.plane_bytes);
}

/// The fewest slabs (at most nz) that fit the budget with this halo; 0 if none.
int fewest_slabs(const SlabRequest& r, int halo) {
  if (bytes_for(r, buffer_for(r, 1, halo), halo, 1) <= r.budget) return 1;
  if (bytes_for(r, buffer_for(r, r.nz, halo), halo, r.nz) > r.budget) return 0;
  // buffer_for does not grow with n beyond one slab: bisect for the smallest n >= 2 that fits.
  int lo = 2, hi = r.nz;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (bytes_for(r, buffer_for(r, mid, halo), halo, mid) <= r.budget) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

void SlabPlan::device_range(int slab, int depth, const SlabRequest& request, int& lo, int& hi) const {
  lo = first[slab] - depth;
  hi = first[slab + 1] + depth;
  if (request.wall_below) lo = std::max(lo, 0);
  if (request.wall_above) hi = std::min(hi, request.nz + 2);
}

VisitWidths visit_widths(int steps, bool first_odd, int substeps) {
  VisitWidths w;
  w.fused.assign(std::size_t(std::max(0, steps)), 0);
  if (substeps > 0) w.scalar.assign(w.fused.size(), std::vector<int>(std::size_t(substeps), 0));
  // Needed after step s: f within need_f planes of the own ones, T within need_t. After the last step f is handed
  // back on the own planes and the ghost plane beyond: after an odd step every slot there is written by a cell within
  // 1 plane (the step's width of 1 covers them), after an even one by its own cell (width 1).
  int need_f = ((steps - 1) % 2 == 1) != first_odd ? 0 : 1, need_t = 0;
  for (int s = steps - 1; s >= 0; --s) {
    const bool odd = (s % 2 == 1) != first_odd;
    // Sub-step j must leave T right within need_t + (S - 1 - j) planes: each later sub-step reads 1 plane further.
    int need_u = 0;
    for (int j = 0; j < substeps; ++j) w.scalar[std::size_t(s)][std::size_t(j)] = need_t + (substeps - 1 - j);
    if (substeps > 0) need_u = need_t + substeps;  // the first sub-step reads u within 1 plane of its own
    // An odd step writes f into the cells within 1 plane: their slots are right where every writer is computed.
    const int fused = std::max(need_f + (odd ? 1 : 0), need_u);
    w.fused[std::size_t(s)] = fused;
    need_f = fused + (odd ? 1 : 0);                                  // an odd step reads within 1 plane
    need_t = std::max(fused, substeps > 0 ? need_t + substeps : 0);  // buoyancy at the cell; the sub-steps' reach
  }
  return w;
}

double SlabPlan::work_factor(const SlabRequest& request) const {
  const VisitWidths w = visit_widths(time_block, false, 0);
  double planes = 0.0;
  for (int s = 0; s < slabs(); ++s) {
    int lo = 0, hi = 0;
    device_range(s, halo, request, lo, hi);  // the device block: planes lo + 1 .. hi - 2 can be updated
    for (const int width : w.fused) {
      const int from = std::max(lo + 1, first[s] - width), to = std::min(hi - 1, first[s + 1] + width);
      planes += double(std::max(0, to - from));
    }
  }
  return planes / double(request.nz) / double(std::max<std::size_t>(1, w.fused.size()));
}

std::int64_t minimum_slab_budget(const SlabRequest& request) {
  const int halo = halo_planes(std::max(1, request.time_block), request.reach);
  // Slabs of one plane, or one slab (smaller on a thin block between walls).
  return std::min(bytes_for(request, buffer_for(request, request.nz, halo), halo, request.nz),
                  bytes_for(request, buffer_for(request, 1, halo), halo, 1));
}

SlabPlan plan_slabs(const SlabRequest& r) {
  SlabPlan plan;
  // Planes the budget holds: two buffers and a carry.
  const std::int64_t planes = r.budget / std::max<std::int64_t>(1, std::int64_t(r.plane_bytes));
  int k = r.time_block;
  const bool both_walls = r.wall_below && r.wall_above;
  if (k <= 0) {
    // Each buffer: slab of S >= 2 halo planes and 2 halo planes; the carry 2 halo more. (On the H200, 960^3 fp16
    // in 8 GiB: k = 15 with S >= 4 (k + 1) was link-bound, k = 24 (S = 1.7 (k + 1)) 10 % faster.)
    const int reach = std::max(1, r.reach);
    // The largest k whose halo (k reach + 1) is at most `planes`, at least 1.
    auto k_for_halo = [&](std::int64_t planes_) { return int(std::max<std::int64_t>(1, (planes_ - 1) / reach)); };
    k = int(std::min<std::int64_t>(k_for_halo(planes / 10), kMaxDefaultTimeBlock));
    // A one-slab plan needs no redundant planes: then take the largest k that still fits.
    while (k > 1 && fewest_slabs(r, halo_planes(k, r.reach)) == 0) --k;
    // Halo planes on a non-wall side are redundant work: at most a quarter of the block's own planes.
    if (!both_walls) k = std::min(k, k_for_halo(r.nz / 4));
    if (r.neighbour_planes > 0) k = std::min(k, k_for_halo(r.neighbour_planes));
  }
  if (r.neighbour_planes > 0 && halo_planes(k, r.reach) > r.neighbour_planes) {
    const int most = (r.neighbour_planes - 1) / std::max(1, r.reach);  // the largest k whose halo fits
    throw InputError("numerics.time_block = " + std::to_string(k) + " needs halos of " +
                     std::to_string(halo_planes(k, r.reach)) + " z-planes from the next rank" +
                     (r.reach > 1 ? " (time_block * thermal sub-steps " + std::to_string(r.reach) + " + 1)" : "") +
                     ", whose block has only " + std::to_string(r.neighbour_planes) +
                     (most >= 1 ? "; use time_block <= " + std::to_string(most) + " or fewer ranks along z"
                                : "; use fewer ranks along z"));
  }
  if (r.slabs > r.nz) {
    throw InputError("numerics.slabs = " + std::to_string(r.slabs) + " is more than the " + std::to_string(r.nz) +
                     " z-planes of this block (each slab needs at least one); use at most " + std::to_string(r.nz) +
                     " slabs");
  }
  plan.time_block = k;
  plan.halo = halo_planes(k, r.reach);
  int n = r.slabs;
  if (n <= 0) n = fewest_slabs(r, plan.halo);
  if (n <= 0) {
    SlabRequest smallest = r;
    smallest.time_block = k;
    throw InputError(r.budget_name + " = " + gib(r.budget) + " is too small for even one slab: a " +
                     std::to_string(r.nz) + "-plane block with time_block = " + std::to_string(k) + " needs at least " +
                     gib(minimum_slab_budget(smallest)) + " (" + std::to_string(kSlabBuffers) +
                     " slab buffers and a carry of " + std::to_string(2 * plan.halo) + " planes, " +
                     std::to_string(r.plane_bytes) + " bytes per z-plane: " + r.plane_contents +
                     " per cell); raise numerics.device_memory_limit" + (k > 1 ? " or lower numerics.time_block" : ""));
  }
  if (n > r.nz) {
    throw InputError("numerics.slabs = " + std::to_string(n) + " is more than the block's " + std::to_string(r.nz) +
                     " z-planes");
  }
  const int buffer = buffer_for(r, n, plan.halo);
  if (bytes_for(r, buffer, plan.halo, n) > r.budget) {
    throw InputError("numerics.slabs = " + std::to_string(n) + " with time_block = " + std::to_string(k) +
                     " needs device buffers of " + gib(bytes_for(r, buffer, plan.halo, n)) + ", more than " +
                     r.budget_name + " = " + gib(r.budget) + "; use more slabs" +
                     (k > 1 ? ", a smaller time_block" : "") + " or a larger budget");
  }
  const int q = r.nz / n, extra = r.nz % n;
  plan.first.push_back(1);
  for (int j = 0; j < n; ++j) plan.first.push_back(plan.first.back() + q + (j < extra ? 1 : 0));
  plan.buffer_planes = buffer;
  plan.device_bytes = bytes_for(r, buffer, plan.halo, n);
  return plan;
}

}  // namespace eddy
