// The files of [[solid]] meshes and voxel grids (io/solid_files.hpp) and their keys (io/case/solids.cpp): STL
// (binary and ASCII), OBJ and PLY read alike; raw and .vti voxel files placed at their offset; every bad input with
// its exit status (8: a file missing or unreadable, 2: malformed, empty, a size mismatch, a bad key), also through
// the eddy binary: one stderr line, the odd rays of an open mesh counted, repair = "fill", no fluid left, the
// voxelisation time in the start-up lines.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/solid_files.hpp"
#include "solver/block_solids.hpp"
#include "solver/decomposition.hpp"
#include "solver/errors.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/tessellated_sphere.hpp"
#include "tests/file_helpers.hpp"
#include "tests/mesh_files.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;
using Vec = std::array<double, 3>;

#define EDDY_REQUIRE_VTK() \
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: built without VTK (mesh and .vti files need its readers)"

/// The exit status solver/main.cpp gives the exception `f` throws, and its message (0 and "" when none).
template <class F>
std::pair<int, std::string> failure(F f) {
  try {
    f();
  } catch (const CaseFileError& e) {
    return {kExitCaseFileError, e.what()};
  } catch (const InputError& e) {
    return {kExitInputError, e.what()};
  }
  return {0, ""};
}

#define EXPECT_FAILS_WITH(call, code, fragment)                                                                   \
  do {                                                                                                            \
    const auto f_ = failure([&] { call; });                                                                       \
    EXPECT_EQ(f_.first, code) << f_.second;                                                                       \
    EXPECT_NE(f_.second.find(fragment), std::string::npos) << "'" << f_.second << "' lacks '" << fragment << "'"; \
    EXPECT_EQ(f_.second.find('\n'), std::string::npos) << f_.second;                                              \
  } while (0)

/// The interior solid cells (1) of a serial block of `c`, x fastest.
std::vector<int> solid_cells(const CaseConfig& c) {
  const Decomposition d = serial_decomposition(c);
  const BlockShape shape = block_shape(d);
  const std::vector<CellFlag> flags = build_flags(c, d);
  std::vector<int> out;
  for (int z = 1; z <= c.size[2]; ++z)
    for (int y = 1; y <= c.size[1]; ++y)
      for (int x = 1; x <= c.size[0]; ++x) out.push_back(flags[std::size_t(shape.index(x, y, z))] == kWall);
  return out;
}

CaseConfig with_solid(SolidConfig s, std::array<int, 3> size = {20, 16, 12}) {
  CaseConfig c = test::box_case(size[0], size[1], size[2], 0.8);
  test::make_periodic(c, 0);
  s.name = "body";
  c.solids = {s};
  finalize_case(c);
  return c;
}

SolidConfig mesh_solid(const std::string& file) {
  SolidConfig s;
  s.shape = SolidShape::mesh;
  s.file = file;
  return s;
}

SolidConfig voxel_solid(const std::string& file, const std::array<double, 3>& offset,
                        const std::array<std::int64_t, 3>& dims = {0, 0, 0}) {
  SolidConfig s;
  s.shape = SolidShape::voxels;
  s.wall = SolidWall::halfway;  // a voxels solid's only wall (the reader's default)
  s.file = file;
  s.offset = offset;
  s.dimensions = dims;
  return s;
}

// ---- meshes ------------------------------------------------------------------------------------------------------

TEST(SolidFiles, StlObjAndPlyGiveTheSameMeshAndCells) {
  EDDY_REQUIRE_VTK();
  test::TempDir dir;
  const TriangleMesh box = test::box_mesh({3.25, 2.75, 1.5}, {13.5, 9.25, 8.75});
  test::write_binary_stl(dir.file("box.stl"), box);
  test::write_ascii_stl(dir.file("box_ascii.stl"), box);
  test::write_obj(dir.file("box.obj"), box, true);  // 6 quads, split by the reader
  test::write_ply(dir.file("box.ply"), box);
  std::vector<int> reference;
  for (const char* name : {"box.stl", "box_ascii.stl", "box.obj", "box.ply", "BOX.PLY"}) {
    if (std::string(name) == "BOX.PLY") fs::copy_file(dir.file("box.ply"), dir.file(name));
    const TriangleMesh m = read_mesh_file(dir.file(name));
    EXPECT_EQ(m.triangles.size(), 12u) << name;
    EXPECT_EQ(m.vertices.size(), 8u) << name;  // STL's repeated vertices merged
    for (const auto& v : m.vertices) {
      bool corner = true;
      for (int a = 0; a < 3; ++a) {
        const double lo = box.vertices[0][std::size_t(a)], hi = box.vertices[7][std::size_t(a)];
        corner = corner && (std::abs(v[std::size_t(a)] - lo) < 1e-6 || std::abs(v[std::size_t(a)] - hi) < 1e-6);
      }
      EXPECT_TRUE(corner) << name;
    }
    const TriangleMesh moved = transformed_mesh(m, SolidConfig{});
    EXPECT_NEAR(moved.volume, 10.25 * 6.5 * 7.25, 1e-4) << name;
    EXPECT_NEAR(moved.centroid[0], 0.5 * (3.25 + 13.5), 1e-5) << name;
    const std::vector<int> cells = solid_cells(with_solid(mesh_solid(dir.file(name))));
    if (reference.empty()) reference = cells;
    EXPECT_EQ(cells, reference) << name;
  }
  // The box's cells: centres in [3.25, 13.5) x [2.75, 9.25) x [1.5, 8.75) (a centre on the lower face is inside, one
  // on the upper face outside): 10 x 6 x 8.
  std::size_t count = 0;
  for (int v : reference) count += std::size_t(v);
  EXPECT_EQ(count, 10u * 6u * 8u);
}

