// Unit tests for the readers of [output] region and stride and [[output.slice]] (io/case/output_selection.cpp):
// region to node indices (the nodes at the cell centres inside [min, max], in cells and in m under [units]), the
// stride's two forms, a slice's node layer, default name and every; every bad input an InputError naming its key.
// The files they select: tests/unit/test_output_selection.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {
namespace {

using Triple = std::array<int, 3>;

/// A 20 x 10 x 8 box of 100 steps, output every 10, with `output` added to its [output] section.
std::string box(const std::string& output) {
  return "[domain]\nsize = [20, 10, 8]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 100\n"
         "[output]\nevery = 10\n" +
         output;
}

/// The same box in SI: L = nx = 20 cells span 0.04 m, dx = 2e-3 m.
std::string si_box(const std::string& output) {
  return "[domain]\nsize = [20, 10, 8]\n[run]\nsteps = 100\n"
         "[units]\nlength = 0.04\nvelocity = 0.5\nviscosity = 1e-4\n[output]\nevery = 10\n" +
         output;
}

std::string error_of(const std::string& text) {
  try {
    parse_case(text, "out.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError thrown>";
}

void expect_error(const std::string& text, const std::vector<std::string>& fragments) {
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind("out.toml: ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message << "\nlacks: " << f;
}

TEST(OutputSelectionConfig, DefaultsAreTheWholeGridAndNoSlice) {
  const CaseConfig c = parse_case(box(""), "out.toml");
  EXPECT_FALSE(c.output_region.given);
  EXPECT_EQ(c.output_region.first, (Triple{0, 0, 0}));
  EXPECT_EQ(c.output_region.last, (Triple{19, 9, 7}));
  EXPECT_EQ(c.output_region.stride, (Triple{1, 1, 1}));
  EXPECT_TRUE(c.slices.empty());
}

TEST(OutputSelectionConfig, RegionKeepsTheNodesInsideItInCellsAndMetres) {
  // Node i at i + 0.5: [2, 7.5] holds nodes 2..7 (2.5 .. 7.5, the end included); [0.6, 0.6] none; [0, 10] all.
  const CaseConfig c = parse_case(box("region = { min = [2, 0, 3.4], max = [7.5, 10, 3.6] }\n"), "out.toml");
  EXPECT_TRUE(c.output_region.given);
  EXPECT_EQ(c.output_region.first, (Triple{2, 0, 3}));
  EXPECT_EQ(c.output_region.last, (Triple{7, 9, 3}));
  // The table form, and metres: dx = 2e-3 m, [0.004, 0.0151] m = [2, 7.55] cells.
  const CaseConfig si =
      parse_case(si_box("[output.region]\nmin = [0.004, 0, 0]\nmax = [0.0151, 0.02, 0.016]\n"), "out.toml");
  EXPECT_EQ(si.output_region.first, (Triple{2, 0, 0}));
  EXPECT_EQ(si.output_region.last, (Triple{7, 9, 7}));
}

TEST(OutputSelectionConfig, StrideIsOneIntegerOrThree) {
  EXPECT_EQ(parse_case(box("stride = 4\n"), "out.toml").output_region.stride, (Triple{4, 4, 4}));
  EXPECT_EQ(parse_case(box("stride = [1, 2, 3]\n"), "out.toml").output_region.stride, (Triple{1, 2, 3}));
}

TEST(OutputSelectionConfig, SliceLayerNameAndEvery) {
  const CaseConfig c = parse_case(box("[[output.slice]]\nnormal = \"y\"\nposition = 3.7\n"
                                      "[[output.slice]]\nname = \"top\"\nnormal = \"z\"\nposition = 8\nevery = 0\n"),
                                  "out.toml");
  ASSERT_EQ(c.slices.size(), 2u);
  EXPECT_EQ(c.slices[0].axis, 1);
  EXPECT_EQ(c.slices[0].index, 3);  // the cell holding 3.7
  EXPECT_EQ(c.slices[0].name, "y3");
  EXPECT_EQ(c.slices[0].every, 10);  // output.every
  EXPECT_EQ(c.slices[1].index, 7);   // the upper face: the last cell
  EXPECT_EQ(c.slices[1].name, "top");
  EXPECT_EQ(c.slices[1].every, 0);
  const CaseConfig si = parse_case(si_box("[[output.slice]]\nnormal = \"x\"\nposition = 0.031\n"), "out.toml");
  EXPECT_EQ(si.slices[0].index, 15);  // 15.5 cells
  // A position on a cell face in metres is in the cell above it, as in cells, though k dx / dx may fall below k
  // (dx = 0.03 / 20 = 0.0015 m: 0.0045 / 0.0015 = 2.9999999999999996).
  std::string face = si_box("[[output.slice]]\nnormal = \"x\"\nposition = 0.0045\n"
                            "[[output.slice]]\nnormal = \"x\"\nposition = 0.009\n");
  face.replace(face.find("length = 0.04"), 13, "length = 0.03");
  const CaseConfig faces = parse_case(face, "out.toml");
  EXPECT_EQ(faces.slices[0].index, 3);
  EXPECT_EQ(faces.slices[1].index, 6);
}

TEST(OutputSelectionConfig, BadInputNamesTheKey) {
  expect_error(box("region = { min = [0, 0, 0] }\n"), {"output.region.max", "missing"});
  expect_error(box("region = { min = [0, 0, 0], max = [1, 1, 1], maximum = 2 }\n"), {"maximum"});
  expect_error(box("region = { min = [0, 0, 0], max = [21, 1, 1] }\n"), {"output.region", "outside the domain", "x"});
  expect_error(box("region = { min = [5, 0, 0], max = [4, 1, 1] }\n"), {"output.region", "min", "above max"});
  expect_error(box("region = { min = [0.6, 0, 0], max = [1.4, 1, 1] }\n"), {"output.region", "holds no node"});
  expect_error(box("region = { min = [0, 0], max = [1, 1, 1] }\n"), {"output.region.min"});
  expect_error(box("region = 3\n"), {"output.region"});
  expect_error(box("stride = 0\n"), {"output.stride = 0", "from 1 to 2^30"});
  expect_error(box("stride = [1, 1073741825, 1]\n"), {"output.stride", "from 1 to 2^30"});
  expect_error(box("stride = [1, 2]\n"), {"output.stride"});
  expect_error(box("stride = 1.5\n"), {"output.stride = 1.5", "integer"});
  expect_error(box("[[output.slice]]\nposition = 3\n"), {"output.slice[0].normal", "missing"});
  expect_error(box("[[output.slice]]\nnormal = \"w\"\nposition = 3\n"), {"output.slice[0].normal", "\"x\""});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\n"), {"output.slice[0].position", "missing"});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\nposition = 20.5\n"),
               {"output.slice[0].position = 20.5 cells", "outside the domain", "[0, 20 cells]"});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\nposition = -1\n"), {"output.slice[0].position"});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\nposition = 1\nevery = -1\n"), {"output.slice[0].every"});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\nposition = 1\nname = \"a/b\"\n"),
               {"output.slice[0].name", "letters, digits"});
  expect_error(
      box("[[output.slice]]\nnormal = \"x\"\nposition = 1.2\n[[output.slice]]\nnormal = \"x\"\nposition = 1.7\n"),
      {"output.slice[1]", "'x1'", "earlier slice"});
  expect_error(box("[[output.slice]]\nnormal = \"x\"\nposition = 1\nwhere = 2\n"), {"where"});
  expect_error(box("slice = 3\n"), {"output.slice", "[[output.slice]]"});
  expect_error(si_box("[[output.slice]]\nnormal = \"z\"\nposition = 0.02\n"),
               {"output.slice[0].position = 0.02 m", "[0, 0.016 m]"});
}

}  // namespace
}  // namespace eddy
