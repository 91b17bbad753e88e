// Unit tests of the particle output (io/particle_output.hpp): .vtp files read back with vtkXMLPolyDataReader (points,
// vertex cells, arrays, scaling, TimeValue, file layout), a rank with no particles, the .pvtp index read back with
// vtkXMLPPolyDataReader over all pieces, the particles' .pvd collection and the file names, and output errors.
#include <gtest/gtest.h>
#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkType.h>
#include <vtkVariant.h>
#include <vtkXMLDataElement.h>
#include <vtkXMLDataParser.h>
#include <vtkXMLPPolyDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "solver/errors.hpp"
#include "io/particle_output.hpp"
#include "io/vtk_output.hpp"
#include "tests/file_helpers.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;

using test::has_temporary_files;
using test::read_text;
using test::TempDir;
using test::write_text;

/// n particles with distinct, non-round values (structure of arrays, as write_vtp takes them).
struct SampleParticles {
  std::array<std::vector<double>, 3> x, v;
  std::vector<double> d;
  std::vector<std::int64_t> id;
  SampleParticles(int n, std::int64_t first_id) {
    for (int i = 0; i < n; ++i) {
      for (int a = 0; a < 3; ++a) {
        x[a].push_back(0.1 + 1.7 * i + 0.31 * a + 1.0 / 3.0);
        v[a].push_back((a == 1 ? -1e-3 : 2e-3) * (i + 1) + 1e-5 * a);
      }
      d.push_back(0.5 + 0.125 * i);
      id.push_back(first_id + 3 * i);  // ids need not be contiguous on a rank
    }
  }
  std::size_t size() const { return id.size(); }
};

vtkSmartPointer<vtkPolyData> read_vtp(const std::string& path) {
  vtkNew<vtkXMLPolyDataReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  EXPECT_EQ(reader->GetErrorCode(), 0ul) << path;
  vtkSmartPointer<vtkPolyData> poly = reader->GetOutput();
  return poly;
}

TEST(WriteVtp, VtkReaderGetsBackScaledPointsArraysAndVertices) {
  TempDir dir;
  const SampleParticles p(7, 100);
  const std::string path = dir.file("out/run_particles_00000010.vtp");
  const double L = 32.0, U = 0.05, time = 0.1 + 0.2;
  write_vtp(path, p.x, p.v, p.d, p.id, L, U, time);

  vtkSmartPointer<vtkPolyData> poly = read_vtp(path);
  ASSERT_NE(poly, nullptr);
  ASSERT_EQ(poly->GetNumberOfPoints(), 7);
  EXPECT_EQ(poly->GetPoints()->GetDataType(), VTK_DOUBLE);
  ASSERT_EQ(poly->GetNumberOfVerts(), 7);
  EXPECT_EQ(poly->GetNumberOfCells(), 7);  // vertices only: no lines or polygons
  vtkPointData* pd = poly->GetPointData();
  ASSERT_EQ(pd->GetNumberOfArrays(), 3);
  vtkDataArray* velocity = pd->GetArray("velocity");
  vtkDataArray* diameter = pd->GetArray("diameter");
  vtkDataArray* id = pd->GetArray("id");
  ASSERT_NE(velocity, nullptr);
  ASSERT_NE(diameter, nullptr);
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(velocity->GetNumberOfComponents(), 3);
  EXPECT_EQ(velocity->GetDataType(), VTK_DOUBLE);
  EXPECT_EQ(diameter->GetDataType(), VTK_DOUBLE);
  EXPECT_EQ(id->GetDataTypeSize(), 8);
  ASSERT_NE(pd->GetVectors(), nullptr);
  EXPECT_STREQ(pd->GetVectors()->GetName(), "velocity");
  ASSERT_NE(pd->GetScalars(), nullptr);
  EXPECT_STREQ(pd->GetScalars()->GetName(), "diameter");
  for (vtkIdType i = 0; i < 7; ++i) {
    double point[3];
    poly->GetPoint(i, point);
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(point[a], p.x[a][i] / L) << "particle " << i << " axis " << a;
      EXPECT_EQ(velocity->GetComponent(i, a), p.v[a][i] / U) << "particle " << i << " axis " << a;
    }
    EXPECT_EQ(diameter->GetComponent(i, 0), p.d[i] / L);
    EXPECT_EQ(static_cast<std::int64_t>(id->GetComponent(i, 0)), p.id[i]);
  }
  // Vertex i is point i.
  vtkCellArray* verts = poly->GetVerts();
  verts->InitTraversal();
  vtkIdType npts = 0;
  const vtkIdType* pts = nullptr;
  for (vtkIdType i = 0; verts->GetNextCell(npts, pts); ++i) {
    ASSERT_EQ(npts, 1);
    EXPECT_EQ(pts[0], i);
  }
  vtkDataArray* time_value = poly->GetFieldData()->GetArray("TimeValue");
  ASSERT_NE(time_value, nullptr);
  EXPECT_EQ(time_value->GetComponent(0, 0), time);
  EXPECT_FALSE(has_temporary_files(dir.path() / "out"));
}

