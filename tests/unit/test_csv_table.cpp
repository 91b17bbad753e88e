// Unit tests of the CSV tables (io/csv_table.hpp) and of the atomic file replacement (io/atomic_file.hpp) that
// every io/ writer goes through. No VTK needed: this file also runs in builds with EDDY_WITH_VTK=OFF.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "tests/file_helpers.hpp"
#include "io/case_config.hpp"
#include "io/csv_table.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;

using test::has_temporary_files;
using test::read_text;
using test::write_text;

using test::TempDir;

/// Calls `read` and returns the InputError message it throws ("" and a test failure if it does not throw).
template <class F>
std::string input_error_of(F&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError";
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- write_csv / read_csv ---------------------------------------------------------------------------------------

TEST(CsvTable, WriteThenReadGivesBackEveryValueExactly) {
  TempDir dir;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CsvTable table;
  table.names = {"y", "u", "v"};
  table.columns = {{0.0, 0.1, 1.0 / 3.0, -2.5e-300, 1.0},
                   {-0.0, 1e300, std::numeric_limits<double>::denorm_min(), nan, -0.21090},
                   {1.0, 2.0, 3.0, 4.0, 0.30000000000000004}};
  const std::string path = dir.file("profile.csv");
  write_csv(path, table);

  const std::string text = read_text(path);
  EXPECT_EQ(text.rfind("y,u,v\n0,-0,1\n0.10000000000000001,", 0), 0u) << text;  // 17 significant digits
  EXPECT_FALSE(has_temporary_files(dir.path()));

  const CsvTable back = read_csv(path);
  ASSERT_EQ(back.names, table.names);
  ASSERT_EQ(back.columns.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    ASSERT_EQ(back.columns[c].size(), 5u);
    for (std::size_t r = 0; r < 5; ++r) {
      if (std::isnan(table.columns[c][r])) {
        EXPECT_TRUE(std::isnan(back.columns[c][r]));
      } else {
        EXPECT_EQ(back.columns[c][r], table.columns[c][r]) << table.names[c] << " row " << r;
        EXPECT_EQ(std::signbit(back.columns[c][r]), std::signbit(table.columns[c][r]));
      }
    }
  }
  EXPECT_EQ(back.column("v")[4], 0.30000000000000004);
}

TEST(CsvTable, WriteReplacesAnOlderFileAndCreatesDirectories) {
  TempDir dir;
  const std::string path = dir.file("out/sub/t.csv");
  write_csv(path, CsvTable{{"a"}, {{1.0, 2.0}}});
  write_csv(path, CsvTable{{"b"}, {{3.0}}});
  EXPECT_EQ(read_text(path), "b\n3\n");
}

TEST(CsvTable, WriteRejectsMalformedTables) {
  TempDir dir;
  const std::string path = dir.file("t.csv");
  EXPECT_THROW(write_csv(path, CsvTable{{"a", "b"}, {{1.0, 2.0}, {3.0}}}), std::invalid_argument);
  EXPECT_THROW(write_csv(path, CsvTable{{"a", "b"}, {{1.0}}}), std::invalid_argument);
  EXPECT_THROW(write_csv(path, CsvTable{{"a,b"}, {{1.0}}}), std::invalid_argument);
  EXPECT_THROW(write_csv(path, CsvTable{}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path));
}

TEST(CsvTable, WriteIntoAnUnwritableLocationThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("plain"), "keep");
  try {
    write_csv(dir.file("plain/t.csv"), CsvTable{{"a"}, {{1.0}}});
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_TRUE(contains(e.what(), "plain")) << e.what();
  }
  EXPECT_EQ(read_text(dir.file("plain")), "keep");
}

TEST(CsvTable, ReadsReferenceStyleFilesWithCommentsBlankLinesAndSpaces) {
  TempDir dir;
  const std::string path = dir.file("reference.csv");
  write_text(path,
             "# reference.csv\n"
             "# Some author (1982) TABLE I: horizontal velocity u/U along the vertical centreline x = 0.5, versus y.\n"
             "#   continued comment line, with, commas, 1.0, 2.0\n"
             "\n"
             "y,u_Re100,u_Re400\n"
             "0.0000,0.00000,0.00000\n"
             "# a comment between rows\n"
             "  0.0547 , -0.03717,-0.08186\r\n"
             "\n"
             "0.0625,+4.192e-2,\n"
             "1.0000,1.00000,1.00000");  // no final newline
  const CsvTable table = read_csv(path);
  ASSERT_EQ(table.names, (std::vector<std::string>{"y", "u_Re100", "u_Re400"}));
  EXPECT_EQ(table.column("y"), (std::vector<double>{0.0, 0.0547, 0.0625, 1.0}));
  EXPECT_EQ(table.column("u_Re100"), (std::vector<double>{0.0, -0.03717, 0.04192, 1.0}));
  const std::vector<double>& u400 = table.column("u_Re400");
  ASSERT_EQ(u400.size(), 4u);
  EXPECT_EQ(u400[1], -0.08186);
  EXPECT_TRUE(std::isnan(u400[2]));  // empty cell
}

