// Unit tests of the VTK output (io/vtk_output.hpp): .vti snapshots read back with VTK's own XML reader, the file
// layout ParaView relies on (appended raw data, UInt64 headers), atomic replacement and errors; the .pvd collection;
// pieces of a global grid (GridGeometry::offset) joined by a .pvti (io/pvti_file.hpp), read back with VTK's
// parallel reader.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkType.h>
#include <vtkXMLDataElement.h>
#include <vtkXMLDataParser.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "io/atomic_file.hpp"
#include "solver/errors.hpp"
#include "io/pvti_file.hpp"
#include "io/vtk_output.hpp"
#include "tests/file_helpers.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;

using test::has_temporary_files;
using test::read_text;
using test::write_text;

using test::TempDir;

/// Density (scalar), velocity (3 SoA components) and a second scalar on a small non-cubic grid, filled with
/// reproducible pseudo-random values of both signs.
template <class T>
struct SampleFields {
  GridGeometry grid;
  std::vector<T> rho, ux, uy, uz, phi;
  std::vector<PointField<T>> fields;

  explicit SampleFields(unsigned seed) {
    grid.size = {5, 4, 3};
    grid.origin = {-1.25, 0.5, 3.0e-3};
    grid.spacing = {0.1, 0.25, 2.5e-3};
    const std::size_t n = 5 * 4 * 3;
    std::mt19937 engine(seed);
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (std::vector<T>* v : {&rho, &ux, &uy, &uz, &phi}) {
      v->resize(n);
      for (T& x : *v) x = dist(engine);
    }
    for (T& x : rho) x += T(1);
    fields = {{"density", {rho.data()}}, {"velocity", {ux.data(), uy.data(), uz.data()}}, {"phi", {phi.data()}}};
  }
};

/// Reads `path` with vtkXMLImageDataReader; fails the test (returns nullptr) when VTK cannot read it.
vtkSmartPointer<vtkImageData> read_vti(const std::string& path, vtkXMLImageDataReader* reader) {
  reader->SetFileName(path.c_str());
  reader->Update();
  EXPECT_EQ(reader->GetErrorCode(), 0ul) << path;
  return reader->GetOutput();
}

template <class T>
class VtiRoundTrip : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VtiRoundTrip, FloatTypes);

TYPED_TEST(VtiRoundTrip, VtkReaderGetsBackEveryValueAndTheGeometry) {
  using T = TypeParam;
  TempDir dir;
  const SampleFields<T> sample(42);
  const std::string path = dir.file("snapshot.vti");
  const double time = 0.1 + 0.2;  // not representable in few digits: must survive exactly
  write_vti<T>(path, sample.grid, sample.fields, time);

  vtkNew<vtkXMLImageDataReader> reader;
  vtkSmartPointer<vtkImageData> image = read_vti(path, reader);
  ASSERT_NE(image, nullptr);

  int dims[3];
  image->GetDimensions(dims);
  EXPECT_EQ(dims[0], 5);
  EXPECT_EQ(dims[1], 4);
  EXPECT_EQ(dims[2], 3);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(image->GetOrigin()[a], sample.grid.origin[a]) << "axis " << a;
    EXPECT_EQ(image->GetSpacing()[a], sample.grid.spacing[a]) << "axis " << a;
  }

  vtkPointData* pd = image->GetPointData();
  ASSERT_EQ(pd->GetNumberOfArrays(), 3);
  EXPECT_STREQ(pd->GetArrayName(0), "density");
  EXPECT_STREQ(pd->GetArrayName(1), "velocity");
  EXPECT_STREQ(pd->GetArrayName(2), "phi");
  ASSERT_NE(pd->GetScalars(), nullptr);
  EXPECT_STREQ(pd->GetScalars()->GetName(), "density");
  ASSERT_NE(pd->GetVectors(), nullptr);
  EXPECT_STREQ(pd->GetVectors()->GetName(), "velocity");

  const int vtk_type = std::is_same_v<T, float> ? VTK_FLOAT : VTK_DOUBLE;
  for (const PointField<T>& field : sample.fields) {
    vtkDataArray* array = pd->GetArray(field.name.c_str());
    ASSERT_NE(array, nullptr) << field.name;
    EXPECT_EQ(array->GetDataType(), vtk_type) << field.name;
    const int nc = static_cast<int>(field.components.size());
    ASSERT_EQ(array->GetNumberOfComponents(), nc) << field.name;
    ASSERT_EQ(array->GetNumberOfTuples(), 60) << field.name;
    // Node (i, j, k) is tuple i + nx * (j + ny * k) in both layouts; check the point's position too.
    for (int k = 0; k < 3; ++k) {
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 5; ++i) {
          const int n = i + 5 * (j + 4 * k);
          int ijk[3] = {i, j, k};
          ASSERT_EQ(image->ComputePointId(ijk), n);
          for (int c = 0; c < nc; ++c) {
            ASSERT_EQ(static_cast<T>(array->GetComponent(n, c)), field.components[c][n])
                << field.name << " component " << c << " at (" << i << ", " << j << ", " << k << ")";
          }
        }
      }
    }
  }
  double point[3];
  image->GetPoint(5 * 4 * 3 - 1, point);
  for (int a = 0; a < 3; ++a) {
    EXPECT_DOUBLE_EQ(point[a], sample.grid.origin[a] + (sample.grid.size[a] - 1) * sample.grid.spacing[a]);
  }

  vtkDataArray* time_value = image->GetFieldData()->GetArray("TimeValue");
  ASSERT_NE(time_value, nullptr);
  EXPECT_EQ(time_value->GetNumberOfTuples(), 1);
  EXPECT_EQ(time_value->GetComponent(0, 0), time);
}

