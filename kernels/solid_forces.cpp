// Device pass of the momentum exchange on the [[solid]] bodies (kernels/solid_forces.hpp): one thread per cut
// link, its fixed-point contributions added to its solid's sums with integer atomics.
#include "kernels/solid_forces.hpp"

#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

constexpr int kRowLength = 1024;

template <class T>
struct SumCutLinks {
  PopulationView<T> a;
  const CutLink* links;
  std::int64_t n_links;
  const T* saved;
  std::int64_t n_saved;
  unsigned long long* sums;

  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k >= n_links) return;
    const CutLink link = links[k];
    unsigned long long q[kForceSums];
    const double f_in = unshifted(a.f, wall_slot(link, a.n_cells), link.dir);
    const double f_out = k < n_saved ? double(Stored<T>::load(saved[k])) + d3q19::w<double>(link.dir) : f_in;
    cut_link_momentum(link, f_out, f_in, q);
    for (int s = 0; s < kForceSums; ++s) {
      if (q[s] != 0ull) atomic_add(&sums[std::int64_t(link.solid) * kForceSums + s], q[s]);
    }
  }
};

}  // namespace

template <class T>
void sum_cut_link_forces(const PopulationView<T>& a, const CutLink* links, std::int64_t n_links, const T* saved,
                         std::int64_t n_saved, unsigned long long* sums, const backend::Stream* stream) {
  if (n_links <= 0) return;
  const int width = n_links < kRowLength ? static_cast<int>(n_links) : kRowLength;
  const int rows = static_cast<int>((n_links + kRowLength - 1) / kRowLength);
  parallel_for(Box{{0, 0, 0}, {width, rows, 1}}, SumCutLinks<T>{a, links, n_links, saved, n_saved, sums},
               "sum_cut_link_forces", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                            \
  template void sum_cut_link_forces<T>(const PopulationView<T>&, const CutLink*, std::int64_t, const T*, std::int64_t, \
                                       unsigned long long*, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
