// Which nodes a VTK file holds and how the ranks gather them: the whole grid, a region of it sampled every n-th node
// ([output] region, stride), or one layer of nodes ([[output.slice]]). Each rank writes the nodes of the box it
// owns, extended by one node of the box towards its upper neighbours, so that point-data pieces listed in a .pvti
// share one layer of nodes and ParaView shows no gap; a rank that owns none writes no piece.
#pragma once

#include <array>
#include <vector>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"

namespace eddy {

/// Along each axis the global nodes first, first + stride, ..., `count` of them. Box index I of an axis is global
/// node first + I * stride; a file of the box has extent [0, count - 1] (its pieces a part of it), origin at node
/// `first` and spacing stride times the grid's.
struct OutputBox {
  std::array<int, 3> first = {0, 0, 0};
  std::array<int, 3> stride = {1, 1, 1};
  std::array<int, 3> count = {0, 0, 0};
  bool operator==(const OutputBox& o) const { return first == o.first && stride == o.stride && count == o.count; }
};

/// Nodes a rank writes, in box indices: the first node's index and node counts per axis (0: no piece).
struct PieceExtent {
  std::array<int, 3> offset{};
  std::array<int, 3> size{};
};

/// Every node of a grid of `size` nodes.
OutputBox whole_grid(const std::array<int, 3>& size);
/// The volume snapshots' nodes: [output] region (config.output_region first..last) sampled with its stride.
OutputBox volume_box(const CaseConfig& config);
/// One layer of nodes, normal to slice.axis at node slice.index, over the whole grid in the other two axes.
OutputBox slice_box(const CaseConfig& config, const SliceConfig& slice);

/// The box indices [begin, end) along `axis` whose nodes lie in the cells [offset, offset + size) (begin == end:
/// none). Pure.
std::array<int, 2> owned_indices(const OutputBox& box, int axis, int offset, int size);

/// The piece the block at Cartesian `coords` writes, in box indices: the indices it owns, extended by one towards
/// the next block along each axis where the box goes on (so pieces share a layer). Size 0 along an axis: no piece.
/// Pure.
PieceExtent box_piece(const OutputBox& box, const Decomposition& decomposition, const std::array<int, 3>& coords);

/// The pieces of all ranks that hold one (rank order), each with its rank. Pure (MPI_Cart_coords for the ranks'
/// coordinates).
std::vector<std::pair<int, PieceExtent>> box_pieces(const OutputBox& box, const Decomposition& decomposition);

/// This rank's piece of `box` from `fields`, which holds `components` arrays of this rank's local_size nodes each
/// (x fastest), back to back: the values of the piece's nodes, `components` arrays of piece.size nodes each, with the
/// nodes owned by other ranks received from them. Collective over decomposition.comm (every rank calls it, also one
/// that holds no piece). Sets `piece`.
template <class T>
std::vector<T> gather_box_piece(const OutputBox& box, const Decomposition& decomposition, const std::vector<T>& fields,
                                int components, PieceExtent& piece);

}  // namespace eddy
