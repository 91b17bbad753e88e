// What eddy writes for ParaView about the [[solid]] bodies (VTK builds; read back with VTK's readers):
//   - the `solid` output field: 0 in fluid, 1 + the solid's index in its cells (the first solid where two overlap),
//     against labels computed here from the shapes' definitions, in core and out of core (the same array), and in
//     the .pvti of a run on several ranks (tests/mpi);
//   - <case>_solids.vtp: one triangle list per solid with cell data "solid" and the names, its points in SI under
//     [units] on the sphere's surface; listed as part 1 with every snapshot of the .pvd, also after a restart.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkStringArray.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "solver/solid_surface.hpp"
#include "tests/file_helpers.hpp"

namespace eddy {
namespace {

using test::read_text;
using test::TempDir;
using test::write_text;

/// In SI: dx = 1 mm, a 24 x 16 x 8 channel; a sphere of radius 3 mm at (8, 8, 4) mm and a box from (9, 4, 0) to
/// (15, 9, 5) mm that overlaps it (the sphere, listed first, keeps the shared cells).
const std::string kCase =
    "[domain]\nsize = [24, 16, 8]\nperiodic = [true, false, true]\n[units]\ndx = 0.001\nvelocity = 0.5\n"
    "viscosity = 1e-4\nlattice_velocity = 0.05\n[physics]\nlength = 10\nbody_force = [1e-4, 0, 0]\n"
    "[run]\nsteps = 4\n[output]\nevery = 2\nfields = [\"density\", \"solid\"]\n[checkpoint]\nevery = 2\n"
    "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.008, 0.008, 0.004]\nradius = 0.003\n"
    "wall = \"halfway\"\n"  // out of core too (interpolated walls run in core only)
    "[[solid]]\nname = \"brick\"\nshape = \"box\"\nmin = [0.009, 0.004, 0.0]\nmax = [0.015, 0.009, 0.005]\n"
    "wall = \"halfway\"\n";

int run_eddy(const TempDir& dir, const std::string& args, std::string& out) {
  const std::string command = "cd '" + dir.path().string() + "' && OMP_NUM_THREADS=1 '" + std::string(EDDY_EXECUTABLE) +
                              "' run case.toml --output out " + args + " </dev/null >stdout.txt 2>&1";
  const int status = std::system(command.c_str());
  out = read_text(dir.file("stdout.txt"));
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The label of cell (i, j, k) worked out from the two shapes in cells.
int expected_label(int i, int j, int k) {
  const double x = i + 0.5, y = j + 0.5, z = k + 0.5;
  if ((x - 8) * (x - 8) + (y - 8) * (y - 8) + (z - 4) * (z - 4) <= 9.0) return 1;
  if (x >= 9 && x <= 15 && y >= 4 && y <= 9 && z >= 0 && z <= 5) return 2;
  return 0;
}

/// The "solid" array of `vti`, node by node (x fastest).
std::vector<double> solid_array(const std::string& vti) {
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(vti.c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  vtkDataArray* solid = image ? image->GetPointData()->GetArray("solid") : nullptr;
  if (!solid) {
    ADD_FAILURE() << vti << " has no point array 'solid'";
    return {};
  }
  std::vector<double> values(std::size_t(solid->GetNumberOfTuples()));
  for (vtkIdType n = 0; n < solid->GetNumberOfTuples(); ++n) values[std::size_t(n)] = solid->GetTuple1(n);
  return values;
}

TEST(SolidField, LabelsEverySolidCellInCoreAndOutOfCore) {
  TempDir dir;
  write_text(dir.file("case.toml"), kCase);
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const std::vector<double> labels = solid_array(dir.file("out/case_00000004.vti"));
  ASSERT_EQ(labels.size(), std::size_t(24 * 16 * 8));
  int counts[3] = {0, 0, 0};
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 24; ++i) {
        const int want = expected_label(i, j, k);
        ++counts[want];
        ASSERT_EQ(labels[std::size_t(i + 24 * (j + 16 * k))], double(want)) << i << " " << j << " " << k;
      }
  EXPECT_GT(counts[1], 50);  // both bodies are there, the box shorn of the sphere's cells
  EXPECT_GT(counts[2], 50);
  ASSERT_EQ(run_eddy(dir, "--set numerics.out_of_core=true --set numerics.slabs=2", out), 0) << out;
  EXPECT_NE(out.find("out-of-core"), std::string::npos) << out;
  EXPECT_EQ(solid_array(dir.file("out/case_00000004.vti")), labels);
}

TEST(SolidSurfacesFile, ReadBackAndListedWithEverySnapshot) {
  TempDir dir;
  write_text(dir.file("case.toml"), kCase);
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  EXPECT_NE(out.find("wrote out/case_solids.vtp"), std::string::npos) << out;
  vtkNew<vtkXMLPolyDataReader> reader;
  reader->SetFileName(dir.file("out/case_solids.vtp").c_str());
  reader->Update();
  vtkPolyData* poly = reader->GetOutput();
  ASSERT_NE(poly, nullptr);
  const vtkIdType sphere_triangles = 2 * kSphereSegments * kSphereRings;
  ASSERT_EQ(poly->GetNumberOfPolys(), sphere_triangles + 12);
  vtkDataArray* solid = poly->GetCellData()->GetArray("solid");
  ASSERT_NE(solid, nullptr);
  for (vtkIdType c = 0; c < poly->GetNumberOfCells(); ++c)
    ASSERT_EQ(solid->GetTuple1(c), c < sphere_triangles ? 1.0 : 2.0) << c;
  auto* names = vtkStringArray::SafeDownCast(poly->GetFieldData()->GetAbstractArray("solid_names"));
  ASSERT_NE(names, nullptr);
  ASSERT_EQ(names->GetNumberOfValues(), 2);
  EXPECT_EQ(names->GetValue(0), "ball");
  EXPECT_EQ(names->GetValue(1), "brick");
  // SI: the sphere's vertices lie 3 mm from (8, 8, 4) mm; the box's corners at its metres.
  const vtkIdType sphere_points = 2 + kSphereRings * kSphereSegments;
  for (vtkIdType p = 0; p < sphere_points; ++p) {
    double x[3];
    poly->GetPoint(p, x);
    ASSERT_NEAR(std::hypot(x[0] - 0.008, x[1] - 0.008, x[2] - 0.004), 0.003, 1e-15) << p;
  }
  double corner[3];
  poly->GetPoint(poly->GetNumberOfPoints() - 1, corner);  // the last corner: max
  EXPECT_NEAR(corner[0], 0.015, 1e-15);
  EXPECT_NEAR(corner[1], 0.009, 1e-15);
  EXPECT_NEAR(corner[2], 0.005, 1e-15);
  // The .pvd: snapshots 0, 2, 4, each with the surfaces as part 1.
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  std::string pvd = read_text(dir.file("out/case.pvd"));
  EXPECT_EQ(count(pvd, "part=\"0\""), 3u) << pvd;
  EXPECT_EQ(count(pvd, "part=\"1\" file=\"case_solids.vtp\""), 3u) << pvd;
  // A restart lists the earlier snapshots and its own, each once with the surfaces.
  ASSERT_EQ(run_eddy(dir, "--restart out/checkpoints/case_checkpoint_00000002.toml", out), 0) << out;
  pvd = read_text(dir.file("out/case.pvd"));
  EXPECT_EQ(count(pvd, "part=\"0\""), 3u) << pvd;
  EXPECT_EQ(count(pvd, "part=\"1\" file=\"case_solids.vtp\""), 3u) << pvd;
}

}  // namespace
}  // namespace eddy