TEST(CsvTable, HeaderOnlyGivesEmptyColumns) {
  TempDir dir;
  write_text(dir.file("h.csv"), "# only a header\na,b\n");
  const CsvTable table = read_csv(dir.file("h.csv"));
  ASSERT_EQ(table.names.size(), 2u);
  EXPECT_TRUE(table.column("a").empty());
  EXPECT_TRUE(table.column("b").empty());
}

TEST(CsvTable, MissingColumnNamesTheAvailableOnes) {
  const CsvTable table{{"y", "u_Re100"}, {{0.0}, {1.0}}};
  const std::string message = input_error_of([&] { table.column("u_Re1000"); });
  EXPECT_TRUE(contains(message, "u_Re1000")) << message;
  EXPECT_TRUE(contains(message, "y, u_Re100")) << message;
}

TEST(CsvTable, RaggedRowIsAnInputErrorWithFileAndLine) {
  TempDir dir;
  const std::string path = dir.file("ragged.csv");
  write_text(path, "# comment\ny,u\n0,1\n0.5,2,3\n");
  const std::string message = input_error_of([&] { read_csv(path); });
  EXPECT_TRUE(contains(message, path + ":4:")) << message;
  EXPECT_TRUE(contains(message, "expected 2 cells, found 3")) << message;

  write_text(path, "y,u\n0\n");
  const std::string short_row = input_error_of([&] { read_csv(path); });
  EXPECT_TRUE(contains(short_row, path + ":2:")) << short_row;
}

TEST(CsvTable, NonNumericCellIsAnInputErrorWithFileLineAndColumn) {
  TempDir dir;
  const std::string path = dir.file("text.csv");
  for (const std::string bad : {"abc", "1.5x", "1,5e", "--1", "0x10", "1e999"}) {
    write_text(path, "y,u\n\n0,1\n2," + bad + "\n");
    const std::string message = input_error_of([&] { read_csv(path); });
    EXPECT_TRUE(contains(message, path + ":4:")) << bad << ": " << message;
    if (bad.find(',') == std::string::npos) {
      EXPECT_TRUE(contains(message, "column 'u'")) << message;
      EXPECT_TRUE(contains(message, "'" + bad + "'")) << message;
    }
  }
}

TEST(CsvTable, MissingOrHeaderlessFileIsAnInputErrorNamingTheFile) {
  TempDir dir;
  const std::string missing = dir.file("does_not_exist.csv");
  const std::string message = input_error_of([&] { read_csv(missing); });
  EXPECT_TRUE(contains(message, missing)) << message;
  EXPECT_TRUE(contains(message, "No such file")) << message;

  const std::string empty = dir.file("comments_only.csv");
  write_text(empty, "# nothing\n\n");
  EXPECT_TRUE(contains(input_error_of([&] { read_csv(empty); }), empty));
  EXPECT_TRUE(contains(input_error_of([&] { read_csv(dir.path().string()); }), dir.path().string()));

  const std::string duplicate = dir.file("duplicate.csv");
  write_text(duplicate, "y,y\n1,2\n");
  EXPECT_TRUE(contains(input_error_of([&] { read_csv(duplicate); }), duplicate + ":1:"));
}

// ---- atomic file replacement ------------------------------------------------------------------------------------

TEST(AtomicFile, TemporaryNameIsPathDotTmpDotPid) {
  EXPECT_EQ(temporary_name("out/a.vti"), "out/a.vti.tmp." + std::to_string(::getpid()));
}

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.file("new/dir/f.txt");
  write_file_atomically(path, "first");
  EXPECT_EQ(read_text(path), "first");
  const std::string big(3 << 20, 'z');
  write_file_atomically(path, big);
  EXPECT_EQ(read_text(path), big);
  write_file_atomically(path, "");
  EXPECT_EQ(read_text(path), "");
  EXPECT_FALSE(has_temporary_files(dir.path() / "new" / "dir"));
}

TEST(AtomicFile, FailureLeavesTheOlderFileUntouched) {
  TempDir dir;
  const std::string path = dir.file("f.txt");
  write_text(path, "old");
  fs::create_directories(temporary_name(path) + "/x");  // the temporary file cannot be created
  try {
    write_file_atomically(path, "new");
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
    EXPECT_TRUE(contains(e.what(), "Is a directory")) << e.what();
  }
  EXPECT_EQ(read_text(path), "old");
  EXPECT_TRUE(fs::is_directory(temporary_name(path) + "/x"));
}

TEST(AtomicFile, PathUnderARegularFileThrowsOutputError) {
  TempDir dir;
  write_text(dir.file("plain"), "keep");
  EXPECT_THROW(write_file_atomically(dir.file("plain/f.txt"), "x"), OutputError);
  EXPECT_THROW(ensure_writable_directory(dir.file("plain")), OutputError);
  EXPECT_THROW(ensure_writable_directory(dir.file("plain/sub")), OutputError);
  EXPECT_EQ(read_text(dir.file("plain")), "keep");
}