TEST(WriteVtp, FileIsAppendedRawBinaryWithUInt64HeadersAndInt64Ids) {
  TempDir dir;
  const SampleParticles p(5, 0);
  const std::string path = dir.file("p.vtp");
  write_vtp(path, p.x, p.v, p.d, p.id, 1.0, 1.0, 0.0);
  const std::string text = read_text(path);
  const std::string xml = text.substr(0, text.find("<AppendedData"));
  EXPECT_NE(xml.find("type=\"PolyData\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("header_type=\"UInt64\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("compressor="), std::string::npos) << xml;
  EXPECT_EQ(xml.find("format=\"binary\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("format=\"ascii\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("NumberOfPoints=\"5\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("NumberOfVerts=\"5\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"Int64\" Name=\"id\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\""), std::string::npos) << xml;
  EXPECT_NE(text.find("<AppendedData encoding=\"raw\">"), std::string::npos);
}

TEST(WriteVtp, LargeIdsSurviveExactly) {
  TempDir dir;
  SampleParticles p(2, 0);
  p.id = {(std::int64_t(1) << 53) + 1, 2147483646};  // beyond double precision: read back as integers
  const std::string path = dir.file("ids.vtp");
  write_vtp(path, p.x, p.v, p.d, p.id, 1.0, 1.0, 0.0);
  vtkNew<vtkXMLPolyDataReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  vtkDataArray* id = reader->GetOutput()->GetPointData()->GetArray("id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->GetVariantValue(0).ToTypeInt64(), p.id[0]);
  EXPECT_EQ(id->GetVariantValue(1).ToTypeInt64(), p.id[1]);
}

TEST(WriteVtp, ARankWithoutParticlesWritesAValidEmptyFile) {
  TempDir dir;
  const SampleParticles none(0, 0);
  const std::string path = dir.file("empty.vtp");
  write_vtp(path, none.x, none.v, none.d, none.id, 2.0, 0.1, 1.5);
  vtkSmartPointer<vtkPolyData> poly = read_vtp(path);
  ASSERT_NE(poly, nullptr);
  EXPECT_EQ(poly->GetNumberOfPoints(), 0);
  EXPECT_EQ(poly->GetNumberOfVerts(), 0);
  vtkPointData* pd = poly->GetPointData();
  ASSERT_NE(pd->GetArray("velocity"), nullptr);
  EXPECT_EQ(pd->GetArray("velocity")->GetNumberOfTuples(), 0);
  ASSERT_NE(pd->GetArray("id"), nullptr);
  ASSERT_NE(poly->GetFieldData()->GetArray("TimeValue"), nullptr);
  EXPECT_EQ(poly->GetFieldData()->GetArray("TimeValue")->GetComponent(0, 0), 1.5);
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(WriteVtp, MalformedArgumentsAreRejected) {
  TempDir dir;
  const std::string path = dir.file("x.vtp");
  SampleParticles p(3, 0);
  SampleParticles short_x = p;
  short_x.x[2].pop_back();
  EXPECT_THROW(write_vtp(path, short_x.x, p.v, p.d, p.id, 1.0, 1.0, 0.0), std::invalid_argument);
  SampleParticles short_v = p;
  short_v.v[0].push_back(1.0);
  EXPECT_THROW(write_vtp(path, p.x, short_v.v, p.d, p.id, 1.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(write_vtp(path, p.x, p.v, {1.0}, p.id, 1.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(write_vtp(path, p.x, p.v, p.d, p.id, 0.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(write_vtp(path, p.x, p.v, p.d, p.id, 1.0, -1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(write_vtp(path, p.x, p.v, p.d, p.id, std::nan(""), 1.0, 0.0), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path));
}

TEST(WriteVtp, UnwritableLocationsThrowOutputErrorAndKeepTheOlderFile) {
  TempDir dir;
  const SampleParticles p(3, 0);
  write_text(dir.file("plain_file"), "x");
  try {
    write_vtp(dir.file("plain_file/p.vtp"), p.x, p.v, p.d, p.id, 1.0, 1.0, 0.0);
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("plain_file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(dir.file("plain_file")), "x");

  // The temporary name is taken by a non-empty directory: VTK cannot open it; the older file survives.
  const std::string path = dir.file("p.vtp");
  write_text(path, "older particles");
  fs::create_directories(temporary_name(path) + "/blocker");
  try {
    write_vtp(path, p.x, p.v, p.d, p.id, 1.0, 1.0, 0.0);
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(path), "older particles");
}

// ---- the .pvtp index over the ranks' pieces ----------------------------------------------------------------------

TEST(WritePvtp, ParallelReaderGetsEveryPiecesParticlesIncludingAnEmptyPiece) {
  TempDir dir;
  const double L = 16.0, U = 0.1;
  const std::string stem = particle_snapshot_stem("run", 100);
  // Rank 0: 4 particles, rank 1: none, rank 2: 3 particles; ids unique over all ranks.
  const std::vector<SampleParticles> ranks = {SampleParticles(4, 0), SampleParticles(0, 0), SampleParticles(3, 1)};
  std::vector<std::string> pieces;
  std::map<std::int64_t, std::array<double, 3>> expected;  // id -> scaled position
  for (int r = 0; r < int(ranks.size()); ++r) {
    const SampleParticles& p = ranks[r];
    pieces.push_back(particle_piece_name(stem, r));
    write_vtp(dir.file(pieces.back()), p.x, p.v, p.d, p.id, L, U, 2.0);
    for (std::size_t i = 0; i < p.size(); ++i) expected[p.id[i]] = {p.x[0][i] / L, p.x[1][i] / L, p.x[2][i] / L};
  }
  ASSERT_EQ(expected.size(), 7u);
  const std::string pvtp = dir.file(stem + ".pvtp");
  write_pvtp(pvtp, pieces);

  // The XML ParaView reads.
  vtkNew<vtkXMLDataParser> parser;
  parser->SetFileName(pvtp.c_str());
  ASSERT_EQ(parser->Parse(), 1);
  vtkXMLDataElement* root = parser->GetRootElement();
  ASSERT_NE(root, nullptr);
  EXPECT_STREQ(root->GetAttribute("type"), "PPolyData");
  EXPECT_STREQ(root->GetAttribute("header_type"), "UInt64");
  vtkXMLDataElement* poly_element = root->FindNestedElementWithName("PPolyData");
  ASSERT_NE(poly_element, nullptr);
  EXPECT_STREQ(poly_element->GetAttribute("GhostLevel"), "0");
  vtkXMLDataElement* ppoints = poly_element->FindNestedElementWithName("PPoints");
  ASSERT_NE(ppoints, nullptr);
  ASSERT_EQ(ppoints->GetNumberOfNestedElements(), 1);
  EXPECT_STREQ(ppoints->GetNestedElement(0)->GetAttribute("type"), "Float64");
  int piece_elements = 0;
  for (int e = 0; e < poly_element->GetNumberOfNestedElements(); ++e) {
    vtkXMLDataElement* element = poly_element->GetNestedElement(e);
    if (std::string(element->GetName()) != "Piece") continue;
    EXPECT_STREQ(element->GetAttribute("Source"), pieces[piece_elements].c_str());
    ++piece_elements;
  }
  EXPECT_EQ(piece_elements, 3);

  // VTK's parallel reader joins the pieces.
  vtkNew<vtkXMLPPolyDataReader> reader;
  reader->SetFileName(pvtp.c_str());
  reader->Update();
  ASSERT_EQ(reader->GetErrorCode(), 0ul);
  EXPECT_EQ(reader->GetNumberOfPieces(), 3);
  vtkPolyData* poly = reader->GetOutput();
  ASSERT_NE(poly, nullptr);
  ASSERT_EQ(poly->GetNumberOfPoints(), 7);
  EXPECT_EQ(poly->GetNumberOfVerts(), 7);
  vtkPointData* pd = poly->GetPointData();
  vtkDataArray* id = pd->GetArray("id");
  ASSERT_NE(id, nullptr);
  ASSERT_NE(pd->GetArray("velocity"), nullptr);
  ASSERT_NE(pd->GetArray("diameter"), nullptr);
  ASSERT_NE(pd->GetVectors(), nullptr);
  EXPECT_STREQ(pd->GetVectors()->GetName(), "velocity");
  std::map<std::int64_t, std::array<double, 3>> read;
  for (vtkIdType i = 0; i < poly->GetNumberOfPoints(); ++i) {
    double point[3];
    poly->GetPoint(i, point);
    read[id->GetVariantValue(i).ToTypeInt64()] = {point[0], point[1], point[2]};
  }
  EXPECT_EQ(read, expected);
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(WritePvtp, FileNamesAreEscapedAndArgumentsChecked) {
  TempDir dir;
  const std::string pvtp = dir.file("p.pvtp");
  write_pvtp(pvtp, {"a&b <0>.vtp", "sub/c.vtp"});
  const std::string text = read_text(pvtp);
  EXPECT_NE(text.find("<Piece Source=\"a&amp;b &lt;0&gt;.vtp\"/>"), std::string::npos) << text;
  EXPECT_NE(text.find("<Piece Source=\"sub/c.vtp\"/>"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("<?xml version=\"1.0\"?>\n<VTKFile type=\"PPolyData\" version=\"1.0\"", 0), 0u) << text;
  EXPECT_THROW(write_pvtp(dir.file("q.pvtp"), {}), std::invalid_argument);
  EXPECT_THROW(write_pvtp(dir.file("q.pvtp"), {"a.vtp", ""}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.file("q.pvtp")));
}

TEST(WritePvtp, UnwritableLocationThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("plain_file"), "x");
  EXPECT_THROW(write_pvtp(dir.file("plain_file/p.pvtp"), {"a.vtp"}), OutputError);
  const std::string path = dir.file("p.pvtp");
  write_text(path, "older index");
  fs::create_directories(temporary_name(path) + "/blocker");
  EXPECT_THROW(write_pvtp(path, {"a.vtp"}), OutputError);
  EXPECT_EQ(read_text(path), "older index");
}

// ---- names and the time collection -------------------------------------------------------------------------------

TEST(ParticleOutputNames, FollowTheFluidsPattern) {
  EXPECT_EQ(particle_snapshot_stem("cavity", 0), "cavity_particles_00000000");
  EXPECT_EQ(particle_snapshot_stem("cavity", 123456), "cavity_particles_00123456");
  EXPECT_EQ(particle_snapshot_stem("c", 1234567890), "c_particles_1234567890");
  EXPECT_THROW(particle_snapshot_stem("c", -1), std::invalid_argument);
  EXPECT_EQ(particle_piece_name("cavity_particles_00000100", 3), "cavity_particles_00000100_r3.vtp");
  EXPECT_EQ(particle_collection_path("out/dir", "cavity"), "out/dir/cavity_particles.pvd");
}

TEST(ParticleOutputNames, CollectionListsTheSnapshotsByTimeAndParaViewReadsThem) {
  TempDir dir;
  PvdCollection collection(particle_collection_path(dir.path().string(), "run"));
  const SampleParticles p(2, 0);
  for (std::int64_t step : {0, 50, 100}) {
    const std::string file = particle_snapshot_stem("run", step) + ".vtp";
    write_vtp(dir.file(file), p.x, p.v, p.d, p.id, 1.0, 1.0, double(step) / 100.0);
    collection.add(double(step) / 100.0, file);
  }
  const std::string text = read_text(dir.file("run_particles.pvd"));
  EXPECT_NE(text.find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"run_particles_00000000.vtp\"/>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("<DataSet timestep=\"1\" group=\"\" part=\"0\" file=\"run_particles_00000100.vtp\"/>"),
            std::string::npos)
      << text;
  vtkNew<vtkXMLDataParser> parser;
  parser->SetFileName(dir.file("run_particles.pvd").c_str());
  ASSERT_EQ(parser->Parse(), 1);
  vtkXMLDataElement* collection_element = parser->GetRootElement()->FindNestedElementWithName("Collection");
  ASSERT_NE(collection_element, nullptr);
  EXPECT_EQ(collection_element->GetNumberOfNestedElements(), 3);
  for (int e = 0; e < 3; ++e) {
    const std::string file = collection_element->GetNestedElement(e)->GetAttribute("file");
    EXPECT_EQ(read_vtp(dir.file(file))->GetNumberOfPoints(), 2) << file;
  }
}

}  // namespace
}  // namespace eddy
