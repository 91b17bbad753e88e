// The open-face pass (kernels/open_boundaries.hpp): one kernel over the links when the fused kernel wrote the
// pressure outlet's moments; else two, the outlet cells' moments together with the links that do not need them,
// then the outlet's links. One thread per outlet cell or link from an open face's ghost node into a fluid cell, its
// rule from kernels/boundary_rules.hpp, the result stored where the next step reads it.
#include "kernels/open_boundaries.hpp"

#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

constexpr int kRowLength = 1024;
/// Mixed into the step of the fp16 rounding key, so the pass draws other bits than the fused kernel's cell update.
constexpr std::uint32_t kOpenRoundingSalt = 0x6f70656eu;

/// The rows of links parallel_for covers: kRowLength links per row.
Box link_rows(std::int64_t n_links) {
  const int width = n_links < kRowLength ? static_cast<int>(n_links) : kRowLength;
  const int rows = static_cast<int>((n_links + kRowLength - 1) / kRowLength);
  return Box{{0, 0, 0}, {width, rows, 1}};
}

/// The moments of outlet cell m (OutletCell) and of the next cell inwards, into s.outlet_moments.
template <class T>
EDDY_HOST_DEVICE inline void outlet_moments(const OpenPassArguments<T>& s, const OutletCell* cells, std::int64_t m) {
  using R = compute_t<T>;
  const OutletCell c = cells[m];
  R rho, u[3], u_next[3], rho_next;
  open_post_collision_moments<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, s.force, s.field, c.cell, rho, u);
  if (c.next >= 0) {
    open_post_collision_moments<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, s.force, s.field, c.next, rho_next,
                                      u_next);
  }
  R* face = s.outlet_moments + 4 * std::int64_t(c.record);
  face[0] = rho;
  for (int d = 0; d < 3; ++d) face[1 + d] = u[d];
  if (c.next >= 0) {
    R* next = s.outlet_moments + 4 * std::int64_t(c.next_record);
    for (int d = 0; d < 3; ++d) next[1 + d] = u_next[d];
  }
}

/// Link k: its rule's value, stored where the next step reads it.
template <class T>
EDDY_HOST_DEVICE inline void apply_link(const OpenPassArguments<T>& s, const OpenLinkCode* links, std::int64_t k) {
  using R = compute_t<T>;
  const OpenLinkCode link = links[k];
  const int i = link.dir(), rule = link.rule();
  const R scale = Stored<T>::kScale;
  R value = R(0);
  switch (rule) {
    case kInletRule: {
      const R outgoing = open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.cell, d3q19::opp(i));
      const R ramp = s.ramp[link.face()];
      const R* u = s.inlet_velocity + 3 * std::int64_t(link.index);
      const R u_in[3] = {ramp * u[0], ramp * u[1], ramp * u[2]};
      value = velocity_inlet_link(i, outgoing, u_in, scale);
      break;
    }
    case kPressureRule: {
      const R inner =
          open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.source(s.shape), link.source_dir());
      const R* face = s.outlet_moments + 4 * std::int64_t(link.index);
      const R* next = link.next_is_fluid() ? face + 4 * s.next_offset[link.face()] : face;
      const R u[3] = {face[1], face[2], face[3]};
      const R u_next[3] = {next[1], next[2], next[3]};
      value = pressure_outlet_link(i, inner, s.face_value[link.face()], face[0], u, u_next, scale);
      break;
    }
    case kCopyRule:
      value = zero_gradient_link(open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls,
                                                           link.source(s.shape), link.source_dir()));
      break;
    case kConvectiveRule: {
      const R inner =
          open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.source(s.shape), link.source_dir());
      value = s.have_history ? convective_link(Stored<T>::load_scaled(s.history[k]), inner, s.face_value[link.face()])
                             : zero_gradient_link(inner);
      break;
    }
    default:
      break;
  }
  // fp16: stochastic rounding with bits of this cell, step and direction (the same on every decomposition).
  const RoundingKey key{s.key.step ^ kOpenRoundingSalt, {s.key.origin[0], s.key.origin[1], s.key.origin[2]}};
  const R at_rest[3] = {R(0), R(0), R(0)};
  int p[3];
  link.position(s.shape, p);
  RoundingBits bits(key, p[0], p[1], p[2], finite_moments(value, at_rest));
  std::uint32_t random = 0;
  for (int draw = 0; draw <= i; ++draw) random = bits.next();
  const T stored = Stored<T>::store_scaled(value, random);
  if (s.swapped) {
    s.a.f[std::int64_t(d3q19::opp(i)) * s.a.n_cells + link.ghost(s.shape)] = stored;
  } else {
    s.a.f[std::int64_t(i) * s.a.n_cells + link.cell] = stored;
  }
  if (rule == kConvectiveRule) s.history[k] = stored;
}

