#include "solver/output_box.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "solver/mpi_check.hpp"

namespace eddy {

namespace {

/// ceil(a / b) for b > 0 and any sign of a.
long long ceil_div(long long a, long long b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/// Box indices [lo, hi) per axis.
struct IndexRange {
  std::array<int, 3> lo{}, hi{};
  bool empty() const { return lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]; }
  std::size_t nodes() const {
    return empty() ? 0 : std::size_t(hi[0] - lo[0]) * std::size_t(hi[1] - lo[1]) * std::size_t(hi[2] - lo[2]);
  }
};

IndexRange intersect(const IndexRange& a, const IndexRange& b) {
  IndexRange r;
  for (int i = 0; i < 3; ++i) {
    r.lo[i] = std::max(a.lo[i], b.lo[i]);
    r.hi[i] = std::max(r.lo[i], std::min(a.hi[i], b.hi[i]));
  }
  return r;
}

IndexRange range_of(const PieceExtent& piece) {
  IndexRange r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = piece.offset[a];
    r.hi[a] = piece.offset[a] + piece.size[a];
  }
  return r;
}

/// The box indices held by the block at `coords`.
IndexRange owned_range(const OutputBox& box, const Decomposition& d, const std::array<int, 3>& coords) {
  IndexRange r;
  for (int a = 0; a < 3; ++a) {
    int offset = 0, size = 0;
    d.block_extent(a, coords[a], offset, size);
    const std::array<int, 2> owned = owned_indices(box, a, offset, size);
    r.lo[a] = owned[0];
    r.hi[a] = owned[1];
  }
  return r;
}

std::array<int, 3> coords_of(const Decomposition& d, int rank) {
  std::array<int, 3> coords = {0, 0, 0};
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Cart_coords(d.comm, rank, 3, coords.data()));
  return coords;
}

/// Calls fn(c, I, J, K, n) for the nodes of `r` (box indices) and components 0..components-1, n counting from 0 in
/// this order (x fastest, components slowest): the packing order of the messages.
template <class Fn>
void for_each_value(const IndexRange& r, int components, Fn&& fn) {
  std::size_t n = 0;
  for (int c = 0; c < components; ++c)
    for (int k = r.lo[2]; k < r.hi[2]; ++k)
      for (int j = r.lo[1]; j < r.hi[1]; ++j)
        for (int i = r.lo[0]; i < r.hi[0]; ++i) fn(c, i, j, k, n++);
}

}  // namespace

OutputBox whole_grid(const std::array<int, 3>& size) {
  OutputBox box;
  box.count = size;
  return box;
}

OutputBox volume_box(const CaseConfig& config) {
  const OutputRegion& region = config.output_region;
  OutputBox box;
  for (int a = 0; a < 3; ++a) {
    const int first = region.last[a] < region.first[a] ? 0 : region.first[a];
    const int last = region.last[a] < region.first[a] ? config.size[a] - 1 : region.last[a];
    box.first[a] = first;
    box.stride[a] = std::max(1, region.stride[a]);
    box.count[a] = (last - first) / box.stride[a] + 1;
  }
  return box;
}

OutputBox slice_box(const CaseConfig& config, const SliceConfig& slice) {
  OutputBox box = whole_grid(config.size);
  box.first[slice.axis] = slice.index;
  box.count[slice.axis] = 1;
  return box;
}

std::array<int, 2> owned_indices(const OutputBox& box, int axis, int offset, int size) {
  const long long first = box.first[axis], stride = box.stride[axis], count = box.count[axis];
  const long long begin = std::clamp(ceil_div(offset - first, stride), 0LL, count);
  const long long end = std::clamp(ceil_div(static_cast<long long>(offset) + size - first, stride), begin, count);
  return {int(begin), int(end)};
}

PieceExtent box_piece(const OutputBox& box, const Decomposition& d, const std::array<int, 3>& coords) {
  const IndexRange owned = owned_range(box, d, coords);
  PieceExtent piece;
  if (owned.empty()) return piece;  // size 0: no piece
  for (int a = 0; a < 3; ++a) {
    piece.offset[a] = owned.lo[a];
    piece.size[a] = std::min(owned.hi[a] + 1, box.count[a]) - owned.lo[a];  // + the next block's first layer
  }
  return piece;
}

std::vector<std::pair<int, PieceExtent>> box_pieces(const OutputBox& box, const Decomposition& d) {
  std::vector<std::pair<int, PieceExtent>> pieces;
  for (int r = 0; r < d.size; ++r) {
    const PieceExtent piece = box_piece(box, d, coords_of(d, r));
    if (piece.size[0] > 0) pieces.emplace_back(r, piece);
  }
  return pieces;
}