TYPED_TEST(VtiRoundTrip, FileIsAppendedRawBinaryWithUInt64Headers) {
  using T = TypeParam;
  TempDir dir;
  const SampleFields<T> sample(7);
  const std::string path = dir.file("layout.vti");
  write_vti<T>(path, sample.grid, sample.fields, 1.0);
  const std::string text = read_text(path);
  const std::string xml = text.substr(0, text.find("<AppendedData"));
  EXPECT_NE(xml.find("type=\"ImageData\""), std::string::npos);
  EXPECT_NE(xml.find("header_type=\"UInt64\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("compressor="), std::string::npos) << xml;
  EXPECT_EQ(xml.find("format=\"binary\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("format=\"ascii\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("format=\"appended\""), std::string::npos) << xml;
  EXPECT_NE(xml.find(std::is_same_v<T, float> ? "type=\"Float32\"" : "type=\"Float64\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("WholeExtent=\"0 4 0 3 0 2\""), std::string::npos) << xml;
  EXPECT_NE(text.find("<AppendedData encoding=\"raw\">"), std::string::npos);
  // Raw data: 60 doubles/floats per scalar, 180 per vector, 8-byte headers, plus the TimeValue array.
  EXPECT_GT(text.size(), (60 + 180 + 60) * sizeof(T));
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(WriteVti, AnArrayOverFourGibibytesReadsBackWithVtksReader) {
  // 1024 x 1024 x 1025 floats = 4,299,161,600 bytes > 2^32: the UInt64 block header carries the size, which a
  // UInt32 header could not. Needs about 9 GB of memory (the array, and VTK's copy when it reads it back) and 4.3 GB
  // of disk: skipped where the machine has less.
  const std::array<int, 3> size = {1024, 1024, 1025};
  const std::size_t n = std::size_t(size[0]) * size[1] * size[2];
  const double bytes = double(n) * sizeof(float);
  ASSERT_GT(bytes, 4294967296.0);
  const double memory = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  TempDir dir;
  const double disk = double(fs::space(dir.path()).available);
  if (memory < 2.3 * bytes || disk < 1.2 * bytes) {
    GTEST_SKIP() << "SKIPPED: needs " << 2.3 * bytes / 1e9 << " GB of free memory and " << 1.2 * bytes / 1e9
                 << " GB of disk; this machine has " << memory / 1e9 << " GB and " << disk / 1e9 << " GB";
  }
  std::vector<float> phi(n);
  for (std::size_t k = 0; k < n; ++k) phi[k] = float(k % 1000003);  // distinct values near the end of the array
  GridGeometry grid;
  grid.size = size;
  const std::string path = dir.file("large.vti");
  write_vti<float>(path, grid, {PointField<float>{"phi", {phi.data()}, "", {}}}, 0.0);
  EXPECT_GT(double(fs::file_size(path)), bytes);
  phi.clear();
  phi.shrink_to_fit();
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  ASSERT_EQ(reader->GetErrorCode(), 0ul);
  vtkDataArray* back = reader->GetOutput()->GetPointData()->GetArray("phi");
  ASSERT_NE(back, nullptr);
  ASSERT_EQ(std::size_t(back->GetNumberOfTuples()), n);
  for (std::size_t k : {std::size_t(0), std::size_t(1) << 30, n - 2, n - 1}) {  // values past the first 4 GiB too
    EXPECT_EQ(back->GetComponent(vtkIdType(k), 0), double(k % 1000003)) << "value " << k;
  }
}

TEST(WriteVti, ReplacesAnOlderFileAndCreatesMissingDirectories) {
  TempDir dir;
  const std::string path = dir.file("a/b/snap.vti");
  SampleFields<float> first(1);
  write_vti<float>(path, first.grid, first.fields, 1.0);
  SampleFields<float> second(2);
  write_vti<float>(path, second.grid, second.fields, 2.0);

  vtkNew<vtkXMLImageDataReader> reader;
  vtkSmartPointer<vtkImageData> image = read_vti(path, reader);
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->GetFieldData()->GetArray("TimeValue")->GetComponent(0, 0), 2.0);
  EXPECT_EQ(static_cast<float>(image->GetPointData()->GetArray("phi")->GetComponent(17, 0)), second.phi[17]);
  EXPECT_FALSE(has_temporary_files(dir.path() / "a" / "b"));
}

TEST(WriteVti, PathUnderARegularFileThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("not_a_directory"), "x");
  const std::string path = dir.file("not_a_directory/snap.vti");
  SampleFields<double> sample(3);
  try {
    write_vti<double>(path, sample.grid, sample.fields, 0.0);
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("not_a_directory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(dir.file("not_a_directory")), "x");
}

TEST(WriteVti, FailedWriteLeavesTheOlderFileUntouched) {
  TempDir dir;
  const std::string path = dir.file("snap.vti");
  write_text(path, "older snapshot");
  // A non-empty directory where the temporary file must go: VTK cannot open it, rename cannot replace it.
  fs::create_directories(temporary_name(path) + "/blocker");
  SampleFields<float> sample(4);
  try {
    write_vti<float>(path, sample.grid, sample.fields, 0.0);
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(path), "older snapshot");
  EXPECT_TRUE(fs::is_directory(temporary_name(path) + "/blocker"));  // not ours: left alone
}

TEST(WriteVti, MalformedFieldsAreRejected) {
  TempDir dir;
  SampleFields<double> sample(5);
  std::vector<PointField<double>> two_components = {{"bad", {sample.ux.data(), sample.uy.data()}}};
  EXPECT_THROW(write_vti<double>(dir.file("x.vti"), sample.grid, two_components, 0.0), std::invalid_argument);
  std::vector<PointField<double>> null_component = {{"bad", {nullptr}}};
  EXPECT_THROW(write_vti<double>(dir.file("x.vti"), sample.grid, null_component, 0.0), std::invalid_argument);
  GridGeometry empty_grid = sample.grid;
  empty_grid.size[1] = 0;
  EXPECT_THROW(write_vti<double>(dir.file("x.vti"), empty_grid, sample.fields, 0.0), std::invalid_argument);
  GridGeometry negative_offset = sample.grid;
  negative_offset.offset[2] = -1;
  EXPECT_THROW(write_vti<double>(dir.file("x.vti"), negative_offset, sample.fields, 0.0), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.file("x.vti")));
}

// ---- Pieces of a global grid and the .pvti that joins them ------------------------------------------------------

TYPED_TEST(VtiRoundTrip, PieceWithAnOffsetKeepsItsGlobalExtentAndPositions) {
  using T = TypeParam;
  TempDir dir;
  SampleFields<T> sample(11);
  sample.grid.offset = {2, 1, 3};  // the 5x4x3 block from global node (2, 1, 3): extent 2..6, 1..4, 3..5
  const std::string path = dir.file("piece.vti");
  write_vti<T>(path, sample.grid, sample.fields, 0.5);

  const std::string text = read_text(path);
  const std::string xml = text.substr(0, text.find("<AppendedData"));
  EXPECT_NE(xml.find("WholeExtent=\"2 6 1 4 3 5\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<Piece Extent=\"2 6 1 4 3 5\""), std::string::npos) << xml;

  vtkNew<vtkXMLImageDataReader> reader;
  vtkSmartPointer<vtkImageData> image = read_vti(path, reader);
  ASSERT_NE(image, nullptr);
  const int* extent = image->GetExtent();
  const int expected_extent[6] = {2, 6, 1, 4, 3, 5};
  for (int e = 0; e < 6; ++e) EXPECT_EQ(extent[e], expected_extent[e]) << "extent entry " << e;
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(image->GetOrigin()[a], sample.grid.origin[a]) << "axis " << a;  // the global origin, not shifted
    EXPECT_EQ(image->GetSpacing()[a], sample.grid.spacing[a]) << "axis " << a;
  }
  vtkPointData* pd = image->GetPointData();
  for (const PointField<T>& field : sample.fields) {
    vtkDataArray* array = pd->GetArray(field.name.c_str());
    ASSERT_NE(array, nullptr) << field.name;
    ASSERT_EQ(array->GetNumberOfTuples(), 60) << field.name;
    for (int k = 0; k < 3; ++k) {
      for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 5; ++i) {
          const int n = i + 5 * (j + 4 * k);  // local node order of the piece
          int global[3] = {i + 2, j + 1, k + 3};
          const vtkIdType id = image->ComputePointId(global);
          ASSERT_EQ(id, n);
          double point[3];
          image->GetPoint(id, point);
          for (int a = 0; a < 3; ++a) {
            ASSERT_DOUBLE_EQ(point[a], sample.grid.origin[a] + global[a] * sample.grid.spacing[a]) << "axis " << a;
          }
          for (int c = 0; c < static_cast<int>(field.components.size()); ++c) {
            ASSERT_EQ(static_cast<T>(array->GetComponent(id, c)), field.components[c][n])
                << field.name << " component " << c << " at local (" << i << ", " << j << ", " << k << ")";
          }
        }
      }
    }
  }
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

