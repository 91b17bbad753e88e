// Compression of the VTK files ([output] compression, io/vtk_compression.hpp): every file eddy writes through VTK
// (the .vti snapshots and the pieces a .pvti joins, the solids' surfaces and the particles' .vtp), written with
// "zlib" or "lz4", read back with VTK's own readers (as ParaView reads them) gives exactly the arrays of the raw
// file; the header names the compressor; compressed files of a smooth field are smaller; "none" is byte for byte
// the file written without the key. Through the eddy command line in SI ([units]) on 1 rank, on 2 ranks (mpiexec)
// and out of core. A bad value exits 2 naming the key: tests/unit/test_cli_errors.cpp, test_case_config.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <vtkAbstractArray.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkLZ4DataCompressor.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "io/particle_output.hpp"
#include "io/surface_output.hpp"
#include "io/vtk_compression.hpp"
#include "io/vtk_output.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/vtk_read.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;
using test::write_text;
using test::Arrays;
using test::ArrayValues;
using test::read_arrays;

constexpr std::array<VtkCompression, 3> kAll = {VtkCompression::none, VtkCompression::zlib, VtkCompression::lz4};


/// The XML header of a VTK file: its text up to the appended data.
std::string header_of(const std::string& path) {
  const std::string text = read_text(path);
  return text.substr(0, text.find("<AppendedData"));
}

/// What the header of a file written with `compression` says: compressor="<VTK class>", or no compressor at all.
void expect_header_names(const std::string& path, VtkCompression compression) {
  const std::string header = header_of(path);
  EXPECT_NE(header.find("header_type=\"UInt64\""), std::string::npos) << path << ":\n" << header;
  EXPECT_NE(header.find("format=\"appended\""), std::string::npos) << path << ":\n" << header;
  EXPECT_NE(read_text(path).find("<AppendedData encoding=\"raw\">"), std::string::npos) << path;
  switch (compression) {
    case VtkCompression::none:
      EXPECT_EQ(header.find("compressor="), std::string::npos) << path << ":\n" << header;
      break;
    case VtkCompression::zlib:
      EXPECT_NE(header.find("compressor=\"vtkZLibDataCompressor\""), std::string::npos) << path << ":\n" << header;
      break;
    case VtkCompression::lz4:
      EXPECT_NE(header.find("compressor=\"vtkLZ4DataCompressor\""), std::string::npos) << path << ":\n" << header;
      break;
  }
}

std::string name_of(VtkCompression c) { return std::string(vtk_compression_name(c)); }

/// A smooth field on a 48 x 32 x 24 grid, as in a channel's mean flow: a parabolic streamwise velocity over y with a
/// small spanwise wave in z, no wall-normal velocity, the density varying gently in y (velocity and density constant
/// along x) and a scalar varying in x and y.
template <class T>
struct SmoothField {
  GridGeometry grid;
  std::vector<T> rho, ux, uy, uz, phi;
  std::vector<PointField<T>> fields;

  SmoothField() {
    grid.size = {48, 32, 24};
    grid.spacing = {1e-3, 1e-3, 1e-3};
    grid.origin = {5e-4, 5e-4, 5e-4};
    grid.length_units = "m";
    grid.time_units = "s";
    const std::size_t n = std::size_t(48) * 32 * 24;
    for (std::vector<T>* v : {&rho, &ux, &uy, &uz, &phi}) v->resize(n);
    const double pi = std::acos(-1.0);
    for (int k = 0; k < 24; ++k) {
      for (int j = 0; j < 32; ++j) {
        for (int i = 0; i < 48; ++i) {
          const std::size_t m = std::size_t(i) + 48 * (std::size_t(j) + 32 * std::size_t(k));
          const double y = (j + 0.5) / 32.0, z = (k + 0.5) / 24.0, x = (i + 0.5) / 48.0;
          rho[m] = T(1000.0 * (1.0 + 1e-4 * std::cos(2 * pi * y)));
          ux[m] = T(0.6 * y * (1 - y) * (1.0 + 0.01 * std::sin(2 * pi * z)));
          uy[m] = T(0.0);
          uz[m] = T(1e-3 * std::sin(2 * pi * z) * std::sin(pi * y));
          phi[m] = T(std::sin(2 * pi * x) * std::sin(pi * y));
        }
      }
    }
    fields = {{"density", {rho.data()}, "kg/m^3", {}},
              {"velocity", {ux.data(), uy.data(), uz.data()}, "m/s", {}},
              {"phi", {phi.data()}, "", {}}};
  }
};

template <class T>
class VtiCompression : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VtiCompression, FloatTypes);