TEST(AtomicFile, CommitFailureRemovesTheTemporaryFileAndKeepsTheTarget) {
  TempDir dir;
  const std::string target = dir.file("target");
  fs::create_directories(target + "/inside");  // rename cannot replace a non-empty directory by a file
  const std::string tmp = temporary_name(target);
  write_text(tmp, "data");
  EXPECT_THROW(commit_temporary_file(tmp, target), OutputError);
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_TRUE(fs::is_directory(target + "/inside"));
  EXPECT_THROW(commit_temporary_file(dir.file("missing.tmp"), dir.file("t2")), OutputError);
  EXPECT_FALSE(fs::exists(dir.file("t2")));
}

TEST(AtomicFile, RefusesToReplaceAFifoOrADirectory) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    write_file_atomically(fifo, "data");  // rename would have replaced the FIFO by a regular file
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), fifo + ": exists and is not a regular file; refusing to replace it (a FIFO)");
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(has_temporary_files(dir.path()));

  // commit_temporary_file too: the target stays, the temporary file goes.
  const std::string tmp = temporary_name(fifo);
  write_text(tmp, "data");
  EXPECT_THROW(commit_temporary_file(tmp, fifo), OutputError);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(fs::exists(tmp));

  const std::string empty_dir = dir.file("empty_dir");
  fs::create_directories(empty_dir);
  try {
    write_file_atomically(empty_dir, "data");
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_TRUE(contains(e.what(), empty_dir + ": exists and is not a regular file; refusing to replace it"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "a directory")) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(empty_dir));
  EXPECT_FALSE(has_temporary_files(dir.path()));
}

TEST(AtomicFile, ASymlinkIsFollowedAndKept) {
  TempDir dir;
  fs::create_directories(dir.file("sub"));
  const std::string real = dir.file("sub/real.txt");
  write_text(real, "old");
  const std::string link = dir.file("link.txt");
  fs::create_symlink("sub/real.txt", link);  // relative to the link's directory
  write_file_atomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), fs::path("sub/real.txt"));
  EXPECT_EQ(read_text(real), "new");
  EXPECT_FALSE(has_temporary_files(dir.path()));
  EXPECT_FALSE(has_temporary_files(dir.path() / "sub"));

  // A chain of links, the last one absolute.
  const std::string chain = dir.file("chain.txt");
  fs::create_symlink(fs::absolute(link), chain);
  write_file_atomically(chain, "via chain");
  EXPECT_TRUE(fs::is_symlink(chain));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(real), "via chain");

  // commit_temporary_file with the temporary file next to the link (as write_vti does).
  const std::string tmp = temporary_name(link);
  write_text(tmp, "committed");
  commit_temporary_file(tmp, link);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(real), "committed");
  EXPECT_FALSE(fs::exists(tmp));

  // A dangling link: its target is created, in its directory.
  const std::string dangling = dir.file("dangling.txt");
  fs::create_symlink("sub/new.txt", dangling);
  write_file_atomically(dangling, "created");
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_EQ(read_text(dir.file("sub/new.txt")), "created");
  // A dangling link into a directory that does not exist: refused, and no directory is made there.
  const std::string nowhere = dir.file("nowhere.txt");
  fs::create_symlink("missing/deeper/new.txt", nowhere);
  try {
    write_file_atomically(nowhere, "x");
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_TRUE(contains(e.what(), "whose directory does not exist")) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.file("missing")));

  // A link to a FIFO is refused like the FIFO itself.
  const std::string fifo = dir.file("sub/pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string to_fifo = dir.file("to_fifo");
  fs::create_symlink(fifo, to_fifo);
  try {
    write_file_atomically(to_fifo, "data");
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_TRUE(contains(e.what(), to_fifo + ": exists and is not a regular file; refusing to replace it")) << e.what();
    EXPECT_TRUE(contains(e.what(), fifo)) << e.what();
  }
  EXPECT_TRUE(fs::is_symlink(to_fifo));
  EXPECT_TRUE(fs::is_fifo(fifo));

  // A loop of links is an error, not a hang.
  fs::create_symlink("loop_b", dir.file("loop_a"));
  fs::create_symlink("loop_a", dir.file("loop_b"));
  EXPECT_THROW(write_file_atomically(dir.file("loop_a"), "x"), OutputError);
  EXPECT_TRUE(fs::is_symlink(dir.file("loop_a")));
}

TEST(AtomicFile, EnsureWritableDirectoryCreatesParents) {
  TempDir dir;
  ensure_writable_directory(dir.file("a/b/c"));
  EXPECT_TRUE(fs::is_directory(dir.file("a/b/c")));
  ensure_writable_directory(dir.file("a/b/c"));  // existing: fine
}

}  // namespace
}  // namespace eddy
