#include "solver/outer_layer.hpp"

#include <algorithm>
#include <type_traits>

#include "kernels/field_launchers.hpp"
#include "solver/field_halo.hpp"

namespace eddy {
namespace {

constexpr int kLow = 0, kHigh = 1;

}  // namespace

template <class R>
OuterLayer<R>::OuterLayer(const Decomposition& decomposition, const BlockShape& shape)
    : decomposition_(decomposition), shape_(shape) {
  std::int64_t largest = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (!decomposition.exchanges(axis)) continue;
    const std::int64_t values = 3 * plane_cells(shape, axis);
    largest = std::max(largest, values);
    for (int side : {kLow, kHigh}) {
      if (decomposition.neighbour[axis][side] != kNoNeighbour) face_[2 * axis + side] = DeviceBuffer<R>(values);
    }
  }
  if (largest > 0 && !decomposition.serial()) {
    for (int side : {kLow, kHigh}) send_[side] = DeviceBuffer<R>(std::size_t(largest));
  }
}

template <class R>
void OuterLayer<R>::fill(const R* const (&u)[3], const FlagView& flags, const backend::Stream* stream) {
  for (int axis = 0; axis < 3; ++axis) {
    if (!decomposition_.exchanges(axis)) continue;
    const int n = shape_.n[axis];
    // What this block sends down is its plane 2 (the lower neighbour's plane n + 2), up its plane n - 1. A block one
    // cell thick sends its ghost planes (2 = n + 1 and 0): what its neighbours sent it in the ghost exchange.
    const int send_plane[2] = {2, n - 1};
    if (decomposition_.serial() || decomposition_.dims[axis] == 1) {  // periodic, this block on both sides
      pack_outer_plane(u, flags, shape_, axis, send_plane[kHigh], face_[2 * axis + kLow].data(), stream);
      pack_outer_plane(u, flags, shape_, axis, send_plane[kLow], face_[2 * axis + kHigh].data(), stream);
      continue;
    }
    const std::int64_t count = 3 * plane_cells(shape_, axis);
    const auto& neighbour = decomposition_.neighbour[axis];
    for (int side : {kLow, kHigh}) {
      if (neighbour[side] != kNoNeighbour) {
        pack_outer_plane(u, flags, shape_, axis, send_plane[side], send_[side].data(), stream);
      }
    }
    backend::synchronize();
    for (int side : {kLow, kHigh}) {
      host_send_[side].resize(std::size_t(count));
      host_recv_[side].resize(std::size_t(count));
      if (neighbour[side] != kNoNeighbour) {
        backend::copy_to_host(host_send_[side].data(), send_[side].data(), std::size_t(count) * sizeof(R));
      }
    }
    exchange_with_neighbours(decomposition_, axis, {host_send_[kLow].data(), host_send_[kHigh].data()},
                             {host_recv_[kLow].data(), host_recv_[kHigh].data()}, static_cast<int>(count),
                             std::is_same_v<R, double> ? MPI_DOUBLE : MPI_FLOAT);
    for (int side : {kLow, kHigh}) {
      if (neighbour[side] != kNoNeighbour) {
        backend::copy_to_device(face_[2 * axis + side].data(), host_recv_[side].data(), std::size_t(count) * sizeof(R));
      }
    }
  }
}

template <class R>
OuterLayerView<R> OuterLayer<R>::view() const {
  OuterLayerView<R> v;
  for (int face = 0; face < 6; ++face) v.face[face] = face_[face].size() > 0 ? face_[face].data() : nullptr;
  return v;
}

template class OuterLayer<float>;
template class OuterLayer<double>;

}  // namespace eddy