template <class T>
std::vector<T> gather_box_piece(const OutputBox& box, const Decomposition& d, const std::vector<T>& fields,
                                int components, PieceExtent& piece) {
  piece = box_piece(box, d, d.coords);
  const IndexRange mine = range_of(piece), owned = owned_range(box, d, d.coords);
  std::vector<T> out(std::size_t(components) * mine.nodes());
  const std::size_t local_nodes = std::size_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  // Position in `fields` of component c at box indices (i, j, k), which this rank owns.
  auto local = [&](int c, int i, int j, int k) {
    const std::size_t x = std::size_t(box.first[0] + i * box.stride[0] - d.offset[0]);
    const std::size_t y = std::size_t(box.first[1] + j * box.stride[1] - d.offset[1]);
    const std::size_t z = std::size_t(box.first[2] + k * box.stride[2] - d.offset[2]);
    return std::size_t(c) * local_nodes + x + std::size_t(d.local_size[0]) * (y + std::size_t(d.local_size[1]) * z);
  };
  const std::size_t piece_nodes = mine.nodes();
  auto in_piece = [&](int c, int i, int j, int k) {
    return std::size_t(c) * piece_nodes + std::size_t(i - mine.lo[0]) +
           std::size_t(piece.size[0]) * (std::size_t(j - mine.lo[1]) + std::size_t(piece.size[1]) * (k - mine.lo[2]));
  };
  // The nodes this rank owns itself, a plane of x-rows at a time.
  const IndexRange self = intersect(mine, owned);
  if (!self.empty()) {
    const int planes = self.hi[2] - self.lo[2];
#pragma omp parallel for collapse(2) schedule(static)
    for (int c = 0; c < components; ++c)
      for (int kk = 0; kk < planes; ++kk) {
        const int k = self.lo[2] + kk;
        for (int j = self.lo[1]; j < self.hi[1]; ++j)
          for (int i = self.lo[0]; i < self.hi[0]; ++i) out[in_piece(c, i, j, k)] = fields[local(c, i, j, k)];
      }
  }
  if (d.serial() || d.size == 1) return out;

  // The rest from their owners: to each rank the part of its piece this rank owns, from each the part of this
  // rank's piece it owns; both sides know the ranges, so only the values travel.
  const MPI_Datatype type = std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
  std::vector<std::vector<T>> sent, received;
  std::vector<IndexRange> received_ranges;
  std::vector<MPI_Request> requests;
  auto message_size = [&](const IndexRange& r) {
    const std::size_t values = std::size_t(components) * r.nodes();
    if (values > std::size_t(INT_MAX)) {
      throw OutputError("output: a part of a piece holds " + std::to_string(values) +
                        " values, more than one MPI message carries (2^31 - 1); use more ranks or a stride");
    }
    return int(values);
  };
  for (int q = 0; q < d.size; ++q) {
    if (q == d.rank) continue;
    const std::array<int, 3> q_coords = coords_of(d, q);
    const IndexRange to_q = intersect(range_of(box_piece(box, d, q_coords)), owned);
    if (!to_q.empty()) {
      sent.emplace_back(std::size_t(message_size(to_q)));
      std::vector<T>& buffer = sent.back();
      for_each_value(to_q, components,
                     [&](int c, int i, int j, int k, std::size_t n) { buffer[n] = fields[local(c, i, j, k)]; });
      requests.emplace_back();
      EDDY_MPI_CHECK(MPI_Isend(buffer.data(), int(buffer.size()), type, q, 300, d.comm, &requests.back()));
    }
    const IndexRange from_q = intersect(mine, owned_range(box, d, q_coords));
    if (!from_q.empty()) {
      received.emplace_back(std::size_t(message_size(from_q)));
      received_ranges.push_back(from_q);
      requests.emplace_back();
      EDDY_MPI_CHECK(
          MPI_Irecv(received.back().data(), int(received.back().size()), type, q, 300, d.comm, &requests.back()));
    }
  }
  if (!requests.empty()) {
    EDDY_MPI_CHECK(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  }
  for (std::size_t m = 0; m < received.size(); ++m) {
    const std::vector<T>& buffer = received[m];
    for_each_value(received_ranges[m], components,
                   [&](int c, int i, int j, int k, std::size_t n) { out[in_piece(c, i, j, k)] = buffer[n]; });
  }
  return out;
}

template std::vector<float> gather_box_piece<float>(const OutputBox&, const Decomposition&, const std::vector<float>&,
                                                    int, PieceExtent&);
template std::vector<double> gather_box_piece<double>(const OutputBox&, const Decomposition&,
                                                      const std::vector<double>&, int, PieceExtent&);

}  // namespace eddy