/// A random global field (density + velocity) on nx*ny*nz nodes, SoA, x fastest.
template <class T>
struct GlobalField {
  std::array<int, 3> size;
  std::vector<T> rho, ux, uy, uz;
  GlobalField(std::array<int, 3> n, unsigned seed) : size(n) {
    const std::size_t count = std::size_t(n[0]) * n[1] * n[2];
    std::mt19937 engine(seed);
    std::uniform_real_distribution<T> dist(T(-1), T(1));
    for (std::vector<T>* v : {&rho, &ux, &uy, &uz}) {
      v->resize(count);
      for (T& x : *v) x = dist(engine);
    }
  }
  std::size_t index(int i, int j, int k) const { return std::size_t(i) + size[0] * (std::size_t(j) + size[1] * k); }
};

/// Copies the block offset .. offset + size - 1 of `global` into piece-local arrays and writes it with write_vti.
template <class T>
void write_piece(const std::string& path, const GlobalField<T>& global, const GridGeometry& piece, double time) {
  const std::size_t count = std::size_t(piece.size[0]) * piece.size[1] * piece.size[2];
  std::vector<T> rho(count), ux(count), uy(count), uz(count);
  std::size_t n = 0;
  for (int k = 0; k < piece.size[2]; ++k) {
    for (int j = 0; j < piece.size[1]; ++j) {
      for (int i = 0; i < piece.size[0]; ++i, ++n) {
        const std::size_t g = global.index(i + piece.offset[0], j + piece.offset[1], k + piece.offset[2]);
        rho[n] = global.rho[g];
        ux[n] = global.ux[g];
        uy[n] = global.uy[g];
        uz[n] = global.uz[g];
      }
    }
  }
  const std::vector<PointField<T>> fields = {{"density", {rho.data()}},
                                             {"velocity", {ux.data(), uy.data(), uz.data()}}};
  write_vti<T>(path, piece, fields, time);
}

