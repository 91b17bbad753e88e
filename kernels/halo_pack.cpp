// Halo packing: copies 5 populations of each cell of one block plane (those with c_i[axis] = +1 or -1, chosen by the
// caller, see solver/halo_exchange.hpp) between the plane and a contiguous buffer, for MPI messages. The plane spans
// the whole block in the two other axes, ghost layer included, so exchanging axis by axis carries edges and corners
// without diagonal messages.
// Buffer layout: buffer[k * plane_cells + p], k = 0..4 the crossing direction, p = plane_slot (kernels/halo_plane.hpp:
// b + extent_b * c over the plane's two other axes, b before c in x, y, z order). Bytes per plane cell: 5 * sizeof(T)
// read + 5 * sizeof(T) written (plus 5 upstream flag bytes, mostly cached, when unpacking out of the ghosts).
#include "kernels/halo_pack.hpp"

#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct PlaneCopy {
  PopulationView<T> f;
  BlockShape shape;
  int axis;
  CrossingDirections dirs;
  T* buffer;
  bool pack;           // true: plane -> buffer; false: buffer -> plane
  FlagView flags;      // unpack only (unpack_plane's rules)
  bool out_of_ghosts;  // unpack only

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const int p3[3] = {x, y, z};
    const std::int64_t cells = plane_cells(shape, axis);
    const std::int64_t p = plane_slot(shape, axis, x, y, z);
    const std::int64_t cell = shape.index(x, y, z);
    if (!pack && !out_of_ghosts && is_open(flags.flag[cell])) return;
    EDDY_UNROLL
    for (int k = 0; k < kCrossingDirections; ++k) {
      T& in_block = f.f[dirs.i[k] * f.n_cells + cell];
      T& in_buffer = buffer[k * cells + p];
      if (pack) {
        in_buffer = in_block;
      } else if (!out_of_ghosts || upstream_is_fluid(flags, shape, p3, dirs.i[k])) {
        in_block = in_buffer;
      }
    }
  }
};

}  // namespace

CrossingDirections crossing_directions(int axis, int sign) {
  CrossingDirections d{};
  int k = 0;
  for (int i = 1; i < d3q19::Q; ++i)
    if (d3q19::c(i, axis) == sign) d.i[k++] = i;
  return d;
}

template <class T>
void pack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                const CrossingDirections& dirs, T* buffer, const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane),
               PlaneCopy<T>{f, shape, axis, dirs, buffer, true, FlagView{nullptr}, false}, "pack_plane", stream);
}

template <class T>
void unpack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                  const CrossingDirections& dirs, const T* buffer, const FlagView& flags, bool out_of_ghosts,
                  const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane),
               PlaneCopy<T>{f, shape, axis, dirs, const_cast<T*>(buffer), false, flags, out_of_ghosts}, "unpack_plane",
               stream);
}

template void pack_plane<float>(const PopulationView<float>&, const BlockShape&, int, int, const CrossingDirections&,
                                float*, const backend::Stream*);
template void pack_plane<double>(const PopulationView<double>&, const BlockShape&, int, int,
                                 const CrossingDirections&, double*, const backend::Stream*);
template void unpack_plane<float>(const PopulationView<float>&, const BlockShape&, int, int, const CrossingDirections&,
                                  const float*, const FlagView&, bool, const backend::Stream*);
template void unpack_plane<double>(const PopulationView<double>&, const BlockShape&, int, int,
                                   const CrossingDirections&, const double*, const FlagView&, bool,
                                   const backend::Stream*);
template void pack_plane<half_t>(const PopulationView<half_t>&, const BlockShape&, int, int, const CrossingDirections&,
                                 half_t*, const backend::Stream*);
template void unpack_plane<half_t>(const PopulationView<half_t>&, const BlockShape&, int, int,
                                   const CrossingDirections&, const half_t*, const FlagView&, bool,
                                   const backend::Stream*);

}  // namespace eddy