TEST(SolidFiles, MissingOrUnreadableFilesExitWithEight) {
  test::TempDir dir;
  EXPECT_FAILS_WITH(read_raw_voxels(dir.file("nowhere.raw"), {2, 2, 2}), kExitCaseFileError,
                    "cannot read voxel file '" + dir.file("nowhere.raw") + "': not found");
  fs::create_directory(dir.file("folder.raw"));
  EXPECT_FAILS_WITH(read_raw_voxels(dir.file("folder.raw"), {2, 2, 2}), kExitCaseFileError,
                    "is a directory, not a regular file");
  if (EDDY_TEST_WITH_VTK) {
    EXPECT_FAILS_WITH(read_mesh_file(dir.file("nowhere.stl")), kExitCaseFileError, "nowhere.stl': not found");
    fs::create_directory(dir.file("folder.stl"));
    EXPECT_FAILS_WITH(read_mesh_file(dir.file("folder.stl")), kExitCaseFileError, "is a directory, not a regular file");
    EXPECT_FAILS_WITH(read_vti_voxels(dir.file("nowhere.vti"), ""), kExitCaseFileError, "not found");
  } else {  // a build without VTK refuses meshes and .vti files before it looks for them
    EXPECT_FAILS_WITH(read_mesh_file(dir.file("nowhere.stl")), kExitInputError,
                      "this eddy was built without VTK (EDDY_WITH_VTK=OFF)");
    EXPECT_FAILS_WITH(read_vti_voxels(dir.file("nowhere.vti"), ""), kExitInputError,
                      "or give the voxels as a raw uint8 file with dimensions");
  }
  if (::geteuid() != 0) {  // root reads a file without permissions
    test::write_text(dir.file("locked.raw"), "abcdefgh");
    fs::permissions(dir.file("locked.raw"), fs::perms::none);
    EXPECT_FAILS_WITH(read_raw_voxels(dir.file("locked.raw"), {2, 2, 2}), kExitCaseFileError, "Permission denied");
  }
  // Through load_solid_files the message names the case, the solid's key and its name.
  CaseConfig c = test::box_case(8, 8, 8, 0.8);
  SolidConfig s = voxel_solid(dir.file("nowhere.raw"), {0, 0, 0}, {2, 2, 2});
  s.name = "rock";
  c.solids = {s};
  c.source_file = "case.toml";
  finalize_case(c);
  EXPECT_FAILS_WITH(load_solid_files(c), kExitCaseFileError,
                    "case.toml: solid[0].voxels ('rock'): cannot read voxel file");
  if (EDDY_TEST_WITH_VTK) {
    c.solids = {mesh_solid(dir.file("nowhere.stl"))};
    c.solids[0].name = "car";
    finalize_case(c);
    EXPECT_FAILS_WITH(load_solid_files(c), kExitCaseFileError,
                      "case.toml: solid[0].mesh ('car'): cannot read mesh file");
  }
}