TYPED_TEST(VtiRoundTrip, PiecesJoinedByAPvtiReadBackAsTheGlobalField) {
  using T = TypeParam;
  constexpr bool is_double = std::is_same_v<T, double>;
  TempDir dir;
  const GlobalField<T> global({7, 5, 3}, 2024);
  const std::array<double, 3> origin = {-0.35, 0.5, 1.0 / 3.0};
  const std::array<double, 3> spacing = {0.1, 0.2, 0.3};

  // 2 x 2 pieces in x and y; neighbours share one layer of nodes (x: 0..3 | 3..6, y: 0..2 | 2..4).
  const std::array<std::array<int, 2>, 2> x_ranges = {{{0, 3}, {3, 6}}};
  const std::array<std::array<int, 2>, 2> y_ranges = {{{0, 2}, {2, 4}}};
  std::vector<PvtiPiece> pieces;
  for (int py = 0; py < 2; ++py) {
    for (int px = 0; px < 2; ++px) {
      GridGeometry piece;
      piece.origin = origin;
      piece.spacing = spacing;
      piece.offset = {x_ranges[px][0], y_ranges[py][0], 0};
      piece.size = {x_ranges[px][1] - x_ranges[px][0] + 1, y_ranges[py][1] - y_ranges[py][0] + 1, 3};
      const std::string file = "run_000100/piece_" + std::to_string(pieces.size()) + ".vti";
      write_piece<T>(dir.file(file), global, piece, 1.5);
      pieces.push_back({piece.offset, piece.size, file});
    }
  }
  const std::string pvti = dir.file("run_000100.pvti");
  write_pvti(pvti, global.size, origin, spacing, {{"density", 1, is_double}, {"velocity", 3, is_double}}, pieces);

  // The XML ParaView reads.
  vtkNew<vtkXMLDataParser> parser;
  parser->SetFileName(pvti.c_str());
  ASSERT_EQ(parser->Parse(), 1);
  vtkXMLDataElement* root = parser->GetRootElement();
  ASSERT_NE(root, nullptr);
  EXPECT_STREQ(root->GetName(), "VTKFile");
  EXPECT_STREQ(root->GetAttribute("type"), "PImageData");
  EXPECT_STREQ(root->GetAttribute("version"), "1.0");
  EXPECT_STREQ(root->GetAttribute("byte_order"), "LittleEndian");
  EXPECT_STREQ(root->GetAttribute("header_type"), "UInt64");
  vtkXMLDataElement* image_element = root->FindNestedElementWithName("PImageData");
  ASSERT_NE(image_element, nullptr);
  EXPECT_STREQ(image_element->GetAttribute("WholeExtent"), "0 6 0 4 0 2");
  EXPECT_STREQ(image_element->GetAttribute("GhostLevel"), "0");
  vtkXMLDataElement* point_data = image_element->FindNestedElementWithName("PPointData");
  ASSERT_NE(point_data, nullptr);
  EXPECT_STREQ(point_data->GetAttribute("Scalars"), "density");
  EXPECT_STREQ(point_data->GetAttribute("Vectors"), "velocity");
  ASSERT_EQ(point_data->GetNumberOfNestedElements(), 2);
  for (int a = 0; a < 2; ++a) {
    EXPECT_STREQ(point_data->GetNestedElement(a)->GetAttribute("type"), is_double ? "Float64" : "Float32");
  }
  EXPECT_STREQ(point_data->GetNestedElement(1)->GetAttribute("NumberOfComponents"), "3");
  int piece_elements = 0;
  for (int e = 0; e < image_element->GetNumberOfNestedElements(); ++e) {
    vtkXMLDataElement* element = image_element->GetNestedElement(e);
    if (std::string(element->GetName()) != "Piece") continue;
    EXPECT_STREQ(element->GetAttribute("Source"), pieces[piece_elements].file.c_str());
    ++piece_elements;
  }
  EXPECT_EQ(piece_elements, 4);
  const std::string text = read_text(pvti);  // numbers written exactly (17 significant digits)
  EXPECT_NE(text.find("Origin=\"-0.34999999999999998 0.5 0.33333333333333331\""), std::string::npos) << text;
  EXPECT_NE(text.find("Spacing=\"0.10000000000000001 0.20000000000000001 0.29999999999999999\""), std::string::npos)
      << text;

  // VTK's parallel reader assembles the pieces into the global grid.
  vtkNew<vtkXMLPImageDataReader> reader;
  reader->SetFileName(pvti.c_str());
  reader->Update();
  ASSERT_EQ(reader->GetErrorCode(), 0ul);
  EXPECT_EQ(reader->GetNumberOfPieces(), 4);
  vtkImageData* image = reader->GetOutput();
  ASSERT_NE(image, nullptr);
  const int* extent = image->GetExtent();
  const int expected_extent[6] = {0, 6, 0, 4, 0, 2};
  for (int e = 0; e < 6; ++e) EXPECT_EQ(extent[e], expected_extent[e]) << "extent entry " << e;
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(image->GetOrigin()[a], origin[a]) << "axis " << a;
    EXPECT_EQ(image->GetSpacing()[a], spacing[a]) << "axis " << a;
  }
  ASSERT_EQ(image->GetNumberOfPoints(), 7 * 5 * 3);
  vtkPointData* pd = image->GetPointData();
  ASSERT_NE(pd->GetScalars(), nullptr);
  EXPECT_STREQ(pd->GetScalars()->GetName(), "density");
  ASSERT_NE(pd->GetVectors(), nullptr);
  EXPECT_STREQ(pd->GetVectors()->GetName(), "velocity");
  vtkDataArray* rho = pd->GetArray("density");
  vtkDataArray* u = pd->GetArray("velocity");
  ASSERT_NE(rho, nullptr);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(rho->GetDataType(), is_double ? VTK_DOUBLE : VTK_FLOAT);
  ASSERT_EQ(u->GetNumberOfComponents(), 3);
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 5; ++j) {
      for (int i = 0; i < 7; ++i) {
        int ijk[3] = {i, j, k};
        const vtkIdType id = image->ComputePointId(ijk);
        const std::size_t g = global.index(i, j, k);
        ASSERT_EQ(static_cast<T>(rho->GetComponent(id, 0)), global.rho[g]) << "(" << i << ", " << j << ", " << k << ")";
        ASSERT_EQ(static_cast<T>(u->GetComponent(id, 0)), global.ux[g]) << "(" << i << ", " << j << ", " << k << ")";
        ASSERT_EQ(static_cast<T>(u->GetComponent(id, 1)), global.uy[g]) << "(" << i << ", " << j << ", " << k << ")";
        ASSERT_EQ(static_cast<T>(u->GetComponent(id, 2)), global.uz[g]) << "(" << i << ", " << j << ", " << k << ")";
      }
    }
  }
  EXPECT_FALSE(has_temporary_files(dir.path()));
  EXPECT_FALSE(has_temporary_files(dir.path() / "run_000100"));
}

