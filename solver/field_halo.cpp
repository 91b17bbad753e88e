#include "solver/field_halo.hpp"

#include <algorithm>
#include <type_traits>

#include "kernels/field_launchers.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {
namespace {

constexpr int kLow = 0, kHigh = 1;

template <class V>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<V, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<V, double>) return MPI_DOUBLE;
  return MPI_UNSIGNED_LONG_LONG;
}

}  // namespace

void exchange_with_neighbours(const Decomposition& decomposition, int axis, const void* const (&send)[2],
                              void* const (&recv)[2], int count, MPI_Datatype type) {
  const int* neighbour = decomposition.neighbour[axis].data();
  MPI_Request requests[4];
  int pending = 0;
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour) continue;
    EDDY_MPI_CHECK(MPI_Irecv(recv[side], count, type, neighbour[side], 2 * axis + (side == kLow), decomposition.comm,
                             &requests[pending++]));
  }
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour) continue;
    EDDY_MPI_CHECK(MPI_Isend(send[side], count, type, neighbour[side], 2 * axis + (side == kHigh), decomposition.comm,
                             &requests[pending++]));
  }
  EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
}

template <class V>
FieldHalo<V>::FieldHalo(const Decomposition& decomposition, const BlockShape& shape)
    : decomposition_(decomposition), shape_(shape) {
  std::int64_t largest = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (decomposition.exchanges(axis)) largest = std::max(largest, plane_cells(shape, axis));
  }
  if (largest == 0) return;
  for (int side : {kLow, kHigh}) {
    send_[side] = DeviceBuffer<V>(std::size_t(largest));
    recv_[side] = DeviceBuffer<V>(std::size_t(largest));
  }
}

template <class V>
void FieldHalo<V>::fill_ghosts(V* field, const backend::Stream* stream) {
  for (int axis = 0; axis < 3; ++axis) exchange_axis(field, axis, Mode::fill, stream);
}

template <class V>
void FieldHalo<V>::add_ghosts_to_owners(V* field, const backend::Stream* stream) {
  for (int axis = 0; axis < 3; ++axis) exchange_axis(field, axis, Mode::add, stream);
}

template <class V>
void FieldHalo<V>::exchange_axis(V* field, int axis, Mode mode, const backend::Stream* stream) {
  if (!decomposition_.exchanges(axis)) return;
  const int n = shape_.n[axis];
  const int neighbour[2] = {decomposition_.neighbour[axis][kLow], decomposition_.neighbour[axis][kHigh]};
  // fill: send the boundary plane (1 / n), receive into the ghost plane (0 / n + 1) from the same side;
  // add:  send the ghost plane (0 / n + 1) and clear it, add what arrives into the boundary plane (1 / n).
  const bool fill = mode == Mode::fill;
  const int send_plane[2] = {fill ? 1 : 0, fill ? n : n + 1};
  const int recv_plane[2] = {fill ? 0 : 1, fill ? n + 1 : n};
  const std::int64_t count = plane_cells(shape_, axis);
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour) continue;
    pack_field_plane(field, shape_, axis, send_plane[side], send_[side].data(), stream);
    if (!fill) clear_field_plane(field, shape_, axis, send_plane[side], stream);
  }
  // What arrives from the lower neighbour is what it sent up, and the other way round.
  const V* arrived[2] = {send_[kHigh].data(), send_[kLow].data()};
  const bool local = decomposition_.serial() || decomposition_.dims[axis] == 1;
  if (!local) {
    backend::synchronize();
    for (int side : {kLow, kHigh}) {
      if (neighbour[side] == kNoNeighbour) continue;
      host_send_[side].resize(std::size_t(count));
      host_recv_[side].resize(std::size_t(count));
      backend::copy_to_host(host_send_[side].data(), send_[side].data(), std::size_t(count) * sizeof(V));
    }
    exchange_with_neighbours(decomposition_, axis, {host_send_[kLow].data(), host_send_[kHigh].data()},
                             {host_recv_[kLow].data(), host_recv_[kHigh].data()}, static_cast<int>(count),
                             mpi_type<V>());
    for (int side : {kLow, kHigh}) {
      if (neighbour[side] == kNoNeighbour) continue;
      backend::copy_to_device(recv_[side].data(), host_recv_[side].data(), std::size_t(count) * sizeof(V));
      arrived[side] = recv_[side].data();
    }
  }
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour) continue;
    unpack_field_plane(field, shape_, axis, recv_plane[side], arrived[side], !fill, stream);
  }
}

template class FieldHalo<float>;
template class FieldHalo<double>;
template class FieldHalo<unsigned long long>;

}  // namespace eddy