TEST(SolidFiles, MalformedOrEmptyMeshesExitWithTwo) {
  EDDY_REQUIRE_VTK();
  test::TempDir dir;
  const TriangleMesh box = test::box_mesh({1, 1, 1}, {4, 4, 4});
  test::write_binary_stl(dir.file("full.stl"), box);
  const std::string full = test::read_text(dir.file("full.stl"));
  test::write_text(dir.file("truncated.stl"), full.substr(0, 300));
  test::write_text(dir.file("broken.stl"), "solid x\n facet normal 0 0 0\n  outer loop\n   vertex 1 2\n");
  test::write_text(dir.file("empty.stl"), "solid x\nendsolid x\n");
  test::write_binary_stl(dir.file("empty_binary.stl"), TriangleMesh{});
  test::write_text(dir.file("short.stl"), "abc");
  test::write_text(dir.file("points.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
  test::write_text(dir.file("junk.ply"), "this is not a ply file\n");
  test::write_text(
      dir.file("nan.ply"),
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 nan 0\n3 0 1 2\n");
  test::write_text(dir.file("box.step"), "ISO-10303-21;\n");
  // Found by a hostile-input session: faces naming vertices that do not exist (a segfault for a large index), a
  // truncated PLY header (a segfault inside vtkPLYReader).
  test::write_text(dir.file("far.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 100000000\n");
  test::write_text(dir.file("back.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -7\n");
  test::write_text(dir.file("quad.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 9\n");
  test::write_text(dir.file("far.ply"),
                   "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                   "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n");
  test::write_text(dir.file("header.ply"), "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1\n");
  test::write_text(dir.file("cut.ply"), "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("far.obj")), kExitInputError,
                    "face 0 names vertex 99999999 (counted from 0), but the file has 3 vertices");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("back.obj")), kExitInputError, "but the file has 3 vertices");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("quad.obj")), kExitInputError, "names vertex 8 (counted from 0)");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("far.ply")), kExitInputError, "names vertex 7 (counted from 0)");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("header.ply")), kExitInputError,
                    "its PLY header lacks a vertex element with properties x, y and z");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("cut.ply")), kExitInputError, "its PLY header lacks 'end_header'");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("truncated.stl")), kExitInputError, "header announces 12 triangles");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("broken.stl")), kExitInputError, "cannot read mesh file");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("empty.stl")), kExitInputError, "holds no triangle");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("empty_binary.stl")), kExitInputError, "empty_binary.stl");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("short.stl")), kExitInputError, "too short for a binary STL");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("points.obj")), kExitInputError, "holds no triangle");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("junk.ply")), kExitInputError, "cannot read mesh file");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("nan.ply")), kExitInputError,
                    "point 2 has a coordinate that is not a finite number");
  EXPECT_FAILS_WITH(read_mesh_file(dir.file("box.step")), kExitInputError, "the format is taken from the extension");
  EXPECT_EQ(read_mesh_file(dir.file("full.stl")).triangles.size(), 12u);
}

TEST(SolidFiles, TrianglesBeyondTheExactArithmeticAreRefused) {
  // A triangle that reaches the domain's rays and spans 32768 cells or more, or a vertex beyond 2^40 cells: exit
  // status 2 naming the solid (meshes built in code here, as a file would give them).
  const auto refused = [](const TriangleMesh& mesh) {
    SolidConfig s = mesh_solid("big.stl");
    s.surface = std::make_shared<const TriangleMesh>(transformed_mesh(mesh, SolidConfig{}));
    const CaseConfig c = with_solid(s);
    return failure([&] { BlockSolids solids(c, serial_decomposition(c)); });
  };
  TriangleMesh big;
  big.vertices = {{-40000, 1, 1}, {10, 9, 2}, {10, 2, 9}};
  big.triangles = {{0, 1, 2}};
  auto f = refused(big);
  EXPECT_EQ(f.first, kExitInputError) << f.second;
  EXPECT_NE(f.second.find("solid[0].mesh ('body', big.stl): triangle 0 spans 40010 cells along x, more than the "
                          "32768"),
            std::string::npos)
      << f.second;
  big.vertices[0] = {-20000, 1, 1};  // within the limit: voxelised (and refused as open: one triangle)
  EXPECT_NE(refused(big).second.find("cross the mesh an odd number of times"), std::string::npos)
      << refused(big).second;
  big.vertices[0] = {3e12, 1, 1};
  f = refused(big);
  EXPECT_NE(f.second.find("vertex 0 lies at 3e+12 cells along x, beyond the 2^40 cells"), std::string::npos)
      << f.second;
  // Far outside the domain's rays the same triangle does not matter: it crosses no ray, and covers no cell.
  big.vertices = {{-40000, 100, 100}, {10, 109, 102}, {10, 102, 109}};
  EXPECT_EQ(refused(big).first, 0) << refused(big).second;
}

// ---- voxel files -------------------------------------------------------------------------------------------------

/// A 4 x 3 x 2 mask with a pattern: voxel (i, j, k) solid when (i + 2 j + 3 k) % 4 == 0 (any value nonzero: 7).
std::vector<std::uint8_t> pattern() {
  std::vector<std::uint8_t> v;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i) v.push_back((i + 2 * j + 3 * k) % 4 == 0 ? 7 : 0);
  return v;
}

/// The cells the pattern should cover at `offset` in a 20 x 16 x 12 domain periodic in x (voxels outside cover
/// nothing; bodies are not repeated across periodic faces).
std::vector<int> pattern_cells(const std::array<int, 3>& offset) {
  std::vector<int> out(20 * 16 * 12, 0);
  const std::vector<std::uint8_t> v = pattern();
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i) {
        const int x = offset[0] + i, y = offset[1] + j, z = offset[2] + k;
        if (x < 0 || x >= 20 || y < 0 || y >= 16 || z < 0 || z >= 12) continue;
        out[std::size_t(x + 20 * (y + 16 * z))] = v[std::size_t(i + 4 * (j + 3 * k))] != 0;
      }
  return out;
}