TYPED_TEST(VtiCompression, EachCompressorReadsBackTheRawArraysInSmallerFilesNamedInTheHeader) {
  using T = TypeParam;
  TempDir dir;
  const SmoothField<T> field;
  std::map<VtkCompression, std::uintmax_t> bytes;
  for (VtkCompression c : kAll) {
    const std::string path = dir.file(name_of(c) + ".vti");
    write_vti<T>(path, field.grid, field.fields, 0.25, c);
    bytes[c] = fs::file_size(path);
    expect_header_names(path, c);
  }
  // The default argument is none: the same bytes.
  write_vti<T>(dir.file("default.vti"), field.grid, field.fields, 0.25);
  EXPECT_EQ(read_text(dir.file("default.vti")), read_text(dir.file("none.vti")));

  // The raw file holds the source values exactly; the compressed ones give back exactly the raw file's arrays.
  const Arrays raw = read_arrays(dir.file("none.vti"));
  ASSERT_EQ(raw.count("point/velocity"), 1u);
  const ArrayValues& u = raw.at("point/velocity");
  EXPECT_EQ(u.type, (std::is_same_v<T, float> ? VTK_FLOAT : VTK_DOUBLE));
  ASSERT_EQ(u.numbers.size(), 3 * field.ux.size());
  for (std::size_t m = 0; m < field.ux.size(); ++m) {
    ASSERT_EQ(T(u.numbers[3 * m]), field.ux[m]) << m;
    ASSERT_EQ(T(u.numbers[3 * m + 2]), field.uz[m]) << m;
    ASSERT_EQ(T(raw.at("point/density").numbers[m]), field.rho[m]) << m;
  }
  for (VtkCompression c : {VtkCompression::zlib, VtkCompression::lz4}) {
    const Arrays back = read_arrays(dir.file(name_of(c) + ".vti"));
    ASSERT_EQ(back.size(), raw.size()) << name_of(c);
    for (const auto& [name, values] : raw) {
      ASSERT_EQ(back.count(name), 1u) << name_of(c) << ": " << name;
      EXPECT_TRUE(back.at(name) == values) << name_of(c) << ": " << name << " differs from the raw file's";
    }
    EXPECT_LT(bytes[c], bytes[VtkCompression::none]) << name_of(c);
  }
  std::cout << "[ sizes    ] " << (std::is_same_v<T, float> ? "float" : "double") << " 48 x 32 x 24, 5 components:";
  for (VtkCompression c : kAll) std::cout << " " << name_of(c) << " " << bytes[c] << " B";
  std::cout << "\n";
}

TEST(VtkCompressionLevels, Lz4AtLevelNineIsLz4sDefaultAcceleration) {
  // VTK maps compression level 9 to LZ4's acceleration 1 (LZ4's own default): the documented choice.
  vtkNew<vtkLZ4DataCompressor> lz4;
  lz4->SetCompressionLevel(kVtkLz4Level);
  EXPECT_EQ(lz4->GetAccelerationLevel(), 1);
  EXPECT_EQ(kVtkZlibLevel, 1);
}

TEST(VtpCompression, SurfacesAndParticlesReadBackTheRawArrays) {
  TempDir dir;
  // A tetrahedron and a second one shifted: two solids.
  SurfaceMesh a{"a", 1, {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {0, 0, 4}}, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}};
  SurfaceMesh b = a;
  b.name = "b";
  b.label = 2;
  for (auto& p : b.points) p[0] += 7.25;
  std::array<std::vector<double>, 3> x, v;
  std::vector<double> d;
  std::vector<std::int64_t> id;
  for (int p = 0; p < 500; ++p) {
    for (int a = 0; a < 3; ++a) {
      x[a].push_back(10.0 + 3.0 * std::sin(0.01 * p + a));
      v[a].push_back(0.01 * std::cos(0.02 * p + a));
    }
    d.push_back(0.5);
    id.push_back(p);
  }
  std::map<VtkCompression, std::uintmax_t> bytes;
  for (VtkCompression c : kAll) {
    const std::string surfaces = dir.file("solids_" + name_of(c) + ".vtp");
    write_surfaces_vtp(surfaces, {a, b}, 100.0, "m", c);
    expect_header_names(surfaces, c);
    const std::string particles = dir.file("particles_" + name_of(c) + ".vtp");
    write_vtp(particles, x, v, d, id, 100.0, 0.5, 0.125, c);
    expect_header_names(particles, c);
    bytes[c] = fs::file_size(particles);
  }
  write_surfaces_vtp(dir.file("solids_default.vtp"), {a, b}, 100.0, "m");
  EXPECT_EQ(read_text(dir.file("solids_default.vtp")), read_text(dir.file("solids_none.vtp")));
  write_vtp(dir.file("particles_default.vtp"), x, v, d, id, 100.0, 0.5, 0.125);
  EXPECT_EQ(read_text(dir.file("particles_default.vtp")), read_text(dir.file("particles_none.vtp")));
  for (const std::string kind : {"solids_", "particles_"}) {
    const Arrays raw = read_arrays(dir.file(kind + "none.vtp"));
    ASSERT_GT(raw.at("points").numbers.size(), 0u) << kind;
    for (VtkCompression c : {VtkCompression::zlib, VtkCompression::lz4}) {
      const Arrays back = read_arrays(dir.file(kind + name_of(c) + ".vtp"));
      ASSERT_EQ(back.size(), raw.size()) << kind << name_of(c);
      for (const auto& [name, values] : raw) {
        ASSERT_EQ(back.count(name), 1u) << kind << name_of(c) << ": " << name;
        EXPECT_TRUE(back.at(name) == values) << kind << name_of(c) << ": " << name << " differs from the raw file's";
      }
    }
  }
  // 500 particles with constant diameter and consecutive ids: the compressed files are smaller.
  EXPECT_LT(bytes[VtkCompression::zlib], bytes[VtkCompression::none]);
  EXPECT_LT(bytes[VtkCompression::lz4], bytes[VtkCompression::none]);
}

