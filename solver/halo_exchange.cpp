#include "solver/halo_exchange.hpp"

#include <cstring>
#include <type_traits>

#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "solver/mpi_check.hpp"
#include "solver/mpi_gpu_support.hpp"
#include "solver/nccl_transport.hpp"

namespace eddy {

namespace {
constexpr int kLow = 0, kHigh = 1;
}  // namespace

template <class T>
HaloExchange<T>::HaloExchange(const Decomposition& decomposition, const BlockShape& shape, HaloTransport transport)
    : decomposition_(decomposition), shape_(shape), transport_(transport) {
  if (transport_ == HaloTransport::nccl && !decomposition_.serial()) nccl_ = NcclTransport::create(decomposition_.comm);
  if (transport_ == HaloTransport::device && backend::is_gpu() && !decomposition_.serial() && mpi_cuda_aware() == 0) {
    throw CollectiveInputError(
        "parallel.transport = \"device\" needs a GPU-aware MPI, and this MPI library reports no CUDA support; "
        "use \"host\" (staged through pinned host memory) or \"nccl\"");
  }
  for (int axis = 0; axis < 3; ++axis) {
    const auto& n = decomposition_.neighbour[axis];
    const bool remote = n[kLow] != kNoNeighbour && n[kLow] != decomposition_.rank;
    const bool remote_high = n[kHigh] != kNoNeighbour && n[kHigh] != decomposition_.rank;
    if (decomposition_.serial() || (!remote && !remote_high)) continue;  // walls, or a periodic self-copy
    const std::size_t count = std::size_t(kCrossingDirections) * std::size_t(plane_cells(shape_, axis));
    AxisBuffers& b = buffers_[axis];
    for (int side : {kLow, kHigh}) {
      b.send[side] = DeviceBuffer<T>(count);
      b.recv[side] = DeviceBuffer<T>(count);
      if (transport_ == HaloTransport::host) {
        b.host_send[side] = static_cast<T*>(backend::allocate_pinned(count * sizeof(T)));
        b.host_recv[side] = static_cast<T*>(backend::allocate_pinned(count * sizeof(T)));
      }
    }
  }
}

template <class T>
HaloExchange<T>::~HaloExchange() {
  for (AxisBuffers& b : buffers_)
    for (int side : {kLow, kHigh}) {
      backend::release_pinned(b.host_send[side]);
      backend::release_pinned(b.host_recv[side]);
    }
}

template <class T>
bool HaloExchange<T>::active() const {
  return decomposition_.exchanges(0) || decomposition_.exchanges(1) || decomposition_.exchanges(2);
}

template <class T>
void HaloExchange<T>::exchange(const PopulationView<T>& f, const FlagView& flags, HaloDirection direction,
                               const backend::Stream& stream) {
  const bool into = direction == HaloDirection::into_ghosts;
  for (int pass = 0; pass < 3; ++pass) {
    const int axis = into ? pass : 2 - pass;
    if (!decomposition_.exchanges(axis)) continue;
    const auto& n = decomposition_.neighbour[axis];
    if (decomposition_.serial() || (n[kLow] == decomposition_.rank && n[kHigh] == decomposition_.rank)) {
      copy_periodic_ghosts(f, flags, shape_, axis, into, &stream);  // this rank is its own neighbour
    } else {
      exchange_axis(axis, f, flags, direction, stream);
    }
  }
}

template <class T>
void HaloExchange<T>::exchange_axis(int axis, const PopulationView<T>& f, const FlagView& flags,
                                    HaloDirection direction, const backend::Stream& stream) {
  AxisBuffers& b = buffers_[axis];
  const int neighbour[2] = {decomposition_.neighbour[axis][kLow], decomposition_.neighbour[axis][kHigh]};
  const int n = shape_.n[axis];
  // Slots moved (c_i[axis] of the direction index i), for the message to the lower neighbour / from it:
  //   into_ghosts:   pack plane 1 slots c = +1 ("swapped": A[opp(i)] holds f*_i moving down), unpack into ghost
  //                  plane 0 slots c = -1; the upper side mirrors it (plane n slots c = -1 -> ghost n + 1, c = +1);
  //   out_of_ghosts: pack ghost plane 0 slots c = -1 (populations that left downwards, "own" layout), unpack into
  //                  plane 1 slots c = +1 (arriving from below); the upper side mirrors it.
  const CrossingDirections down = crossing_directions(axis, -1), up = crossing_directions(axis, +1);
  const bool into = direction == HaloDirection::into_ghosts;
  const int send_plane[2] = {into ? 1 : 0, into ? n : n + 1};
  const int recv_plane[2] = {into ? 0 : 1, into ? n + 1 : n};
  const CrossingDirections* send_dirs[2] = {into ? &up : &down, into ? &down : &up};
  const CrossingDirections* recv_dirs[2] = {into ? &down : &up, into ? &up : &down};
  const std::size_t count = b.send[kLow].size();

  for (int side : {kLow, kHigh})
    if (neighbour[side] != kNoNeighbour)
      pack_plane(f, shape_, axis, send_plane[side], *send_dirs[side], b.send[side].data(), &stream);

  if (transport_ == HaloTransport::nccl) {
    nccl_->exchange(b.send[kLow].data(), b.recv[kLow].data(), neighbour[kLow], b.send[kHigh].data(),
                    b.recv[kHigh].data(), neighbour[kHigh], count * sizeof(T), stream);
  } else {
    const bool staged = transport_ == HaloTransport::host;
    T* send[2] = {staged ? b.host_send[kLow] : b.send[kLow].data(), staged ? b.host_send[kHigh] : b.send[kHigh].data()};
    T* recv[2] = {staged ? b.host_recv[kLow] : b.recv[kLow].data(), staged ? b.host_recv[kHigh] : b.recv[kHigh].data()};
    if (staged) {
      for (int side : {kLow, kHigh})
        if (neighbour[side] != kNoNeighbour)
          backend::copy_to_host_async(send[side], b.send[side].data(), count * sizeof(T), stream);
    }
    stream.synchronize();  // packed (and staged) data complete before MPI reads it
    const MPI_Datatype type = std::is_same_v<T, double>  ? MPI_DOUBLE
                              : std::is_same_v<T, float> ? MPI_FLOAT
                                                         : MPI_UINT16_T;  // half: moved as raw 16-bit values
    // Tag 2 * axis + 1: a message moving up the axis; 2 * axis: moving down.
    MPI_Request requests[4];
    int pending = 0;
    const int count_int = static_cast<int>(count);
    if (neighbour[kLow] != kNoNeighbour) {
      EDDY_MPI_CHECK(MPI_Irecv(recv[kLow], count_int, type, neighbour[kLow], 2 * axis + 1, decomposition_.comm,
                               &requests[pending++]));
    }
    if (neighbour[kHigh] != kNoNeighbour) {
      EDDY_MPI_CHECK(MPI_Irecv(recv[kHigh], count_int, type, neighbour[kHigh], 2 * axis, decomposition_.comm,
                               &requests[pending++]));
    }
    if (neighbour[kLow] != kNoNeighbour) {
      EDDY_MPI_CHECK(
          MPI_Isend(send[kLow], count_int, type, neighbour[kLow], 2 * axis, decomposition_.comm, &requests[pending++]));
    }
    if (neighbour[kHigh] != kNoNeighbour) {
      EDDY_MPI_CHECK(MPI_Isend(send[kHigh], count_int, type, neighbour[kHigh], 2 * axis + 1, decomposition_.comm,
                               &requests[pending++]));
    }
    EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
    if (staged) {
      for (int side : {kLow, kHigh})
        if (neighbour[side] != kNoNeighbour)
          backend::copy_to_device_async(b.recv[side].data(), recv[side], count * sizeof(T), stream);
    }
  }
  for (int side : {kLow, kHigh})
    if (neighbour[side] != kNoNeighbour)
      unpack_plane(f, shape_, axis, recv_plane[side], *recv_dirs[side], b.recv[side].data(), flags, !into, &stream);
}

template class HaloExchange<float>;
template class HaloExchange<double>;
template class HaloExchange<half_t>;

template <class T>
void exchange_z_halo(const Decomposition& decomposition, const BlockShape& shape, std::int64_t plane_cells, int h,
                     const T* f, T* below, T* above, int components) {
  const auto& neighbour = decomposition.neighbour[2];
  if (neighbour[0] == kNoNeighbour && neighbour[1] == kNoNeighbour) return;
  const int nz = shape.n[2];
  const std::size_t halo_values = std::size_t(h) * std::size_t(plane_cells);
  if (decomposition.serial() || neighbour[0] == decomposition.rank) {
    const std::size_t plane_bytes = std::size_t(plane_cells) * sizeof(T);
    auto image = [&](int p) { return ((p - 1) % nz + nz) % nz + 1; };
    for (int i = 0; i < components; ++i) {
      const T* population = f + i * shape.n_cells();
      for (int q = 0; q < h; ++q) {
        std::memcpy(below + i * halo_values + std::size_t(q) * plane_cells,
                    population + std::int64_t(image(1 - h + q)) * plane_cells, plane_bytes);
        std::memcpy(above + i * halo_values + std::size_t(q) * plane_cells,
                    population + std::int64_t(image(nz + 1 + q)) * plane_cells, plane_bytes);
      }
    }
    return;
  }
  // Planes 1..h go down (they are the lower rank's "above"), planes nz-h+1..nz go up; strided over populations.
  MPI_Datatype planes = MPI_DATATYPE_NULL, packed = MPI_DATATYPE_NULL;
  EDDY_MPI_CHECK(MPI_Type_create_hvector(components, int(halo_values * sizeof(T)),
                                         MPI_Aint(shape.n_cells() * sizeof(T)), MPI_BYTE, &planes));
  EDDY_MPI_CHECK(MPI_Type_contiguous(int(halo_values * sizeof(T)), MPI_BYTE, &packed));
  EDDY_MPI_CHECK(MPI_Type_commit(&planes));
  EDDY_MPI_CHECK(MPI_Type_commit(&packed));
  const int lower = neighbour[0] == kNoNeighbour ? MPI_PROC_NULL : neighbour[0];
  const int upper = neighbour[1] == kNoNeighbour ? MPI_PROC_NULL : neighbour[1];
  const T* bottom = f + std::int64_t(1) * plane_cells;
  const T* top = f + std::int64_t(nz - h + 1) * plane_cells;
  constexpr int kTagUp = 41, kTagDown = 42;
  // A wall side has no neighbour and no buffer: nothing is sent or received there (count 0).
  const int to_upper = upper == MPI_PROC_NULL ? 0 : 1, to_lower = lower == MPI_PROC_NULL ? 0 : 1;
  EDDY_MPI_CHECK(MPI_Sendrecv(top, to_upper, planes, upper, kTagUp, below, to_lower * components, packed, lower, kTagUp,
                              decomposition.comm, MPI_STATUS_IGNORE));
  EDDY_MPI_CHECK(MPI_Sendrecv(bottom, to_lower, planes, lower, kTagDown, above, to_upper * components, packed, upper,
                              kTagDown, decomposition.comm, MPI_STATUS_IGNORE));
  MPI_Type_free(&planes);
  MPI_Type_free(&packed);
}

#define EDDY_INSTANTIATE(T) \
  template void exchange_z_halo<T>(const Decomposition&, const BlockShape&, std::int64_t, int, const T*, T*, T*, int);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