TEST(VoxelFiles, RawFilesAreXFastestAtTheirOffset) {
  test::TempDir dir;
  const std::vector<std::uint8_t> v = pattern();
  test::write_text(dir.file("mask.raw"), std::string(v.begin(), v.end()));
  for (const std::array<int, 3> offset : {std::array<int, 3>{5, 6, 7}, {0, 0, 0}, {18, -1, 11}}) {
    const CaseConfig c = with_solid(
        voxel_solid(dir.file("mask.raw"), {double(offset[0]), double(offset[1]), double(offset[2])}, {4, 3, 2}));
    EXPECT_EQ(solid_cells(c), pattern_cells(offset)) << offset[0] << ", " << offset[1] << ", " << offset[2];
  }
  const VoxelGrid grid = read_raw_voxels(dir.file("mask.raw"), {4, 3, 2});
  EXPECT_EQ(grid.count, 6);
  // The wrong size names the file and both sizes.
  EXPECT_FAILS_WITH(read_raw_voxels(dir.file("mask.raw"), {4, 3, 3}), kExitInputError,
                    "mask.raw' has 24 bytes, but dimensions = [4, 3, 3] need 36");
  CaseConfig c = test::box_case(20, 16, 12, 0.8);
  SolidConfig s = voxel_solid(dir.file("mask.raw"), {0, 0, 0}, {5, 3, 2});
  s.name = "rock";
  c.solids = {s};
  c.source_file = "case.toml";
  finalize_case(c);
  EXPECT_FAILS_WITH(load_solid_files(c), kExitInputError,
                    "case.toml: solid[0].voxels ('rock'): voxel file '" + dir.file("mask.raw") +
                        "' has 24 bytes, but dimensions = [5, 3, 2] need 30");
}

TEST(VoxelFiles, VtiPointAndCellArraysAtTheirOffset) {
  EDDY_REQUIRE_VTK();
  test::TempDir dir;
  test::write_vti(dir.file("points.vti"), {4, 3, 2}, pattern(), "mask");
  test::write_vti(dir.file("cells.vti"), {4, 3, 2}, pattern(), "pores", true);
  test::write_vti(dir.file("two.vti"), {4, 3, 2}, pattern(), "mask", false, "temperature");
  const std::array<double, 3> offset = {2, 3, 4};
  EXPECT_EQ(solid_cells(with_solid(voxel_solid(dir.file("points.vti"), offset))), pattern_cells({2, 3, 4}));
  EXPECT_EQ(solid_cells(with_solid(voxel_solid(dir.file("cells.vti"), offset))), pattern_cells({2, 3, 4}));
  SolidConfig named = voxel_solid(dir.file("two.vti"), offset);
  named.array = "mask";
  EXPECT_EQ(solid_cells(with_solid(named)), pattern_cells({2, 3, 4}));
  EXPECT_FAILS_WITH(read_vti_voxels(dir.file("two.vti"), ""), kExitInputError,
                    "name the mask array with the solid's array key; the image's arrays: 'mask' (point), "
                    "'temperature' (point)");
  EXPECT_FAILS_WITH(read_vti_voxels(dir.file("two.vti"), "solid"), kExitInputError, "no array 'solid'");
  test::write_text(dir.file("broken.vti"), "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\"");
  EXPECT_FAILS_WITH(read_vti_voxels(dir.file("broken.vti"), ""), kExitInputError, "cannot read voxel file");
}

// ---- keys --------------------------------------------------------------------------------------------------------

std::string channel_with(const std::string& solid) {
  return "[domain]\nsize = [32, 16, 8]\nperiodic = [true, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "[run]\nsteps = 1\n[[solid]]\nname = \"body\"\n" +
         solid;
}

#define EXPECT_KEY_ERROR(solid, fragment) \
  EXPECT_FAILS_WITH(parse_case(channel_with(solid), "solid.toml"), kExitInputError, fragment)