TEST(WritePvti, TwoPiecesAlongZWithEscapedFileNamesReadBack) {
  TempDir dir;
  const GlobalField<float> global({4, 3, 5}, 9);
  const std::array<double, 3> origin = {0.0, 0.0, 0.0};
  const std::array<double, 3> spacing = {1.0, 1.0, 1.0};
  std::vector<PvtiPiece> pieces;
  const std::array<std::array<int, 2>, 2> z_ranges = {{{0, 2}, {2, 4}}};  // share the layer z = 2
  for (int p = 0; p < 2; ++p) {
    GridGeometry piece;
    piece.offset = {0, 0, z_ranges[p][0]};
    piece.size = {4, 3, z_ranges[p][1] - z_ranges[p][0] + 1};
    const std::string file = "a&b <" + std::to_string(p) + ">.vti";
    write_piece<float>(dir.file(file), global, piece, 0.0);
    pieces.push_back({piece.offset, piece.size, file});
  }
  const std::string pvti = dir.file("joined.pvti");
  write_pvti(pvti, global.size, origin, spacing, {{"density", 1, false}, {"velocity", 3, false}}, pieces);
  EXPECT_NE(read_text(pvti).find("Source=\"a&amp;b &lt;0&gt;.vti\""), std::string::npos) << read_text(pvti);

  vtkNew<vtkXMLPImageDataReader> reader;
  reader->SetFileName(pvti.c_str());
  reader->Update();
  ASSERT_EQ(reader->GetErrorCode(), 0ul);
  vtkImageData* image = reader->GetOutput();
  ASSERT_EQ(image->GetNumberOfPoints(), 4 * 3 * 5);
  vtkDataArray* rho = image->GetPointData()->GetArray("density");
  ASSERT_NE(rho, nullptr);
  for (int k = 0; k < 5; ++k) {
    for (int j = 0; j < 3; ++j) {
      for (int i = 0; i < 4; ++i) {
        int ijk[3] = {i, j, k};
        ASSERT_EQ(static_cast<float>(rho->GetComponent(image->ComputePointId(ijk), 0)),
                  global.rho[global.index(i, j, k)]);
      }
    }
  }
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(WritePvti, WithoutDensityOrVelocityNoActiveAttributes) {
  TempDir dir;
  const std::string pvti = dir.file("p.pvti");
  write_pvti(pvti, {2, 2, 2}, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {{"phi", 1, true}, {"density", 3, true}},
             {{{0, 0, 0}, {2, 2, 2}, "p0.vti"}});
  const std::string text = read_text(pvti);
  EXPECT_NE(text.find("<PPointData>"), std::string::npos) << text;
  EXPECT_EQ(text.find("Scalars="), std::string::npos) << text;
  EXPECT_EQ(text.find("Vectors="), std::string::npos) << text;
  EXPECT_NE(text.find("<PDataArray type=\"Float64\" Name=\"phi\" NumberOfComponents=\"1\"/>"), std::string::npos);
}

TEST(WritePvti, UnwritableLocationThrowsOutputErrorAndLeavesNoTemporaryFile) {
  TempDir dir;
  write_text(dir.file("plain_file"), "x");
  const std::vector<PvtiPiece> pieces = {{{0, 0, 0}, {2, 2, 2}, "p0.vti"}};
  EXPECT_THROW(write_pvti(dir.file("plain_file/run.pvti"), {2, 2, 2}, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0},
                          {{"density", 1, false}}, pieces),
               OutputError);
  EXPECT_EQ(read_text(dir.file("plain_file")), "x");

  // The .pvti's temporary name is taken by a non-empty directory: the write fails, the older file survives.
  const std::string path = dir.file("run.pvti");
  write_text(path, "older index");
  fs::create_directories(temporary_name(path) + "/blocker");
  EXPECT_THROW(write_pvti(path, {2, 2, 2}, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {{"density", 1, false}}, pieces),
               OutputError);
  EXPECT_EQ(read_text(path), "older index");
  fs::remove_all(temporary_name(path));
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(WritePvti, MalformedArgumentsAreRejected) {
  TempDir dir;
  const std::string path = dir.file("x.pvti");
  const std::array<double, 3> o = {0.0, 0.0, 0.0}, h = {1.0, 1.0, 1.0};
  const std::vector<PvtiArray> arrays = {{"density", 1, false}};
  const std::vector<PvtiPiece> ok = {{{0, 0, 0}, {3, 3, 3}, "p.vti"}};
  EXPECT_THROW(write_pvti(path, {3, 0, 3}, o, h, arrays, ok), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, arrays, {}), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, arrays, {{{1, 0, 0}, {3, 3, 3}, "p.vti"}}), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, arrays, {{{0, -1, 0}, {2, 2, 2}, "p.vti"}}), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, arrays, {{{0, 0, 0}, {3, 3, 3}, ""}}), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, {{"u", 2, false}}, ok), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, o, h, {{"a", 1, false}, {"a", 1, true}}, ok), std::invalid_argument);
  EXPECT_THROW(write_pvti(path, {3, 3, 3}, {0.0, std::nan(""), 0.0}, h, arrays, ok), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path));
}

