// Planes of cell fields (one value per block cell, ghost layer included, BlockShape::index order) for the ghost
// exchange of solver/field_halo.hpp: copy one plane into a message buffer, write or add a buffer into a plane, or
// clear a plane; and the velocity planes of an outer layer (solver/outer_layer.hpp). Planes and their buffer slots:
// kernels/halo_plane.hpp (the populations' halo uses the same). No arithmetic beyond the addition; bytes per plane
// cell: one value read, one written (two read for the addition).
#include <limits>

#include "kernels/field_launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// The buffer slot of a cell of a plane normal to `axis` (kernels/halo_plane.hpp).
struct PlaneMap {
  BlockShape shape;
  int axis;
  EDDY_HOST_DEVICE std::int64_t slot(int x, int y, int z) const { return plane_slot(shape, axis, x, y, z); }
};

template <class V>
struct PackPlane {
  const V* field;
  V* buffer;
  PlaneMap map;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    buffer[map.slot(x, y, z)] = field[map.shape.index(x, y, z)];
  }
};

template <class V>
struct UnpackPlane {
  V* field;
  const V* buffer;
  PlaneMap map;
  bool add;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = map.shape.index(x, y, z);
    const V value = buffer[map.slot(x, y, z)];
    field[cell] = add ? V(field[cell] + value) : value;
  }
};

template <class R>
struct PackOuterPlane {
  const R* u[3];
  FlagView flags;
  R* buffer;
  PlaneMap map;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = map.shape.index(x, y, z), slot = map.slot(x, y, z);
    const std::int64_t cells = plane_cells(map.shape, map.axis);
    const bool fluid = is_fluid(flags.flag[cell]);
    for (int c = 0; c < 3; ++c) buffer[c * cells + slot] = fluid ? u[c][cell] : std::numeric_limits<R>::quiet_NaN();
  }
};

template <class V>
struct ClearPlane {
  V* field;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const { field[shape.index(x, y, z)] = V(0); }
};

}  // namespace

template <class V>
void pack_field_plane(const V* field, const BlockShape& shape, int axis, int plane, V* buffer,
                      const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane), PackPlane<V>{field, buffer, PlaneMap{shape, axis}}, "pack_field_plane",
               stream);
}

template <class V>
void unpack_field_plane(V* field, const BlockShape& shape, int axis, int plane, const V* buffer, bool add,
                        const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane), UnpackPlane<V>{field, buffer, PlaneMap{shape, axis}, add},
               "unpack_field_plane", stream);
}

template <class R>
void pack_outer_plane(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, int axis, int plane,
                      R* buffer, const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane),
               PackOuterPlane<R>{{u[0], u[1], u[2]}, flags, buffer, PlaneMap{shape, axis}}, "pack_outer_plane", stream);
}

template <class V>
void clear_field_plane(V* field, const BlockShape& shape, int axis, int plane, const backend::Stream* stream) {
  parallel_for(plane_box(shape, axis, plane), ClearPlane<V>{field, shape}, "clear_field_plane", stream);
}

#define EDDY_INSTANTIATE(V)                                                                                       \
  template void pack_field_plane<V>(const V*, const BlockShape&, int, int, V*, const backend::Stream*);           \
  template void unpack_field_plane<V>(V*, const BlockShape&, int, int, const V*, bool, const backend::Stream*);   \
  template void clear_field_plane<V>(V*, const BlockShape&, int, int, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(unsigned long long)
#undef EDDY_INSTANTIATE
template void pack_outer_plane<float>(const float* const (&)[3], const FlagView&, const BlockShape&, int, int, float*,
                                      const backend::Stream*);
template void pack_outer_plane<double>(const double* const (&)[3], const FlagView&, const BlockShape&, int, int,
                                       double*, const backend::Stream*);

}  // namespace eddy