TEST(SolidFileKeys, ReadAndCheckedLikeTheShapes) {
  const CaseConfig c = parse_case(channel_with("mesh = \"car.stl\"\nscale = [1, 2, 3]\nrotate = [0, 0, 90]\n"
                                               "translate = [1, 2, 3]\nrepair = \"fill\"\nforces = true\n"
                                               "reference_area = 40\nreference_length = 12\n"),
                                  "/data/case.toml");
  ASSERT_EQ(c.solids.size(), 1u);
  EXPECT_EQ(c.solids[0].shape, SolidShape::mesh);
  EXPECT_EQ(c.solids[0].file, "/data/car.stl");
  EXPECT_EQ(c.solids[0].scale, (Vec{1, 2, 3}));
  EXPECT_EQ(c.solids[0].repair, MeshRepair::fill);
  EXPECT_EQ(parse_case(channel_with("mesh = \"/abs/car.obj\"\nscale = 2.5\n"), "x.toml").solids[0].scale,
            (Vec{2.5, 2.5, 2.5}));
  EXPECT_EQ(parse_case(channel_with("mesh = \"/abs/car.obj\"\n"), "x.toml").solids[0].file, "/abs/car.obj");
  const CaseConfig v =
      parse_case(channel_with("voxels = \"rock.raw\"\ndimensions = [4, 3, 2]\noffset = [1, 2, 3]\n"), "case.toml");
  EXPECT_EQ(v.solids[0].shape, SolidShape::voxels);
  EXPECT_EQ(v.solids[0].dimensions, (std::array<std::int64_t, 3>{4, 3, 2}));
  EXPECT_EQ(v.solids[0].offset, (Vec{1, 2, 3}));
  // Walls: a mesh's are interpolated by default (q from its triangles); a voxels solid's surface lies on the cell
  // faces, so its default is half-way and wall = "interpolated" is refused, also on a case built in code.
  EXPECT_EQ(c.solids[0].wall, SolidWall::interpolated);
  EXPECT_EQ(v.solids[0].wall, SolidWall::halfway);
  EXPECT_EQ(parse_case(channel_with("mesh = \"a.stl\"\nwall = \"halfway\"\n"), "x.toml").solids[0].wall,
            SolidWall::halfway);
  EXPECT_EQ(parse_case(channel_with("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\nwall = \"halfway\"\n"), "x.toml")
                .solids[0]
                .wall,
            SolidWall::halfway);
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\nwall = \"interpolated\"\n",
                   "solid[0].wall = \"interpolated\" is not available for a voxels solid: its surface lies on the "
                   "faces between cells");
  {
    CaseConfig coded = v;
    coded.solids[0].wall = SolidWall::interpolated;
    EXPECT_FAILS_WITH(finalize_case(coded), kExitInputError,
                      "solid[0].wall = \"interpolated\" is not available for a voxels solid");
  }
  // Out of core a mesh needs wall = "halfway" like the shapes; a voxels solid runs there as it is.
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\n[numerics]\nout_of_core = true\n", "solid[0].wall = \"interpolated\"");
  EXPECT_EQ(parse_case(channel_with("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\n[numerics]\nout_of_core = true\n"),
                       "x.toml")
                .solids.size(),
            1u);
  // A mesh or voxels solid with forces = true gives its references (they are not derived from the file).
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nforces = true\nreference_length = 3\n",
                   "solid[0] is a mesh solid with forces = true: give solid[0].reference_area");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\nforces = true\nreference_area = 3\n",
                   "solid[0] is a voxels solid with forces = true: give solid[0].reference_length");
  // Exactly one kind; the keys of the kind only.
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nshape = \"sphere\"\n", "solid[0].shape and solid[0].mesh are given together");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nvoxels = \"a.raw\"\n", "solid[0].mesh and solid[0].voxels are given together");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nradius = 2\n", "solid[0].radius is not used by a mesh solid");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\ndimensions = [1, 1, 1]\n", "solid[0].dimensions is not used by a mesh solid");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\nscale = 2\n",
                   "solid[0].scale is not used by a voxels solid");
  EXPECT_KEY_ERROR("shape = \"sphere\"\ncenter = [1, 1, 1]\nradius = 1\nrotate = [0, 0, 1]\n",
                   "solid[0].rotate is not used by shape = \"sphere\"");
  // Values.
  EXPECT_KEY_ERROR("mesh = \"\"\n", "solid[0].mesh = \"\" is not allowed");
  EXPECT_KEY_ERROR("mesh = \"car.step\"\n", "the mesh format is taken from the extension, which must be .stl");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nscale = 0\n", "every factor must be > 0");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nscale = [1, -1, 1]\n", "every factor must be > 0");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nscale = \"big\"\n", "has the wrong type");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nrotate = [0, nan, 0]\n", "is not an array of finite numbers");
  EXPECT_KEY_ERROR("mesh = \"a.stl\"\nrepair = \"close\"\n", "solid[0].repair = \"close\" is not allowed");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\n", "missing key 'solid[0].dimensions'");
  EXPECT_KEY_ERROR("voxels = \"a.vti\"\ndimensions = [1, 1, 1]\n", "is not used with a .vti voxel file");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\narray = \"m\"\n", "only used with a .vti voxel file");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [0, 1, 1]\n", "each dimension must be >= 1");
  EXPECT_KEY_ERROR("voxels = \"a.raw\"\ndimensions = [1, 1, 1]\noffset = [0.5, 0, 0]\n",
                   "the offset must be a whole number of cells");
  EXPECT_KEY_ERROR("voxels = \"a.vti\"\narray = \"\"\n", "solid[0].array = \"\" is not allowed");
}

// ---- the shipped cases and the scripts that make their files --------------------------------------------------------