// ---- Through the eddy command line ---------------------------------------------------------------------------------

/// In SI: dx = 1 mm, a 24 x 16 x 8 channel driven by a body force; snapshots of density, velocity and vorticity
/// every 2 steps.
const std::string kChannel =
    "[domain]\nsize = [24, 16, 8]\nperiodic = [true, false, true]\n[units]\ndx = 0.001\nvelocity = 0.5\n"
    "viscosity = 1e-4\nlattice_velocity = 0.05\n[physics]\nlength = 10\nbody_force = [1e-4, 0, 0]\n"
    "[run]\nsteps = 4\n";
/// The channel with a sphere and a box (their surfaces: case_solids.vtp; the solid labels in the snapshots).
const std::string kSolidsCase =
    kChannel + "[output]\nevery = 2\nfields = [\"density\", \"velocity\", \"vorticity\", \"solid\"]\n" +
    "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.008, 0.008, 0.004]\nradius = 0.003\n"
    "wall = \"halfway\"\n"  // out of core too (interpolated walls run in core only)
    "[[solid]]\nname = \"brick\"\nshape = \"box\"\nmin = [0.009, 0.004, 0.0]\nmax = [0.015, 0.009, 0.005]\n"
    "wall = \"halfway\"\n";
/// The channel with tracer particles (case_particles_<step>.vtp, or pieces and a .pvtp); particles and solids are
/// not yet run together, nor particles out of core.
const std::string kParticlesCase =
    kChannel + "[output]\nevery = 2\nfields = [\"density\", \"velocity\", \"vorticity\"]\n" +
    "[particles]\nkind = \"tracer\"\ncount = 40\nseed = 3\nbox_min = [0.001, 0.001, 0.001]\n"
    "box_max = [0.023, 0.015, 0.007]\n";

/// Runs eddy on `ranks` ranks (test::run_eddy_ranks under this build's mpiexec).
int run_eddy(const TempDir& dir, const std::string& out, int ranks, const std::string& args, std::string& log) {
  return test::run_eddy_ranks(dir, out, ranks, args, log, EDDY_TEST_MPIEXEC);
}

/// The VTK files of a run's output directory (.vti, .pvti, .vtp, .pvtp, .pvd), by name.
std::set<std::string> vtk_files(const fs::path& dir) {
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".vti" || ext == ".pvti" || ext == ".vtp" || ext == ".pvtp" || ext == ".pvd") {
      files.insert(entry.path().filename().string());
    }
  }
  return files;
}

std::string set_compression(VtkCompression c) { return "--set 'output.compression=\"" + name_of(c) + "\"'"; }

TEST(CompressionThroughEddy, NoneIsByteForByteTheRunWithoutTheKey) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  for (const std::string& text : {kSolidsCase, kParticlesCase}) {
    TempDir dir;
    write_text(dir.file("case.toml"), text);
    std::string log;
    ASSERT_EQ(run_eddy(dir, "plain", 1, "", log), 0) << log;
    ASSERT_EQ(run_eddy(dir, "none", 1, set_compression(VtkCompression::none), log), 0) << log;
    const std::set<std::string> files = vtk_files(dir.path() / "plain");
    EXPECT_EQ(files, vtk_files(dir.path() / "none"));
    EXPECT_EQ(files.count("case_00000004.vti"), 1u);
    const bool solids = text == kSolidsCase;
    EXPECT_EQ(files.count(solids ? "case_solids.vtp" : "case_particles_00000004.vtp"), 1u);
    for (const std::string& file : files) {
      EXPECT_EQ(read_text((dir.path() / "plain" / file).string()), read_text((dir.path() / "none" / file).string()))
          << file << " differs";
    }
  }
}

