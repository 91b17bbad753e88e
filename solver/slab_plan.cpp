#include "solver/slab_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "io/case_config.hpp"

namespace eddy {

namespace {

constexpr int kMaxDefaultTimeBlock = 8;

std::string gib(std::int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f GiB (%lld bytes)", double(bytes) / double(std::int64_t(1) << 30),
                static_cast<long long>(bytes));
  return text;
}

/// Planes a slab's buffer needs on its lower and upper side: the ghost plane on a wall, else the halo.
int side_planes(bool wall, int halo) { return wall ? 1 : halo; }

/// Largest buffer (z-planes) over the slabs when nz planes are cut into n slabs as evenly as possible (the first
/// nz % n slabs get one plane more), and the thinnest slab that is neither first nor last (nz when there is none).
void buffer_for(const SlabRequest& r, int n, int halo, int& buffer, int& thinnest_middle) {
  const int q = r.nz / n, extra = r.nz % n;
  buffer = 0;
  thinnest_middle = r.nz;
  auto size = [&](int j) { return q + (j < extra ? 1 : 0); };
  for (int j : {0, 1, extra - 1, extra, n - 2, n - 1}) {
    if (j < 0 || j >= n) continue;
    const int lower = j == 0 ? side_planes(r.wall_below, halo) : halo;
    const int upper = j == n - 1 ? side_planes(r.wall_above, halo) : halo;
    buffer = std::max(buffer, lower + size(j) + upper);
    if (j > 0 && j < n - 1) thinnest_middle = std::min(thinnest_middle, size(j));
  }
}

std::int64_t bytes_for(const SlabRequest& r, int buffer_planes) {
  return std::int64_t(kSlabBuffers) * buffer_planes * std::int64_t(r.plane_bytes);
}

/// The fewest slabs (at most nz) that fit the budget with this halo, and respect the middle-slab rule; 0 if none.
int fewest_slabs(const SlabRequest& r, int halo) {
  const std::int64_t planes = r.budget / std::max<std::int64_t>(1, bytes_for(r, 1));
  int buffer = 0, thinnest = 0;
  // Either one slab, or enough that the thickest takes at most planes - 2 * halo.
  buffer_for(r, 1, halo, buffer, thinnest);
  if (buffer <= planes) return 1;
  const std::int64_t room = planes - 2 * std::int64_t(halo);
  if (room < 1) return 0;
  const int start = int(std::max<std::int64_t>(2, std::min<std::int64_t>(r.nz, (r.nz + room - 1) / room - 1)));
  for (int n = start; n <= r.nz; ++n) {
    buffer_for(r, n, halo, buffer, thinnest);
    if (thinnest < halo) return 0;  // thinner slabs only get thinner
    if (buffer <= planes) return n;
  }
  return 0;
}

}  // namespace

void SlabPlan::device_range(int slab, int depth, const SlabRequest& request, int& lo, int& hi) const {
  lo = first[slab] - depth;
  hi = first[slab + 1] + depth;
  if (request.wall_below) lo = std::max(lo, 0);
  if (request.wall_above) hi = std::min(hi, request.nz + 2);
}

std::int64_t minimum_slab_budget(const SlabRequest& request) {
  const int k = std::max(1, request.time_block);
  const int halo = k + 1;
  // The most slabs workable (every middle slab at least halo planes: nz / halo of them, or one more when only the
  // last comes out thinner), or one or two slabs, which have no middle.
  std::int64_t best = -1;
  for (int n : {1, 2, std::max(1, request.nz / halo), (request.nz + halo - 1) / halo}) {
    if (n > request.nz) continue;
    int buffer = 0, thinnest = 0;
    buffer_for(request, n, halo, buffer, thinnest);
    if (n >= 3 && thinnest < halo) continue;
    const std::int64_t bytes = bytes_for(request, buffer);
    if (best < 0 || bytes < best) best = bytes;
  }
  return best;
}

SlabPlan plan_slabs(const SlabRequest& r) {
  SlabPlan plan;
  const std::int64_t planes = r.budget / std::max<std::int64_t>(1, bytes_for(r, 1));
  int k = r.time_block;
  const bool both_walls = r.wall_below && r.wall_above;
  if (k <= 0) {
    k = int(std::clamp<std::int64_t>(planes / 6 - 1, 1, kMaxDefaultTimeBlock));
    // A one-slab plan needs no redundant planes: then take the largest k that still fits.
    while (k > 1 && fewest_slabs(r, k + 1) == 0) --k;
    if (!both_walls) k = std::max(1, std::min(k, r.neighbour_planes - 1));
  }
  if (!both_walls && k + 1 > r.neighbour_planes) {
    throw InputError("numerics.time_block = " + std::to_string(k) + " needs halos of " + std::to_string(k + 1) +
                     " z-planes, but the block the halo comes from (across a periodic z face or on the next rank) "
                     "has only " + std::to_string(r.neighbour_planes) + "; use time_block <= " +
                     std::to_string(std::max(1, r.neighbour_planes - 1)) + " or fewer ranks along z");
  }
  plan.time_block = k;
  plan.halo = k + 1;
  int n = r.slabs;
  if (n <= 0) n = fewest_slabs(r, plan.halo);
  if (n <= 0 || n > r.nz) {
    SlabRequest smallest = r;
    smallest.time_block = k;
    throw InputError(r.budget_name + " = " + gib(r.budget) + " is too small for even one slab: a " +
                     std::to_string(r.nz) + "-plane block with time_block = " + std::to_string(k) +
                     " needs at least " + gib(minimum_slab_budget(smallest)) + " (" + std::to_string(kSlabBuffers) +
                     " slab buffers of " + std::to_string(r.plane_bytes) +
                     " bytes per z-plane); raise numerics.device_memory_limit" +
                     (k > 1 ? " or lower numerics.time_block" : ""));
  }
  int buffer = 0, thinnest = 0;
  buffer_for(r, n, plan.halo, buffer, thinnest);
  if (n >= 3 && thinnest < plan.halo) {
    throw InputError("numerics.slabs = " + std::to_string(n) + " cuts the " + std::to_string(r.nz) +
                     "-plane block into slabs of " + std::to_string(thinnest) + " planes, but time_block = " +
                     std::to_string(k) + " needs at least " + std::to_string(plan.halo) +
                     " (time_block + 1) in every slab but the first and the last; use at most " +
                     std::to_string(std::max(2, r.nz / plan.halo)) + " slabs or a smaller numerics.time_block");
  }
  if (bytes_for(r, buffer) > r.budget) {
    throw InputError("numerics.slabs = " + std::to_string(n) + " with time_block = " + std::to_string(k) +
                     " needs device buffers of " + gib(bytes_for(r, buffer)) + ", more than " + r.budget_name +
                     " = " + gib(r.budget) + "; use more slabs, a smaller time_block or a larger budget");
  }
  const int q = r.nz / n, extra = r.nz % n;
  plan.first.push_back(1);
  for (int j = 0; j < n; ++j) plan.first.push_back(plan.first.back() + q + (j < extra ? 1 : 0));
  plan.buffer_planes = buffer;
  plan.device_bytes = bytes_for(r, buffer);
  return plan;
}

}  // namespace eddy