TEST(ShippedSolidCases, TheScriptsMakeTheDocumentedFiles) {
  EDDY_REQUIRE_VTK();
  // cases/porous_channel.toml and cases/vehicle_channel.toml with the files their comments' commands make, in a
  // temporary copy of cases/: the numbers cases/README.md quotes, a closed vehicle mesh (no odd ray), the vehicle
  // channel's u_max = F H^2 / (8 nu) equal to its physics.velocity.
  test::TempDir dir;
  const std::string source = EDDY_SOURCE_DIR;
  for (const char* name : {"porous_channel.toml", "vehicle_channel.toml"}) {
    fs::copy_file(source + "/cases/" + name, dir.file(name));
  }
  const std::string run = "python3 '" + source + "/scripts/";
  ASSERT_EQ(std::system((run + "make_vehicle_stl.py' '" + dir.file("vehicle.stl") + "' > /dev/null").c_str()), 0);
  ASSERT_EQ(std::system((run + "make_sphere_pack.py' '" + dir.file("sphere_pack.raw") +
                         "' --size 96 48 48 --radius 5 --fraction 0.25 --seed 1 > /dev/null")
                            .c_str()),
            0);
  CaseConfig porous = load_case(dir.file("porous_channel.toml"));
  EXPECT_EQ(porous.name, "porous_channel");
  EXPECT_LE(porous.mach(), 0.3);
  load_solid_files(porous);
  EXPECT_EQ(porous.solids[0].voxel_grid->count, 54993);
  CaseConfig vehicle = load_case(dir.file("vehicle_channel.toml"));
  EXPECT_EQ(vehicle.name, "vehicle_channel");
  EXPECT_NEAR(vehicle.body_force[0] * 32.0 * 32.0 / (8.0 * vehicle.nu), vehicle.velocity, 0.01 * vehicle.velocity);
  load_solid_files(vehicle);
  EXPECT_EQ(vehicle.solids[0].surface->triangles.size(), 3072u);
  EXPECT_NEAR(vehicle.solids[0].surface->volume, 9898.49, 0.01);
  const BlockSolids solids(vehicle, serial_decomposition(vehicle));
  EXPECT_EQ(solids.summary()[0].odd_columns, 0);
  EXPECT_EQ(solids.summary()[0].cells, 9912);
  const BlockSolids pack(porous, serial_decomposition(porous));
  EXPECT_EQ(pack.summary()[0].cells, 54993);
}

TEST(ShippedSolidCases, TheVehicleVoxelsAreTheMeshBody) {
  EDDY_REQUIRE_VTK();
  // scripts/make_vehicle_voxels.py marks the cells whose centre lies inside the exact body; the STL of
  // scripts/make_vehicle_stl.py approximates the same body by facets inscribed in it (chords of the sections'
  // arcs and of the nose's convex outline), read with VTK and voxelised by eddy. Placed alike (vehicle_channel.toml:
  // scale 48, nose at x = 24, centred on y = 24, bottom at z = 3), every cell of the mesh is a cell of the voxel file,
  // and the file's extra cells are those whose centre falls between a facet and the exact surface: a thin shell.
  test::TempDir dir;
  const std::string source = EDDY_SOURCE_DIR;
  fs::copy_file(source + "/cases/vehicle_channel.toml", dir.file("vehicle_channel.toml"));
  const std::string run = "python3 '" + source + "/scripts/";
  ASSERT_EQ(std::system((run + "make_vehicle_stl.py' '" + dir.file("vehicle.stl") + "' > /dev/null").c_str()), 0);
  ASSERT_EQ(std::system((run + "make_vehicle_voxels.py' '" + dir.file("vehicle.raw") +
                         "' --scale 48 --translate 24 24 3 > /dev/null")
                            .c_str()),
            0);
  CaseConfig vehicle = load_case(dir.file("vehicle_channel.toml"));
  load_solid_files(vehicle);
  const BlockSolids solids(vehicle, serial_decomposition(vehicle));
  const std::string bytes = test::read_text(dir.file("vehicle.raw"));
  const int lo[3] = {24, 15, 3}, n[3] = {48, 18, 14};  // the bounding box of the body's cells, in whole cells
  ASSERT_EQ(bytes.size(), std::size_t(n[0]) * n[1] * n[2]);
  int mesh_only = 0, voxels_only = 0, both = 0;
  for (int z = 1; z <= vehicle.size[2]; ++z)  // block cells: the ghost layer is cell 0
    for (int y = 1; y <= vehicle.size[1]; ++y)
      for (int x = 1; x <= vehicle.size[0]; ++x) {
        std::array<std::int64_t, 3> g;  // the global cell
        const bool mesh = solids.solid_at(x, y, z, g) == 0;
        const int i = int(g[0]) - lo[0], j = int(g[1]) - lo[1], k = int(g[2]) - lo[2];
        const bool voxel = i >= 0 && i < n[0] && j >= 0 && j < n[1] && k >= 0 && k < n[2] &&
                           bytes[std::size_t(i) + std::size_t(n[0]) * (j + std::size_t(n[1]) * k)] != 0;
        mesh_only += mesh && !voxel;
        voxels_only += voxel && !mesh;
        both += mesh && voxel;
      }
  std::cout << "[ vehicle ] mesh and voxels: " << both << " cells in both, " << voxels_only << " in the voxels only, "
            << mesh_only << " in the mesh only\n";
  EXPECT_EQ(both, 9912);
  EXPECT_EQ(mesh_only, 0);
  EXPECT_LT(voxels_only, 0.01 * both);
}