/// The first kernel: threads [0, n_outlet) the outlet cells' moments, the next n_first threads the links that do
/// not read them (all but the pressure outlet's, which open_links puts last). One launch, so the scattered reads of
/// both overlap (each alone leaves the memory system half idle).
template <class T>
struct FirstOpenPass {
  OpenPassArguments<T> s;
  const OutletCell* cells;
  const OpenLinkCode* links;
  std::int64_t n_first;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t t = std::int64_t(y) * kRowLength + x;
    if (t >= s.n_outlet + n_first || s.stability.frozen(s.step_taken)) return;
    if (t < s.n_outlet) {
      outlet_moments(s, cells, t);
    } else {
      apply_link(s, links, t - s.n_outlet);
    }
  }
};

/// The links [n_first, n_links): after FirstOpenPass the pressure outlet's, which read its moments; all of them
/// (n_first = 0) when the fused kernel wrote every outlet moment.
template <class T>
struct OpenLinks {
  OpenPassArguments<T> s;
  const OpenLinkCode* links;
  std::int64_t n_first, n_links;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = n_first + std::int64_t(y) * kRowLength + x;
    if (k >= n_links || s.stability.frozen(s.step_taken)) return;
    apply_link(s, links, k);
  }
};

template <class T>
struct RestoreOpenLinks {
  PopulationView<T> a;
  bool swapped;
  BlockShape shape;
  const OpenLinkCode* links;
  std::int64_t n_links;
  T* history;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k >= n_links) return;
    const OpenLinkCode link = links[k];
    const int i = link.dir();
    const T value = a.f[std::int64_t(i) * a.n_cells + link.cell];
    if (swapped) a.f[std::int64_t(d3q19::opp(i)) * a.n_cells + link.ghost(shape)] = value;
    if (link.rule() == kConvectiveRule && history != nullptr) history[k] = value;
  }
};

}  // namespace

template <class T>
void apply_open_boundaries(const OpenPassArguments<T>& args, const OutletCell* outlet, const OpenLinkCode* links,
                           std::int64_t n_links, const backend::Stream* stream) {
  if (n_links <= 0) return;
  if (args.n_outlet == 0) {
    parallel_for(link_rows(n_links), OpenLinks<T>{args, links, 0, n_links}, "open_links", stream);
    return;
  }
  const std::int64_t n_first = n_links - args.n_outlet_links;
  parallel_for(link_rows(args.n_outlet + n_first), FirstOpenPass<T>{args, outlet, links, n_first}, "open_first",
               stream);
  if (args.n_outlet_links > 0) {
    parallel_for(link_rows(args.n_outlet_links), OpenLinks<T>{args, links, n_first, n_links}, "open_outlet", stream);
  }
}

template <class T>
void restore_open_boundaries(const PopulationView<T>& a, bool swapped, const BlockShape& shape,
                             const OpenLinkCode* links, std::int64_t n_links, T* history,
                             const backend::Stream* stream) {
  if (n_links <= 0) return;
  parallel_for(link_rows(n_links), RestoreOpenLinks<T>{a, swapped, shape, links, n_links, history},
               "restore_open_boundaries", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                        \
  template void apply_open_boundaries<T>(const OpenPassArguments<T>&, const OutletCell*, const OpenLinkCode*,      \
                                         std::int64_t, const backend::Stream*);                                    \
  template void restore_open_boundaries<T>(const PopulationView<T>&, bool, const BlockShape&, const OpenLinkCode*, \
                                           std::int64_t, T*, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
