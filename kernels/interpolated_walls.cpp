// Device pass of the interpolated walls (kernels/interpolated_walls.hpp): one thread per link.
#include "kernels/interpolated_walls.hpp"

#include <limits>

#include "kernels/boundary_rules.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

constexpr int kRowLength = 1024;

template <class T>
struct InterpolateWalls {
  using R = compute_t<T>;
  PopulationView<T> a;
  bool swapped;
  const CutLink* links;
  std::int64_t begin, end;
  T* saved;
  RoundingKey key;
  StabilityView<R> stability;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = begin + std::int64_t(y) * kRowLength + x;
    if (k >= end || stability.frozen(key.step)) return;
    const CutLink link = links[k];
    T& wall = a.f[wall_slot(link, a.n_cells)];
    const T out = wall;
    const T other = a.f[other_slot(link, swapped, a.n_cells)];
    saved[k] = out;
    const R v = interpolated_bounce_back(R(link.weight_out), Stored<T>::load_scaled(out), R(link.weight_other),
                                         Stored<T>::load_scaled(other));
    // The link's own draw among its cell's: draw number dir of x_f's generator, so the links of a cell round
    // independently.
    RoundingBits bits(interpolated_wall_key(key), link.x, link.y, link.z, v * v <= std::numeric_limits<R>::max());
    std::uint32_t random = 0;
    for (int i = 0; i <= link.dir; ++i) random = bits.next();
    wall = Stored<T>::store_scaled(v, random);
  }
};

}  // namespace

template <class T>
void apply_interpolated_walls(const PopulationView<T>& a, PopulationLayout layout, const CutLink* links,
                              std::int64_t begin, std::int64_t end, T* saved, const RoundingKey& key,
                              const StabilityView<compute_t<T>>& stability, const backend::Stream* stream) {
  const std::int64_t n = end - begin;
  if (n <= 0) return;
  const int width = n < kRowLength ? static_cast<int>(n) : kRowLength;
  const int rows = static_cast<int>((n + kRowLength - 1) / kRowLength);
  parallel_for(Box{{0, 0, 0}, {width, rows, 1}},
               InterpolateWalls<T>{a, layout == PopulationLayout::swapped, links, begin, end, saved, key, stability},
               "apply_interpolated_walls", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                           \
  template void apply_interpolated_walls<T>(const PopulationView<T>&, PopulationLayout, const CutLink*, std::int64_t, \
                                            std::int64_t, T*, const RoundingKey&, const StabilityView<compute_t<T>>&, \
                                            const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