// ---- PvdCollection ----------------------------------------------------------------------------------------------

/// One parsed <DataSet> entry.
struct DataSetEntry {
  double timestep;
  std::string file;
  std::string part;
};

/// Parses a .pvd with VTK's XML parser, checking the VTKFile/Collection structure; returns the DataSet entries.
std::vector<DataSetEntry> parse_pvd(const std::string& path) {
  vtkNew<vtkXMLDataParser> parser;
  parser->SetFileName(path.c_str());
  EXPECT_EQ(parser->Parse(), 1) << path;
  vtkXMLDataElement* root = parser->GetRootElement();
  if (root == nullptr) return {};
  EXPECT_STREQ(root->GetName(), "VTKFile");
  EXPECT_STREQ(root->GetAttribute("type"), "Collection");
  EXPECT_STREQ(root->GetAttribute("version"), "1.0");
  EXPECT_STREQ(root->GetAttribute("byte_order"), "LittleEndian");
  EXPECT_STREQ(root->GetAttribute("header_type"), "UInt64");
  EXPECT_EQ(root->GetNumberOfNestedElements(), 1);
  vtkXMLDataElement* collection = root->FindNestedElementWithName("Collection");
  if (collection == nullptr) {
    ADD_FAILURE() << "no <Collection> in " << path;
    return {};
  }
  std::vector<DataSetEntry> entries;
  for (int e = 0; e < collection->GetNumberOfNestedElements(); ++e) {
    vtkXMLDataElement* dataset = collection->GetNestedElement(e);
    EXPECT_STREQ(dataset->GetName(), "DataSet");
    entries.push_back(
        {std::stod(dataset->GetAttribute("timestep")), dataset->GetAttribute("file"), dataset->GetAttribute("part")});
  }
  return entries;
}