TEST(ShippedSolidCases, TheHighReynoldsVehicleMatchesItsVoxelFile) {
  // cases/vehicle_re1e6.toml with the file its header's command makes: the [[solid]] keys are what the script prints
  // (dimensions, offset, the projected area as reference_area), and the case's Re, LES and sponge layers are those
  // its header and cases/README.md state.
  test::TempDir dir;
  const std::string source = EDDY_SOURCE_DIR;
  fs::copy_file(source + "/cases/vehicle_re1e6.toml", dir.file("vehicle_re1e6.toml"));
  const std::string printed = dir.file("printed.txt");
  ASSERT_EQ(std::system(("python3 '" + source + "/scripts/make_vehicle_voxels.py' '" + dir.file("vehicle_voxels.raw") +
                         "' --scale 128 --translate 192 128 6 > '" + printed + "'")
                            .c_str()),
            0);
  const CaseConfig c = load_case(dir.file("vehicle_re1e6.toml"));
  ASSERT_EQ(c.solids.size(), 1u);
  const SolidConfig& body = c.solids[0];
  std::ostringstream expected;
  expected << "dimensions = [" << body.dimensions[0] << ", " << body.dimensions[1] << ", " << body.dimensions[2]
           << "], offset = [" << body.offset[0] << ", " << body.offset[1] << ", " << body.offset[2]
           << "], 189944 solid voxels, projected area along x " << body.reference_area << " cells^2";
  EXPECT_NE(test::read_text(printed).find(expected.str()), std::string::npos) << test::read_text(printed);
  EXPECT_EQ(c.size, (std::array<int, 3>{768, 256, 192}));
  EXPECT_DOUBLE_EQ(c.reynolds, 1e6);
  EXPECT_NEAR(c.tau, 0.5 + 3.0 * 0.05 * 128 / 1e6, 1e-15);
  EXPECT_EQ(c.les, LesModel::smagorinsky);
  EXPECT_EQ(c.smagorinsky_constant, 0.17);
  EXPECT_EQ(c.faces[0].kind, FaceKind::velocity_inlet);
  EXPECT_EQ(c.faces[0].sponge, 64.0);
  EXPECT_EQ(c.faces[1].kind, FaceKind::pressure_outlet);
  EXPECT_EQ(c.faces[1].sponge, 128.0);
  EXPECT_EQ(c.faces[1].sponge_tau, kDefaultSpongeTau);
  EXPECT_EQ(c.faces[4].kind, FaceKind::moving_wall);
  EXPECT_DOUBLE_EQ(c.faces[4].velocity[0], c.velocity);  // the ground moves with the free stream
}

// ---- the eddy binary ---------------------------------------------------------------------------------------------

struct EddyRun {
  int code = -1;
  std::string out, err;
};

/// Runs `eddy run <case>` in `dir` (output under it), capturing stdout and stderr.
EddyRun run_eddy(const test::TempDir& dir, const std::string& case_text) {
  test::write_text(dir.file("case.toml"), case_text);
  const std::string command = "cd '" + dir.path().string() + "' && OMP_NUM_THREADS=1 '" + EDDY_EXECUTABLE +
                              "' run case.toml --output out </dev/null >stdout.txt 2>stderr.txt";
  const int status = std::system(command.c_str());
  EddyRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::read_text(dir.file("stdout.txt"));
  r.err = test::read_text(dir.file("stderr.txt"));
  return r;
}

std::string channel_case(const std::string& solids) {
  return "[domain]\nsize = [24, 20, 20]\nperiodic = [true, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "body_force = [1e-5, 0, 0]\n[run]\nsteps = 4\n[output]\nvtk = false\n" +
         solids;
}

void expect_one_error_line(const EddyRun& r, int code, const std::string& fragment) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("eddy: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "'" << r.err << "' lacks '" << fragment << "'";
}