/// Runs the case with none, zlib and lz4 (`ranks`, `args`) and checks every compressed VTK file against the raw one:
/// the same files, the header naming the compressor, VTK's readers giving the same arrays (a .pvti read with the
/// parallel reader, which joins the compressed pieces); the data files together smaller. .pvti, .pvtp and .pvd hold
/// no data: the same bytes.
void check_compressed_runs(const std::string& case_text, int ranks, const std::string& args, const std::string& what) {
  TempDir dir;
  write_text(dir.file("case.toml"), case_text);
  std::string log;
  std::map<VtkCompression, std::uintmax_t> bytes;
  for (VtkCompression c : kAll) {
    ASSERT_EQ(run_eddy(dir, name_of(c), ranks, set_compression(c) + " " + args, log), 0) << what << "\n" << log;
    for (const std::string& file : vtk_files(dir.path() / name_of(c))) {
      bytes[c] += fs::file_size(dir.path() / name_of(c) / file);
    }
  }
  const std::set<std::string> files = vtk_files(dir.path() / "none");
  const std::string snapshot = ranks > 1 ? "case_00000004.pvti" : "case_00000004.vti";
  ASSERT_EQ(files.count(snapshot), 1u) << what;
  if (ranks > 1) ASSERT_EQ(files.count("case_00000004_r1.vti"), 1u) << what;
  if (case_text == kSolidsCase) {
    ASSERT_EQ(files.count("case_solids.vtp"), 1u) << what;
  } else {
    ASSERT_EQ(files.count(ranks > 1 ? "case_particles_00000004_r1.vtp" : "case_particles_00000004.vtp"), 1u) << what;
  }
  for (VtkCompression c : {VtkCompression::zlib, VtkCompression::lz4}) {
    const fs::path here = dir.path() / name_of(c);
    EXPECT_EQ(vtk_files(here), files) << what << ", " << name_of(c);
    for (const std::string& file : files) {
      const std::string raw = (dir.path() / "none" / file).string();
      const std::string packed = (here / file).string();
      const std::string ext = fs::path(file).extension().string();
      if (ext == ".pvd" || ext == ".pvtp") {
        EXPECT_EQ(read_text(packed), read_text(raw)) << what << ", " << name_of(c) << ": " << file;
        continue;
      }
      if (ext != ".pvti") expect_header_names(packed, c);
      if (ext == ".pvti") EXPECT_EQ(read_text(packed), read_text(raw)) << what << ", " << name_of(c) << ": " << file;
      const Arrays expected = read_arrays(raw);
      const Arrays back = read_arrays(packed);
      ASSERT_EQ(back.size(), expected.size()) << what << ", " << name_of(c) << ": " << file;
      for (const auto& [name, values] : expected) {
        ASSERT_EQ(back.count(name), 1u) << what << ", " << name_of(c) << ": " << file << " " << name;
        EXPECT_TRUE(back.at(name) == values) << what << ", " << name_of(c) << ": " << file << " " << name;
      }
    }
    EXPECT_LT(bytes[c], bytes[VtkCompression::none]) << what << ", " << name_of(c);
  }
  // The snapshot is in SI and holds the fields asked for.
  const Arrays snap = read_arrays((dir.path() / "zlib" / snapshot).string());
  for (const char* name : {"point/density", "point/velocity", "point/vorticity", "field/units"}) {
    EXPECT_EQ(snap.count(name), 1u) << what << ": " << name;
  }
  if (case_text == kSolidsCase) EXPECT_EQ(snap.count("point/solid"), 1u) << what;
  if (snap.count("field/units")) {
    const auto& units = snap.at("field/units").text;
    EXPECT_NE(std::find(units.begin(), units.end(), "velocity: m/s"), units.end()) << what;
  }
  std::cout << "[ sizes    ] " << what << ", all VTK files:";
  for (VtkCompression c : kAll) std::cout << " " << name_of(c) << " " << bytes[c] << " B";
  std::cout << "\n";
}

TEST(CompressionThroughEddy, OneRankInSi) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_compressed_runs(kSolidsCase, 1, "", "1 rank, solids");
  check_compressed_runs(kParticlesCase, 1, "", "1 rank, particles");
}

TEST(CompressionThroughEddy, TwoRanksPiecesJoinedByThePvti) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_compressed_runs(kSolidsCase, 2, "--set 'parallel.ranks=[2,1,1]'", "2 ranks, solids");
  check_compressed_runs(kParticlesCase, 2, "--set 'parallel.ranks=[2,1,1]'", "2 ranks, particles");
}

TEST(CompressionThroughEddy, OutOfCore) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_compressed_runs(kSolidsCase, 1, "--set numerics.out_of_core=true --set numerics.slabs=2",
                        "out of core, solids");
}

}  // namespace
}  // namespace eddy