TEST(PvdCollection, ListsEverySnapshotByTimeWithFullPrecision) {
  TempDir dir;
  PvdCollection pvd(dir.file("run.pvd"));
  EXPECT_EQ(pvd.path(), dir.file("run.pvd"));
  const double t2 = 0.1 + 0.2;
  pvd.add(0.0, "run_000000.vti");
  pvd.add(1.0 / 3.0, "run_000100.vti");
  pvd.add(t2, "run_000200.vti");

  const std::string text = read_text(dir.file("run.pvd"));
  EXPECT_EQ(
      text.rfind("<?xml version=\"1.0\"?>\n"
                 "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                 "  <Collection>\n"
                 "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"run_000000.vti\"/>\n",
                 0),
      0u)
      << text;
  EXPECT_NE(text.find("timestep=\"0.33333333333333331\""), std::string::npos) << text;
  EXPECT_NE(text.find("timestep=\"0.30000000000000004\""), std::string::npos) << text;

  const std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].timestep, 0.0);  // sorted by time
  EXPECT_EQ(entries[0].file, "run_000000.vti");
  EXPECT_EQ(entries[1].timestep, t2);
  EXPECT_EQ(entries[1].file, "run_000200.vti");
  EXPECT_EQ(entries[2].timestep, 1.0 / 3.0);
  EXPECT_EQ(entries[2].file, "run_000100.vti");
  for (const DataSetEntry& entry : entries) EXPECT_EQ(entry.part, "0");
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(PvdCollection, AddingAnExistingTimeReplacesItsEntry) {
  TempDir dir;
  PvdCollection pvd(dir.file("run.pvd"));
  pvd.add(0.0, "a.vti");
  pvd.add(0.5, "b.vti");
  pvd.add(1.0, "c.vti");
  pvd.add(0.5, "b_rerun.vti");
  const std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].timestep, 0.5);
  EXPECT_EQ(entries[1].file, "b_rerun.vti");
  EXPECT_EQ(entries[2].file, "c.vti");
}

TEST(PvdCollection, FileNamesAreXmlEscaped) {
  TempDir dir;
  PvdCollection pvd(dir.file("run.pvd"));
  pvd.add(2.0, "a&b <\"x\">.vti");
  const std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].file, "a&b <\"x\">.vti");
}

/// The rule of a restart at time `t_max` that keeps the earlier times as they are.
PvdCollection::ResumeRule up_to(double t_max) {
  return [t_max](double time, const std::string&) -> std::optional<double> {
    if (time <= t_max) return time;
    return std::nullopt;
  };
}