TEST(SolidFilesCli, ExitCodesMessagesAndStartUpLines) {
  EDDY_REQUIRE_VTK();
  test::TempDir dir;
  const TriangleMesh ball = uv_sphere({12.3, 10.2, 9.8}, 5.5, 12, 24);
  test::write_binary_stl(dir.file("ball.stl"), ball);
  TriangleMesh open = ball;
  open.triangles.erase(open.triangles.begin() + 100, open.triangles.begin() + 104);
  test::write_binary_stl(dir.file("open.stl"), open);
  // A closed mesh: the start-up lines give its triangles, cells and the voxelisation time.
  EddyRun r = run_eddy(dir, channel_case("[[solid]]\nname = \"ball\"\nmesh = \"ball.stl\"\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("solid       'ball' mesh "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": 528 triangles, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s on the device (+"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  // A missing file: 8, one line naming it.
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"car\"\nmesh = \"car.stl\"\n"));
  expect_one_error_line(r, 8, "case.toml: solid[0].mesh ('car'): cannot read mesh file '");
  EXPECT_NE(r.err.find("car.stl': not found"), std::string::npos) << r.err;
  // An open mesh: 2 with the number of odd rays; accepted with repair = "fill", with a warning.
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"ball\"\nmesh = \"open.stl\"\n"));
  expect_one_error_line(r, 2, "rays along x through the domain's cell centres cross the mesh an odd number of times");
  const std::size_t of = r.err.find(" of the 400 rays");
  ASSERT_NE(of, std::string::npos) << r.err;
  const std::string count = r.err.substr(r.err.rfind(' ', of - 1) + 1, of - r.err.rfind(' ', of - 1) - 1);
  EXPECT_GT(std::stoi(count), 0) << r.err;
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"ball\"\nmesh = \"open.stl\"\nrepair = \"fill\"\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: solid 'ball': " + count + " of 400 rays along x cross the mesh an odd number"),
            std::string::npos)
      << r.out;
  // A malformed .vti: one line, VTK's own XML parser's message held back (it printed a second, coloured line).
  test::write_text(dir.file("garbage.vti"), "garbage\n");
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"rock\"\nvoxels = \"garbage.vti\"\n"));
  expect_one_error_line(r, 2, "case.toml: solid[0].voxels ('rock'): cannot read voxel file");
  // A mesh that covers every cell: no fluid left, 2; one that covers none: a warning.
  test::write_binary_stl(dir.file("all.stl"), test::box_mesh({-1, -1, -1}, {30, 30, 30}));
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"all\"\nmesh = \"all.stl\"\n"));
  expect_one_error_line(r, 2, "the solids cover every cell of the domain");
  test::write_binary_stl(dir.file("speck.stl"), test::box_mesh({3.6, 3.6, 3.6}, {3.9, 3.9, 3.9}));
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"speck\"\nmesh = \"speck.stl\"\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: solid 'speck' covers no cell"), std::string::npos) << r.out;
  // Plates thinner than a cell: one between the cell centres vanishes (no cell), one around them thickens to a
  // whole cell (256 cells for 0.6 x 15.6^2 = 146 cells^3): both warned about; a thick slab is not.
  test::write_binary_stl(dir.file("gap.stl"), test::box_mesh({4.05, 2.2, 2.2}, {4.45, 17.8, 17.8}));
  test::write_binary_stl(dir.file("plate.stl"), test::box_mesh({8.2, 2.2, 2.2}, {8.8, 17.8, 17.8}));
  test::write_binary_stl(dir.file("slab.stl"), test::box_mesh({14.05, 2.2, 2.2}, {19.45, 17.8, 17.8}));
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"gap\"\nmesh = \"gap.stl\"\n[[solid]]\nname = \"plate\"\n"
                                 "mesh = \"plate.stl\"\n[[solid]]\nname = \"slab\"\nmesh = \"slab.stl\"\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: solid 'gap' covers no cell"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: solid 'plate' covers 256 cells but encloses 146.016 cells^3 (more than 25 % apart): "
                       "parts thinner than a cell vanish"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("warning: solid 'slab'"), std::string::npos) << r.out;
}

TEST(SolidFilesCli, RawVoxelFilesWithoutVtkAndMeshesRefusedWithoutIt) {
  test::TempDir dir;
  EddyRun r;
  if (!EDDY_TEST_WITH_VTK) {  // a build without VTK: a mesh solid is refused with one line, exit 2
    test::write_binary_stl(dir.file("ball.stl"), uv_sphere({12.3, 10.2, 9.8}, 5.5, 12, 24));
    r = run_eddy(dir, channel_case("[[solid]]\nname = \"ball\"\nmesh = \"ball.stl\"\n"));
    expect_one_error_line(r, 2, "this eddy was built without VTK (EDDY_WITH_VTK=OFF), whose readers mesh solids need");
  }
  // A voxel file of the wrong size: 2, naming the file and both sizes; a raw file needs no VTK.
  test::write_text(dir.file("rock.raw"), std::string(100, '\1'));
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"rock\"\nvoxels = \"rock.raw\"\ndimensions = [10, 10, 2]\n"));
  expect_one_error_line(r, 2, "rock.raw' has 100 bytes, but dimensions = [10, 10, 2] need 200");
  r = run_eddy(dir, channel_case("[[solid]]\nname = \"rock\"\nvoxels = \"rock.raw\"\ndimensions = [10, 5, 2]\n"
                                 "offset = [3, 4, 5]\n"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("100 solid voxels at offset (3, 4, 5), 100 cells"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace eddy
