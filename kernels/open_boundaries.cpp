// The open-face pass (kernels/open_boundaries.hpp): one thread per link from an open face's ghost node into a fluid
// cell, its rule from kernels/boundary_rules.hpp, the result stored where the next step reads it.
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

template <class T>
struct ApplyOpenLinks {
  using R = compute_t<T>;
  OpenPassArguments<T> s;
  const OpenLink* links;
  std::int64_t n_links;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k >= n_links || s.stability.frozen(s.step_taken)) return;
    const OpenLink link = links[k];
    const int i = link.dir;
    const R scale = Stored<T>::kScale;
    R value = R(0);
    switch (link.rule) {
      case kInletRule: {
        const R outgoing =
            open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.cell, d3q19::opp(i));
        const R ramp = s.ramp[link.face];
        const R u_in[3] = {ramp * R(link.value[0]), ramp * R(link.value[1]), ramp * R(link.value[2])};
        value = velocity_inlet_link(i, outgoing, u_in, scale);
        break;
      }
      case kPressureRule: {
        const R inner =
            open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.source, link.source_dir);
        R rho, u[3], u_next[3];
        open_post_collision_moments<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, s.force, link.cell, rho, u);
        if (link.next >= 0) {
          R rho_next;
          open_post_collision_moments<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, s.force, link.next, rho_next,
                                            u_next);
        } else {
          for (int d = 0; d < 3; ++d) u_next[d] = u[d];
        }
        value = pressure_outlet_link(i, inner, R(link.value[0]), rho, u, u_next, scale);
        break;
      }
      case kCopyRule:
        value = zero_gradient_link(
            open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.source, link.source_dir));
        break;
      case kConvectiveRule: {
        const R inner =
            open_post_collision<T, R>(s.a, s.swapped, s.flags, s.shape, s.walls, link.source, link.source_dir);
        value = s.have_history ? convective_link(Stored<T>::load_scaled(s.history[k]), inner, R(link.value[0]))
                               : zero_gradient_link(inner);
        break;
      }
      default:
        break;
    }
    // fp16: stochastic rounding with bits of this cell, step and direction (the same on every decomposition).
    const RoundingKey key{s.key.step ^ kOpenRoundingSalt, {s.key.origin[0], s.key.origin[1], s.key.origin[2]}};
    const R at_rest[3] = {R(0), R(0), R(0)};
    RoundingBits bits(key, link.position[0], link.position[1], link.position[2], finite_moments(value, at_rest));
    std::uint32_t random = 0;
    for (int draw = 0; draw <= i; ++draw) random = bits.next();
    const T stored = Stored<T>::store_scaled(value, random);
    if (s.swapped) {
      s.a.f[std::int64_t(d3q19::opp(i)) * s.a.n_cells + link.ghost] = stored;
    } else {
      s.a.f[std::int64_t(i) * s.a.n_cells + link.cell] = stored;
    }
    if (link.rule == kConvectiveRule) s.history[k] = stored;
  }
};

template <class T>
struct RestoreOpenLinks {
  PopulationView<T> a;
  bool swapped;
  const OpenLink* links;
  std::int64_t n_links;
  T* history;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k >= n_links) return;
    const OpenLink link = links[k];
    const T value = a.f[std::int64_t(link.dir) * a.n_cells + link.cell];
    if (swapped) a.f[std::int64_t(d3q19::opp(link.dir)) * a.n_cells + link.ghost] = value;
    if (link.rule == kConvectiveRule && history != nullptr) history[k] = value;
  }
};

}  // namespace

template <class T>
void apply_open_boundaries(const OpenPassArguments<T>& args, const OpenLink* links, std::int64_t n_links,
                           const backend::Stream* stream) {
  if (n_links <= 0) return;
  parallel_for(link_rows(n_links), ApplyOpenLinks<T>{args, links, n_links}, "apply_open_boundaries", stream);
}

template <class T>
void restore_open_boundaries(const PopulationView<T>& a, bool swapped, const OpenLink* links, std::int64_t n_links,
                             T* history, const backend::Stream* stream) {
  if (n_links <= 0) return;
  parallel_for(link_rows(n_links), RestoreOpenLinks<T>{a, swapped, links, n_links, history}, "restore_open_boundaries",
               stream);
}

#define EDDY_INSTANTIATE(T)                                                                                   \
  template void apply_open_boundaries<T>(const OpenPassArguments<T>&, const OpenLink*, std::int64_t,          \
                                         const backend::Stream*);                                             \
  template void restore_open_boundaries<T>(const PopulationView<T>&, bool, const OpenLink*, std::int64_t, T*, \
                                           const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