TEST(PvdCollection, ResumeKeepsTheEarlierRunsEntriesUpToTheRestartTime) {
  // A run wrote snapshots at 0, 1/3, 2/3 and 1; a restart from the checkpoint at 2/3 keeps the first three (the
  // later one belongs to the replaced part of the run) and adds its own.
  TempDir dir;
  const double third = 1.0 / 3.0, two_thirds = 2.0 / 3.0;
  const std::string odd_name = "a&b <\"x\">'.vti";
  for (const std::string f : {"run_0.vti", odd_name.c_str(), "run_2.vti", "run_3.vti", "run_new.vti"}) {
    write_text(dir.file(f), "x");
  }
  {
    PvdCollection first(dir.file("run.pvd"));
    first.add(0.0, "run_0.vti");
    first.add(third, odd_name);
    first.add(two_thirds, "run_2.vti");
    first.add(1.0, "run_3.vti");
  }
  PvdCollection restarted(dir.file("run.pvd"));
  EXPECT_EQ(restarted.resume(up_to(two_thirds)), 3u);
  std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 3u);  // rewritten at once: the dropped entry is gone before the next snapshot
  restarted.add(0.75, "run_new.vti");
  entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].file, "run_0.vti");
  EXPECT_EQ(entries[1].timestep, third);  // times round-trip exactly
  EXPECT_EQ(entries[1].file, odd_name);
  EXPECT_EQ(entries[2].timestep, two_thirds);
  EXPECT_EQ(entries[3].timestep, 0.75);
  EXPECT_EQ(entries[3].file, "run_new.vti");
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(PvdCollection, ResumeAppliesTheRuleAndDropsEntriesWhoseFilesAreGone) {
  TempDir dir;
  for (const char* f : {"a.vti", "b.vti", "c.vti"}) write_text(dir.file(f), "x");
  {
    PvdCollection first(dir.file("run.pvd"));
    first.add(1.0, "a.vti");
    first.add(2.0, "b.vti");
    first.add(3.0, "c.vti");
    first.add(4.0, "deleted.vti");
  }
  // A rule that re-times (a changed time scale) and reverses the order: the result is sorted by the new times.
  PvdCollection pvd(dir.file("run.pvd"));
  EXPECT_EQ(pvd.resume([](double t, const std::string&) -> std::optional<double> { return 10.0 - t; }), 3u);
  const std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].file, "c.vti");
  EXPECT_EQ(entries[0].timestep, 7.0);
  EXPECT_EQ(entries[2].file, "a.vti");
}

TEST(PvdCollection, ResumeReadsWellFormedXmlItDidNotWriteItself) {
  // Single quotes, an element with an end tag, a numeric character reference, line breaks in a tag; a commented-out
  // entry is not an entry.
  TempDir dir;
  for (const char* f : {"s&20.vti", "b.vti", "c.vti", "old.vti"}) write_text(dir.file(f), "x");
  write_text(dir.file("run.pvd"),
             "<?xml version=\"1.0\"?>\n<VTKFile type='Collection'>\n<Collection>\n"
             "<!-- <DataSet timestep=\"0.5\" file=\"old.vti\"/> -->\n"
             "<DataSet timestep='1' file='s&#38;20.vti'/>\n"
             "<DataSet\n  file=\"b.vti\" timestep=\"2\"></DataSet>\n"
             "<DataSet timestep = \"3\" file=\"c&#x2E;vti\"/>\n</Collection></VTKFile>\n");
  PvdCollection pvd(dir.file("run.pvd"));
  EXPECT_EQ(pvd.resume(up_to(10.0)), 3u);
  const std::vector<DataSetEntry> entries = parse_pvd(dir.file("run.pvd"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].file, "s&20.vti");
  EXPECT_EQ(entries[1].file, "b.vti");
  EXPECT_EQ(entries[2].file, "c.vti");
}

TEST(PvdCollection, ResumeWithoutAnEarlierFileKeepsNothing) {
  TempDir dir;
  PvdCollection pvd(dir.file("run.pvd"));
  EXPECT_EQ(pvd.resume(up_to(10.0)), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("run.pvd")));
}

TEST(PvdCollection, ResumeOfAFileEddyCannotReadLeavesItAlone) {
  TempDir dir;
  const std::string foreign = "hello, not a collection\n";
  const std::string bad_time =
      "<VTKFile type=\"Collection\"><Collection><DataSet timestep=\"1e\" file=\"a.vti\"/></Collection></VTKFile>";
  const std::string no_file =
      "<VTKFile type=\"Collection\"><Collection><DataSet timestep=\"1\" part=\"0\"/></Collection></VTKFile>";
  const std::string open_comment = "<VTKFile type=\"Collection\"><Collection><!-- <DataSet";
  for (const std::string& text : {foreign, bad_time, no_file, open_comment}) {
    write_text(dir.file("run.pvd"), text);
    PvdCollection pvd(dir.file("run.pvd"));
    try {
      pvd.resume(up_to(5.0));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(dir.file("run.pvd")), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_text(dir.file("run.pvd")), text);
  }
}

TEST(PvdCollection, ResumeRefusesWhatCouldNeverBeRewritten) {
  // A directory or a FIFO at the collection's path: OutputError at once (reading a FIFO would block for good).
  TempDir dir;
  std::filesystem::create_directory(dir.file("dir.pvd"));
  PvdCollection in_dir(dir.file("dir.pvd"));
  EXPECT_THROW(in_dir.resume(up_to(1.0)), OutputError);
  ASSERT_EQ(::mkfifo(dir.file("fifo.pvd").c_str(), 0600), 0);
  PvdCollection fifo(dir.file("fifo.pvd"));
  EXPECT_THROW(fifo.resume(up_to(1.0)), OutputError);
}

TEST(PvdCollection, UnwritableLocationThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("plain_file"), "x");
  PvdCollection pvd(dir.file("plain_file/run.pvd"));
  EXPECT_THROW(pvd.add(0.0, "a.vti"), OutputError);
}

}  // namespace
}  // namespace eddy
