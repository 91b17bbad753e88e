// Which nodes a VTK file holds and which rank writes them (solver/output_box.hpp): the boxes of [output] region and
// stride and of a slice, the indices a block owns, and the pieces, each extended by one node towards the next piece
// so that they join without a gap. Pure arithmetic, no MPI: the decompositions are built by hand.
#include <gtest/gtest.h>

#include "solver/output_box.hpp"

namespace eddy {
namespace {

using Pair = std::array<int, 2>;
using Triple = std::array<int, 3>;

TEST(OutputBox, OwnedIndicesOfAStridedBoxSplitOverBlocks) {
  OutputBox box;
  box.first = {1, 0, 0};
  box.stride = {3, 1, 1};
  box.count = {4, 1, 1};                                  // nodes 1, 4, 7, 10
  EXPECT_EQ(owned_indices(box, 0, 0, 4), (Pair{0, 1}));   // cells 0..3 hold node 1
  EXPECT_EQ(owned_indices(box, 0, 4, 3), (Pair{1, 2}));   // cells 4..6: node 4 (7 is the next block's)
  EXPECT_EQ(owned_indices(box, 0, 4, 4), (Pair{1, 3}));   // cells 4..7: nodes 4 and 7
  EXPECT_EQ(owned_indices(box, 0, 5, 2), (Pair{2, 2}));   // cells 5..6: none
  EXPECT_EQ(owned_indices(box, 0, 8, 5), (Pair{3, 4}));   // cells 8..12: node 10
  EXPECT_EQ(owned_indices(box, 0, 11, 5), (Pair{4, 4}));  // past the last node
  EXPECT_EQ(owned_indices(box, 0, 0, 1), (Pair{0, 0}));   // before the first node
}

TEST(OutputBox, VolumeBoxFromRegionAndStrideAndSliceBox) {
  CaseConfig config;
  config.size = {20, 10, 5};
  config.output_region.first = {2, 0, 1};
  config.output_region.last = {17, 9, 1};
  config.output_region.stride = {5, 4, 1};
  const OutputBox v = volume_box(config);
  EXPECT_EQ(v.first, (Triple{2, 0, 1}));
  EXPECT_EQ(v.stride, (Triple{5, 4, 1}));
  EXPECT_EQ(v.count, (Triple{4, 3, 1}));  // x 2, 7, 12, 17; y 0, 4, 8; z 1
  SliceConfig slice;
  slice.axis = 1;
  slice.index = 7;
  const OutputBox s = slice_box(config, slice);
  EXPECT_EQ(s.first, (Triple{0, 7, 0}));
  EXPECT_EQ(s.count, (Triple{20, 1, 5}));
  EXPECT_EQ(s.stride, (Triple{1, 1, 1}));
}

/// A decomposition of `size` into `dims` blocks, as decompose() lays them out, without MPI (pure functions only).
Decomposition blocks(const Triple& size, const Triple& dims) {
  Decomposition d;
  d.global_size = size;
  d.dims = dims;
  return d;
}

TEST(OutputBox, PiecesOverlapByOneNodeOfTheBox) {
  // 10 cells in 3 blocks (4, 3, 3); every 2nd node from 1: 1, 3, 5, 7, 9 (indices 0..4).
  const Decomposition d = blocks({10, 1, 1}, {3, 1, 1});
  OutputBox box;
  box.first = {1, 0, 0};
  box.stride = {2, 1, 1};
  box.count = {5, 1, 1};
  const PieceExtent a = box_piece(box, d, {0, 0, 0}), b = box_piece(box, d, {1, 0, 0}),
                    c = box_piece(box, d, {2, 0, 0});
  EXPECT_EQ(a.offset[0], 0);  // nodes 1, 3 and the next block's 5
  EXPECT_EQ(a.size[0], 3);
  EXPECT_EQ(b.offset[0], 2);  // node 5 (cells 4..6), and 7
  EXPECT_EQ(b.size[0], 2);
  EXPECT_EQ(c.offset[0], 3);  // nodes 7, 9: the last piece ends with the box
  EXPECT_EQ(c.size[0], 2);
}

TEST(OutputBox, ABlockWithoutNodesWritesNoPieceAndItsNeighbourReachesOverIt) {
  // 12 cells in 4 blocks of 3; every 5th node from 0: 0, 5, 10. Block 2 (cells 6..8) holds none.
  const Decomposition d = blocks({12, 1, 1}, {4, 1, 1});
  OutputBox box;
  box.stride = {5, 1, 1};
  box.count = {3, 1, 1};
  EXPECT_EQ(box_piece(box, d, {2, 0, 0}).size[0], 0);
  const PieceExtent b = box_piece(box, d, {1, 0, 0});  // node 5 and node 10, two blocks on
  EXPECT_EQ(b.offset[0], 1);
  EXPECT_EQ(b.size[0], 2);
  // A slice outside a block along its normal: no piece.
  const Decomposition z = blocks({4, 4, 8}, {1, 1, 2});
  CaseConfig config;
  config.size = {4, 4, 8};
  SliceConfig slice;
  slice.axis = 2;
  slice.index = 5;
  EXPECT_EQ(box_piece(slice_box(config, slice), z, {0, 0, 0}).size[2], 0);
  EXPECT_EQ(box_piece(slice_box(config, slice), z, {0, 0, 1}).size, (Triple{4, 4, 1}));
}

TEST(OutputBox, TheWholeGridGivesTheBlocksExtendedTowardsTheirUpperNeighbours) {
  const Decomposition d = blocks({9, 7, 5}, {2, 2, 1});
  const OutputBox box = whole_grid({9, 7, 5});
  const PieceExtent lower = box_piece(box, d, {0, 0, 0}), upper = box_piece(box, d, {1, 1, 0});
  EXPECT_EQ(lower.offset, (Triple{0, 0, 0}));
  EXPECT_EQ(lower.size, (Triple{6, 5, 5}));  // blocks 5 and 4 cells in x, 4 and 3 in y: + 1 each where one follows
  EXPECT_EQ(upper.offset, (Triple{5, 4, 0}));
  EXPECT_EQ(upper.size, (Triple{4, 3, 5}));
}

}  // namespace
}  // namespace eddy
