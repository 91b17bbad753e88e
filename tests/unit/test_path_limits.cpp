// Path limits (io/path_limits.hpp) and the names of a case's temporary files (solver/output_directory.hpp).
#include <gtest/gtest.h>
#include <mpi.h>  // OPEN_MPI
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/path_limits.hpp"
#include "solver/output_directory.hpp"

namespace {

namespace fs = std::filesystem;

TEST(PathLimits, MpiIoNameLimitShrinksWithTheDigitsOfTheLastRank) {
#ifdef OPEN_MPI
  // "<name>.locktest.<rank>" in 256 bytes (Open MPI's sharedfp/lockedfile), measured with Open MPI 4.1.4.
  EXPECT_EQ(eddy::mpi_io_name_limit(1), 244u);
  EXPECT_EQ(eddy::mpi_io_name_limit(10), 244u);
  EXPECT_EQ(eddy::mpi_io_name_limit(11), 243u);
  EXPECT_EQ(eddy::mpi_io_name_limit(101), 242u);
#else
  EXPECT_EQ(eddy::mpi_io_name_limit(11), eddy::kPathLimit);
#endif
}

TEST(PathLimits, MpiIoNameIsShortOrAbsent) {
  const fs::path dir = fs::temp_directory_path() / ("eddy_path_limits_" + std::to_string(::getpid()));
  const fs::path deep = dir / std::string(250, 'd');
  fs::create_directories(deep);
  const std::size_t limit = eddy::mpi_io_name_limit(2);
  {
    const eddy::MpiIoName shortname("out/a.data", 2);
    EXPECT_EQ(shortname.name(), "out/a.data");  // short names pass as they are
    const eddy::MpiIoName deep_name((deep / "a.data").string(), 2);
    ASSERT_TRUE(deep_name.found());
    EXPECT_LE(deep_name.name().size(), limit);
    EXPECT_TRUE(fs::equivalent(fs::path(deep_name.name()).parent_path(), deep));
    EXPECT_TRUE(eddy::MpiIoName::possible((deep / "missing" / "a.data").string(), 2));
    const std::string too_long = (deep / (std::string(240, 'n') + ".data")).string();
    EXPECT_FALSE(eddy::MpiIoName(too_long, 2).found());
    EXPECT_FALSE(eddy::MpiIoName::possible(too_long, 2));
    EXPECT_NE(eddy::mpi_io_name_problem(too_long, 2).find(std::to_string(too_long.size()) + " characters"),
              std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(PathLimits, CaseTemporaryFilesAreRecognisedByName) {
  for (const char* file : {"cav.pvd.tmp.12", "cav_00000100.vti.tmp.4242", "cav_00000100_r3.vti.tmp.1",
                           "cav_00000100.pvti.tmp.9", "cav_particles.pvd.tmp.5", "cav_particles_00000100.vtp.tmp.5",
                           "cav_particles_00000100_r0.vtp.tmp.5", "cav_particles_00000100.pvtp.tmp.5",
                           "cav_centerlines.csv.tmp.77", "cav_checkpoint_00000010.data.tmp",
                           "cav_checkpoint_00000010.data.tmp.31", "cav_checkpoint_00000010.toml.tmp.31",
                           "cav_slice_mid.pvd.tmp.3", "cav_slice_z64_00000100.vti.tmp.3",
                           "cav_slice_a_b_00000100_r2.vti.tmp.3", "cav_slice_mid_00000100.pvti.tmp.3"}) {
    EXPECT_TRUE(eddy::is_case_temporary(file, "cav")) << file;
  }
  for (const char* file : {"cav_00000100.vti", "cav.pvd", "cavity_00000100.vti.tmp.1", "other.pvd.tmp.1",
                           "cav_notes.txt.tmp.1", "cav_00000100.vti.tmp.x", "cav_checkpoint_00000010.data.tmpx",
                           "cav_checkpoint_abc.data.tmp", "cav_00000100_r.vti.tmp.1", "eddy.lock",
                           "cav_slice_mid.vti.tmp.1", "cav_slice__00000100.vti.tmp.1",
                           "cav_slice_mid_00000100_r1.pvti.tmp.1", "cav_slice_mid_x.vti.tmp.1"}) {
    EXPECT_FALSE(eddy::is_case_temporary(file, "cav")) << file;
  }
}

}  // namespace
