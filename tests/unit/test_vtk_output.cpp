// Unit tests of the VTK output (io/vtk_output.hpp): .vti snapshots read back with VTK's own XML reader, the file
// layout ParaView relies on (appended raw data, UInt64 headers), atomic replacement and errors; the .pvd collection.
#include <gtest/gtest.h>
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

#include <array>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "io/atomic_file.hpp"
#include "tests/file_helpers.hpp"
#include "io/output_error.hpp"
#include "io/vtk_output.hpp"

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
  EXPECT_FALSE(fs::exists(dir.file("x.vti")));
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

TEST(PvdCollection, UnwritableLocationThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("plain_file"), "x");
  PvdCollection pvd(dir.file("plain_file/run.pvd"));
  EXPECT_THROW(pvd.add(0.0, "a.vti"), OutputError);
}

}  // namespace
}  // namespace eddy
