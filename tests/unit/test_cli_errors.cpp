// Runs the real eddy binary (EDDY_EXECUTABLE) on bad input and checks the CLI error contract:
//   `eddy run CASE.toml [--set K=V]... [--output DIR]` reports an input error as exactly one stderr line
//   "eddy: error: <message>" and exits with status 2, with no uncaught exception ("terminate called ...") and no
//   abort. Each bad case is written to a fresh temporary directory that the test removes.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

/// A valid 8 x 8 x 1 lid-driven cavity that runs in a moment; tests break one thing at a time.
std::string valid_case() {
  return "[domain]\nsize = [8, 8, 1]\nperiodic = [false, false, true]\n"
         "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1.0, 0.0, 0.0]\n"
         "[physics]\nvelocity = 0.05\nreynolds = 10\n"
         "[run]\nsteps = 2\n"
         "[output]\nvtk = false\ncenterlines = false\n";
}

/// Replaces the first occurrence of `from` in `text` by `to` (the test fails if there is none).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the case text";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CliResult {
  bool exited = false;  // false: killed by a signal (or system() failed)
  int exit_code = -1;
  std::string out;
  std::string err;
};

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(EDDY_EXECUTABLE)) << "eddy binary not built: " << EDDY_EXECUTABLE;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("eddy_cli_errors_" + std::to_string(::getpid()) + "_" + std::string(info->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// Writes `text` to <tmp>/<name> and returns its path.
  std::string write_case(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  /// Runs `eddy run <args...> --output <tmp>/out`, capturing stdout and stderr.
  CliResult run_eddy(const std::vector<std::string>& args) const {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--output", (dir_ / "out").string()});
    return eddy_command("run", all);
  }

  /// Runs `eddy bench <args...>` (tiny sizes only), capturing stdout and stderr.
  CliResult bench_eddy(const std::vector<std::string>& args) const { return eddy_command("bench", args); }

  /// Runs `eddy <subcommand> <args...>` with no stdin, capturing stdout and stderr in the test's directory.
  CliResult eddy_command(const std::string& subcommand, const std::vector<std::string>& args) const {
    std::string command = "exec " + shell_quote(EDDY_EXECUTABLE) + " " + subcommand;
    for (const auto& arg : args) command += " " + shell_quote(arg);
    return shell(command);
  }

  /// Runs `script` with bash (no stdin), capturing stdout and stderr; the exit code is the script's, and `exited`
  /// is false when the script itself (or the program it exec'd) was killed by a signal.
  CliResult shell(const std::string& script) const {
    const std::string command = "bash -c " + shell_quote(script) + " </dev/null >" +
                                shell_quote((dir_ / "stdout.txt").string()) + " 2>" +
                                shell_quote((dir_ / "stderr.txt").string());
    const int status = std::system(command.c_str());
    CliResult result;
    result.exited = status != -1 && WIFEXITED(status);
    result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
    result.out = read_file(dir_ / "stdout.txt");
    result.err = read_file(dir_ / "stderr.txt");
    return result;
  }

  fs::path dir_;
};

/// The input-error contract: exit status `code` (2 for bad input), stderr is one line "eddy: error: ..." naming every
/// fragment.
void expect_input_error(const CliResult& result, const std::vector<std::string>& fragments, int code = 2) {
  ASSERT_TRUE(result.exited) << "eddy did not exit normally (signal?); stderr:\n" << result.err;
  EXPECT_EQ(result.exit_code, code) << "stderr:\n" << result.err;
  std::vector<std::string> lines;
  std::istringstream err(result.err);
  for (std::string line; std::getline(err, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 1u) << "expected exactly one stderr line, got:\n" << result.err;
  EXPECT_EQ(lines[0].rfind("eddy: error:", 0), 0u) << lines[0];
  EXPECT_EQ(result.err.find("terminate"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("Aborted"), std::string::npos) << result.err;
  for (const auto& fragment : fragments) {
    EXPECT_NE(lines[0].find(fragment), std::string::npos) << "'" << fragment << "' not in: " << lines[0];
  }
}

TEST_F(CliErrors, ValidCaseExitsZero) {
  // Guards the other tests: exit status 2 must come from the bad input, not from the command line itself.
  const CliResult result = run_eddy({write_case("valid.toml", valid_case())});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 0) << "stderr:\n" << result.err;
  EXPECT_EQ(result.err.find("eddy: error:"), std::string::npos) << result.err;
}

TEST_F(CliErrors, UnknownKey) {
  const auto path = write_case("unknown_key.toml", replaced(valid_case(), "reynolds = 10", "reynolds = 10\ntaux = 1"));
  expect_input_error(run_eddy({path}), {"unknown_key.toml", "physics.taux"});
}

TEST_F(CliErrors, WrongType) {
  const auto path = write_case("wrong_type.toml", replaced(valid_case(), "steps = 2", "steps = \"2\""));
  expect_input_error(run_eddy({path}), {"run.steps", "integer"});
}

TEST_F(CliErrors, TauNotAboveOneHalf) {
  const auto path = write_case("tau.toml", replaced(valid_case(), "reynolds = 10", "tau = 0.5"));
  expect_input_error(run_eddy({path}), {"physics.tau", "0.5"});
}

TEST_F(CliErrors, MachAboveLimit) {
  const auto path = write_case("mach.toml", replaced(valid_case(), "velocity = 0.05", "velocity = 0.3"));
  expect_input_error(run_eddy({path}), {"Ma", "0.3", "physics.velocity"});
}

TEST_F(CliErrors, MissingFile) {
  const std::string path = (dir_ / "does_not_exist.toml").string();
  expect_input_error(run_eddy({path}), {"does_not_exist.toml", "No such file or directory"}, 8);
}

TEST_F(CliErrors, SizeZero) {
  const auto path = write_case("size.toml", replaced(valid_case(), "size = [8, 8, 1]", "size = [8, 0, 1]"));
  expect_input_error(run_eddy({path}), {"domain.size"});
}

TEST_F(CliErrors, SyntaxError) {
  const auto path = write_case("syntax.toml", replaced(valid_case(), "size = [8, 8, 1]", "size = [8, 8, 1"));
  expect_input_error(run_eddy({path}), {"syntax.toml:", "TOML syntax error"});
}

TEST_F(CliErrors, MalformedSet) {
  const auto path = write_case("valid.toml", valid_case());
  expect_input_error(run_eddy({path, "--set", "run.steps"}), {"--set", "run.steps"});
}

TEST_F(CliErrors, UnquotedStringInSet) {
  const auto path = write_case("valid.toml", valid_case());
  expect_input_error(run_eddy({path, "--set", "numerics.collision=bgk"}), {"--set", "numerics.collision=bgk"});
}

TEST_F(CliErrors, UnknownKeyFromSet) {
  const auto path = write_case("valid.toml", valid_case());
  expect_input_error(run_eddy({path, "--set", "run.stepz=3"}), {"run.stepz"});
}

TEST_F(CliErrors, BadValueFromSet) {
  const auto path = write_case("valid.toml", valid_case());
  expect_input_error(run_eddy({path, "--set", "physics.tau=0.4"}), {"physics.tau"});
}

TEST_F(CliErrors, OutputCompressionNotAChoiceExitsTwoNamingTheKey) {
  const auto path =
      write_case("compression.toml", replaced(valid_case(), "vtk = false", "vtk = false\ncompression = \"zlb\""));
  expect_input_error(run_eddy({path}), {"compression.toml", "output.compression = \"zlb\"", "did you mean 'zlib'?",
                                        "allowed values are \"none\", \"zlib\", \"lz4\""});
  const auto valid = write_case("valid.toml", valid_case());
  expect_input_error(run_eddy({valid, "--set", "output.compression=\"LZ4\""}),
                     {"output.compression = \"LZ4\"", "did you mean 'lz4'?"});
}

TEST_F(CliErrors, StatisticsBadInputExitsTwoNamingTheKey) {
  // [statistics] (io/case/statistics.cpp): each bad value is one line naming its key, exit status 2.
  struct Bad {
    const char* section;
    std::vector<std::string> fragments;
  };
  const Bad bad[] = {
      {"start = 2\n", {"statistics.start = 2", "run.steps = 2"}},
      {"start_time = 7.5\n", {"statistics.start_time = 7.5", "run.steps = 2"}},
      {"fields = [\"mean_temperature\"]\n", {"statistics.fields", "mean_temperature", "[thermal]"}},
      {"fields = [\"mean_presure\"]\n", {"statistics.fields", "'mean_presure'", "did you mean 'mean_pressure'?"}},
      {"average = [\"q\"]\n", {"statistics.average", "'q' is not an axis"}},
      {"every = 0\n", {"statistics.every = 0", ">= 1"}},
  };
  int n = 0;
  for (const Bad& b : bad) {
    const auto path = write_case("statistics_" + std::to_string(n++) + ".toml",
                                 valid_case() + "[statistics]\n" + b.section);
    expect_input_error(run_eddy({path}), b.fragments);
  }
  const auto path = write_case("statistics_ok.toml", valid_case() + "[statistics]\nstart = 1\n");
  const CliResult ok = run_eddy({path});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(CliErrors, BlowUpStopsWithinTheStabilityCheckWhateverReportEvery) {
  // U = 0.1, nu = 0.001 on 128 cells (tau = 0.503, accepted explicitly): NaN by about step 500 in float. With
  // reports every 5000 steps the run used to go on to step 5000 before it looked; the fused kernel's watch stops
  // it within kStabilityCheckSteps (10) of the first step beyond |u| = 0.5 and writes the fields of right after it.
  std::string text = replaced(valid_case(), "size = [8, 8, 1]", "size = [128, 128, 1]");
  text = replaced(text, "velocity = 0.05\nreynolds = 10", "velocity = 0.1\nviscosity = 0.001");
  text = replaced(text, "steps = 2", "steps = 5000\nreport_every = 5000");
  if (EDDY_TEST_WITH_VTK) text = replaced(text, "vtk = false", "vtk = true\nevery = 0");
  text += "[numerics]\nmin_tau = 0.502\n";
  const CliResult result = run_eddy({write_case("blow_up.toml", text)});
  expect_input_error(result, {"became unstable by step ", "exceeded the lattice limit 0.5"}, 3);
  const auto at = result.err.find("by step ");
  ASSERT_NE(at, std::string::npos);
  const long step = std::stol(result.err.substr(at + 8));
  EXPECT_GT(step, 100);
  EXPECT_LT(step, 600) << result.err;
  if (!EDDY_TEST_WITH_VTK) return;  // a build without VTK writes no fields
  char name[64];
  std::snprintf(name, sizeof name, "blow_up_%08ld.vti", step);  // the case is named after its file
  EXPECT_TRUE(fs::exists(dir_ / "out" / name)) << "the fields of step " << step << " were not written";
}

TEST_F(CliErrors, FileSizeLimitIsAnOutputErrorNotASignal) {
  // Under `ulimit -f` a write past the limit raised SIGXFSZ, which killed eddy with partial .tmp files. Ignored, the
  // write fails with EFBIG: exit 5 with eddy's message, and no temporary left. A 512^2 float checkpoint is 19 MB,
  // above the 8000 KiB limit (MPI's own start-up files need a few MB, so the limit cannot be much smaller).
  std::string text = replaced(valid_case(), "size = [8, 8, 1]", "size = [512, 512, 1]");
  text = replaced(text, "steps = 2", "steps = 10");
  text += "[checkpoint]\nevery = 10\n";
  const std::string path = write_case("limit.toml", text);
  const CliResult result = shell("ulimit -f 8000; " + shell_quote(EDDY_EXECUTABLE) + " run " + shell_quote(path) +
                                 " --output " + shell_quote((dir_ / "out").string()));
  ASSERT_TRUE(result.exited) << "killed by a signal; stderr:\n" << result.err;
  EXPECT_EQ(result.exit_code, 5) << result.err;
  EXPECT_NE(result.err.find("eddy: error: cannot write checkpoint"), std::string::npos) << result.err;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "out")) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
  }
}

TEST_F(CliErrors, ClosedStdoutDoesNotStopTheRun) {
  // `eddy run ... | head -n 2`: head exits after two lines and the next progress line used to kill eddy with
  // SIGPIPE, with no output written. Ignored, the run finishes and writes its output (the centreline CSV, which
  // needs no VTK).
  std::string text = replaced(valid_case(), "steps = 2", "steps = 400\nreport_every = 1");
  text = replaced(text, "centerlines = false", "centerlines = true");
  const std::string path = write_case("pipe.toml", text);
  const CliResult result = shell(shell_quote(EDDY_EXECUTABLE) + " run " + shell_quote(path) + " --output " +
                                 shell_quote((dir_ / "out").string()) + " | head -n 2 >/dev/null; exit ${PIPESTATUS[0]}");
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_EQ(result.exit_code, 0) << "eddy's exit status (141 = SIGPIPE); stderr:\n" << result.err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "pipe_centerlines.csv")) << "the output was not written";
}

TEST_F(CliErrors, SmallThreadStacksWithDerivedFields) {
  // OMP_STACKSIZE=16K: the cpu backend staged each stencil tile (19.6 KB in double) on the thread's stack, and
  // the vorticity and Q-criterion output crashed with a segmentation fault; the tiles are on the heap now.
  if (!EDDY_TEST_CPU_BACKEND || !EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: the cpu backend's tiles, written to .vti";
  std::string text = replaced(valid_case(), "size = [8, 8, 1]", "size = [40, 12, 6]");
  text = replaced(text, "periodic = [false, false, true]", "periodic = [false, false, false]");
  text = replaced(text, "vtk = false", "vtk = true\nfields = [\"velocity\", \"vorticity\", \"q_criterion\"]");
  text += "[numerics]\nstorage = \"double\"\n";
  const std::string path = write_case("stack.toml", text);
  const CliResult result = shell("OMP_STACKSIZE=16K OMP_NUM_THREADS=2 exec " + shell_quote(EDDY_EXECUTABLE) +
                                 " run " + shell_quote(path) + " --output " + shell_quote((dir_ / "out").string()));
  ASSERT_TRUE(result.exited) << "killed by a signal; stderr:\n" << result.err;
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "stack_00000002.vti"));
}

TEST_F(CliErrors, ExitCodesAsTheReadmeSays) {
  // A FIFO as the case file is an error of the file (8), like a directory; parallel.ranks larger than its axis is a
  // bad value in the case (2), not a rank count the job cannot split (7). The README's table says so.
  const std::string fifo = (dir_ / "pipe.toml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_input_error(run_eddy({fifo}), {"pipe.toml"}, 8);
  expect_input_error(run_eddy({write_case("ranks.toml", valid_case() + "[parallel]\nranks = [16, 1, 1]\n")}),
                     {"parallel.ranks", "exceeds"}, 2);
}

TEST_F(CliErrors, TooManyParticlesForHostMemoryNamesTheParticles) {
  // 10^8 particles under a 3 GB address-space limit: "out of host memory; use a smaller domain" named the wrong
  // cause. A GPU runtime needs more address space than that to start at all.
  if (!EDDY_TEST_CPU_BACKEND) GTEST_SKIP() << "SKIPPED: the address-space limit leaves a GPU runtime no room";
  const std::string path = write_case(
      "many.toml", replaced(valid_case(), "size = [8, 8, 1]", "size = [64, 64, 1]") +
                       "[particles]\ncount = 100000000\ndiameter = 0.5\n");
  const CliResult result = shell("ulimit -v 3000000; OMP_NUM_THREADS=1 exec " + shell_quote(EDDY_EXECUTABLE) +
                                 " run " + shell_quote(path) + " --output " + shell_quote((dir_ / "out").string()));
  expect_input_error(result, {"out of host memory", "particles (particles.count)"}, 4);
}

TEST_F(CliErrors, CostlyOutOfCorePlanIsWarnedAbout) {
  // time_block 64 over 32 slabs of a 32^3 cavity: every slab carries the whole block as halos (32x the work, 0.03
  // MLUPS) and nothing said so.
  std::string text = replaced(valid_case(), "size = [8, 8, 1]", "size = [32, 32, 32]");
  text = replaced(text, "periodic = [false, false, true]", "periodic = [false, false, false]");
  text = replaced(text, "steps = 2", "steps = 0");
  text += "[numerics]\nout_of_core = true\ntime_block = 64\nslabs = 32\n";
  const CliResult costly = run_eddy({write_case("costly.toml", text)});
  EXPECT_EQ(costly.exit_code, 0) << costly.err;
  // Each 1-plane slab computes its planes within the visit's widths of it: the whole 32-plane block at the first
  // steps, fewer towards the visit's end (solver/slab_plan.hpp, visit_widths), 24x on average.
  const std::string warning = "warning: each step of this plan updates ";
  const std::size_t at = costly.out.find(warning);
  ASSERT_NE(at, std::string::npos) << costly.out;
  const double factor = std::stod(costly.out.substr(at + warning.size()));
  EXPECT_GT(factor, 20.0) << costly.out;
  EXPECT_LT(factor, 32.0) << costly.out;
  EXPECT_NE(costly.out.find("x the block's z-planes", at), std::string::npos) << costly.out;
  EXPECT_NE(costly.out.find("the plan eddy chooses (leave out numerics.time_block and numerics.slabs) updates 1x"),
            std::string::npos)
      << costly.out;
  const CliResult chosen = run_eddy({write_case("chosen.toml", replaced(text, "time_block = 64\nslabs = 32\n", ""))});
  EXPECT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_EQ(chosen.out.find("warning"), std::string::npos) << chosen.out;
}

TEST_F(CliErrors, UnknownSubcommandIsNamed) {
  // It used to say "A subcommand is required", as if none had been given.
  expect_input_error(eddy_command("runn", {"case.toml"}), {"unknown subcommand 'runn'", "run, info or bench"});
}

/// The shell words of `eddy run <args...>` (no --output added).
std::string eddy_run_line(const std::vector<std::string>& args) {
  std::string command = shell_quote(EDDY_EXECUTABLE) + " run";
  for (const auto& arg : args) command += " " + shell_quote(arg);
  return command;
}

/// valid_case() running `steps` steps with a checkpoint every 10.
std::string checkpointed_case(int steps) {
  return replaced(valid_case(), "steps = 2", "steps = " + std::to_string(steps)) + "[checkpoint]\nevery = 10\n";
}

TEST_F(CliErrors, LongCheckpointPathReachesMpiIoUnderAShorterName) {
  // Open MPI 4.1 aborted ("*** buffer overflow detected ***", SIGABRT) inside MPI_File_open for a file name longer
  // than 244 characters: it formats "<name>.locktest.<rank>" into 256 bytes. eddy hands MPI-IO a shorter name of the
  // same file (relative, or /proc/self/fd/<n>/<file>): the checkpoint is written and restarts, from any working
  // directory.
  const fs::path deep = dir_ / std::string(230, 'd');
  fs::create_directories(deep);
  const std::string path = write_case("long.toml", checkpointed_case(10));
  const std::string manifest = (deep / "checkpoints" / "long_checkpoint_00000010.toml").string();
  ASSERT_GT(manifest.size(), 260u);  // from / its relative form is too long as well
  CliResult result = shell("cd / && exec " + eddy_run_line({path, "--output", deep.string()}));
  ASSERT_TRUE(result.exited) << "killed by a signal; stderr:\n" << result.err;
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(manifest)) << result.out;
  result = shell("cd / && exec " +
                 eddy_run_line({path, "--set", "run.steps=20", "--output", deep.string(), "--restart", manifest}));
  ASSERT_TRUE(result.exited) << "killed by a signal; stderr:\n" << result.err;
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("restarted   from"), std::string::npos) << result.out;
}

TEST_F(CliErrors, CheckpointNameTooLongForMpiIoIsRefusedBeforeTheFirstStep) {
  // A file name that alone exceeds MPI-IO's limit (a long case.name) has no name MPI_File_open takes: the run is
  // refused before its first step (exit 5) naming the path, its length and the limit, and a --restart of such a
  // checkpoint is exit 6, never a crash.
  const std::string path = write_case("long.toml", checkpointed_case(10));
  const std::string name(210, 'n');
  CliResult result = run_eddy({path, "--set", "case.name=\"" + name + "\"", "--set", "run.steps=1000", "--set",
                               "run.report_every=1"});
  expect_input_error(result, {(dir_ / "out" / "checkpoints" / name).string(), "characters", "244", "MPI"}, 5);
  EXPECT_EQ(result.out.find("step "), std::string::npos) << "refused only after running:\n" << result.out;

  // A checkpoint whose data file has such a name (renamed, the manifest edited to match).
  ASSERT_EQ(run_eddy({path}).exit_code, 0);
  const fs::path checkpoints = dir_ / "out" / "checkpoints";
  const std::string manifest = (checkpoints / "long_checkpoint_00000010.toml").string();
  const std::string data = std::string(230, 'n') + ".data";  // with /proc/self/fd/<n>/: over 244
  fs::rename(checkpoints / "long_checkpoint_00000010.data", checkpoints / data);
  const std::string text = replaced(read_file(manifest), "\"long_checkpoint_00000010.data\"", "\"" + data + "\"");
  std::ofstream(manifest) << text;
  result = run_eddy({path, "--set", "run.steps=20", "--restart", manifest});
  expect_input_error(result, {data, "characters", "244"}, 6);
}

TEST_F(CliErrors, OverlongCaseNameIsRefusedBeforeTheFirstStep) {
  // A 300-character case.name used to run the whole case and fail at its first write ("File name too long", exit
  // 5). Every file name the run will form (snapshots, their temporary names, checkpoints) is checked at the start.
  std::string text = replaced(valid_case(), "steps = 2", "steps = 2000\nreport_every = 1");
  text = replaced(text, "vtk = false", "vtk = true\nevery = 0");
  const std::string path = write_case("name.toml", text);
  CliResult result = run_eddy({path, "--set", "case.name=\"" + std::string(300, 'n') + "\""});
  expect_input_error(result, {"case.name", "300 characters", "255"}, 5);
  EXPECT_EQ(result.out.find("step "), std::string::npos) << "refused only after running:\n" << result.out;
  // 240 characters fit a file name, "<name>_<step>.vti.tmp.<pid>" does not.
  result = run_eddy({path, "--set", "case.name=\"" + std::string(240, 'n') + "\""});
  expect_input_error(result, {"case.name", ".vti", "255"}, 5);
  EXPECT_EQ(result.out.find("step "), std::string::npos) << "refused only after running:\n" << result.out;
}

TEST_F(CliErrors, OverlongOutputPathIsRefusedNamingTheLimit) {
  // 17 directories of 250 characters: every name fits NAME_MAX, the whole path not PATH_MAX (4096 with its NUL).
  fs::path deep = dir_;
  for (int i = 0; i < 17; ++i) deep /= std::string(250, char('a' + i));
  const std::string path = write_case("valid.toml", valid_case());
  const CliResult result = eddy_command("run", {path, "--set", "output.vtk=true", "--output", deep.string()});
  expect_input_error(result, {"--output", "4095"}, 5);
}

TEST_F(CliErrors, SecondRunIntoALockedOutputDirectoryIsRefused) {
  // Two runs in one output directory used to mix their files (run A exited 0 with run B's snapshot in its .pvd).
  // The first holds a lock (eddy.lock: PID and host); the second is refused naming them, exit 5.
  const std::string snapshots = replaced(valid_case(), "vtk = false", "vtk = true\nevery = 0");
  const std::string a = write_case("a.toml", replaced(snapshots, "steps = 2", "steps = 100000000\nreport_every = 100"));
  const std::string b = write_case("b.toml", snapshots);
  const std::string d = shell_quote(dir_.string()), out = shell_quote((dir_ / "out").string());
  const CliResult result = shell(
      "cd " + d + " || exit 1\n" + eddy_run_line({a}) + " --output " + out + " >a.log 2>&1 & a=$!\n"
      "for i in $(seq 300); do grep -q '^step' " + d + "/a.log && break; sleep 0.1; done\n" +
      eddy_run_line({b}) + " --output " + out + " >b.log 2>b.err; echo $? >b.rc\n"
      "kill -TERM $a; wait $a; echo $? >a.rc; echo $a >a.pid");
  ASSERT_TRUE(result.exited) << result.err;
  const std::string pid = read_file(dir_ / "a.pid");
  CliResult second;
  second.exited = true;
  second.exit_code = std::stoi(read_file(dir_ / "b.rc"));
  second.err = read_file(dir_ / "b.err");
  expect_input_error(second, {"in use", "process " + pid.substr(0, pid.find('\n')), "eddy.lock"}, 5);
  EXPECT_EQ(read_file(dir_ / "a.rc"), "0\n") << read_file(dir_ / "a.log");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "eddy.lock")) << "run A left its lock behind";
}

TEST_F(CliErrors, LockOfALiveProcessRefusesAndAStaleOneIsTakenOver) {
  // The centreline CSV makes the run write output (and take the lock) in builds with and without VTK.
  const std::string path = write_case("valid.toml", replaced(valid_case(), "centerlines = false", "centerlines = true"));
  fs::create_directories(dir_ / "out");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  // This test's own process is alive on this host.
  std::ofstream(dir_ / "out" / "eddy.lock") << "pid = " << ::getpid() << "\nhost = \"" << host << "\"\n";
  expect_input_error(run_eddy({path}), {"in use", "process " + std::to_string(::getpid()), host}, 5);
  // A process that has exited: its lock is stale and taken over, with a line saying so.
  const CliResult gone = shell("sh -c 'echo $$'");
  const std::string dead = gone.out.substr(0, gone.out.find('\n'));
  std::ofstream(dir_ / "out" / "eddy.lock") << "pid = " << dead << "\nhost = \"" << host << "\"\n";
  const CliResult result = run_eddy({path});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("stale lock"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("process " + dead), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "eddy.lock"));
}

TEST_F(CliErrors, LeftoverTemporaryFilesOfThisCaseAreRemoved) {
  // A killed run leaves "<file>.tmp.<pid>" (and checkpoints' "<stem>.data.tmp") behind; the next run of the case
  // in that directory removes its own case's, older than its start, with a line saying so.
  const std::string path = write_case("cav.toml", checkpointed_case(10));
  const fs::path out = dir_ / "out", checkpoints = out / "checkpoints";
  fs::create_directories(checkpoints);
  const std::vector<fs::path> stale = {checkpoints / "cav_checkpoint_00000010.data.tmp",
                                       checkpoints / "cav_checkpoint_00000020.data.tmp.4242",
                                       out / "cav_00000100.vti.tmp.4242", out / "cav.pvd.tmp.17",
                                       out / "cav_00000100_r1.vti.tmp.99"};
  const std::vector<fs::path> kept = {out / "other_00000100.vti.tmp.4242", out / "cav_notes.txt",
                                      checkpoints / "cavity_checkpoint_00000010.data.tmp"};
  for (const auto& file : stale) std::ofstream(file) << "x";
  for (const auto& file : kept) std::ofstream(file) << "x";
  ASSERT_EQ(shell("touch -d '1 hour ago' " + shell_quote(out.string()) + "/*.* " +
                  shell_quote(checkpoints.string()) + "/*")
                .exit_code,
            0);
  const CliResult result = run_eddy({path});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const auto& file : stale) EXPECT_FALSE(fs::exists(file)) << "not removed: " << file;
  for (const auto& file : kept) EXPECT_TRUE(fs::exists(file)) << "removed: " << file;
  EXPECT_NE(result.out.find("removed 5 leftover temporary files"), std::string::npos) << result.out;
}

TEST_F(CliErrors, CheckpointOfAnotherCaseRestartsWithAWarning) {
  const std::string path = write_case("first.toml", checkpointed_case(10));
  ASSERT_EQ(run_eddy({path}).exit_code, 0);
  const std::string manifest = (dir_ / "out" / "checkpoints" / "first_checkpoint_00000010.toml").string();
  const CliResult result =
      run_eddy({path, "--set", "run.steps=20", "--set", "case.name=\"second\"", "--restart", manifest});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("warning: checkpoint " + manifest + " was written by case 'first'"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("'second'"), std::string::npos) << result.out;
}

TEST_F(CliErrors, RestartFromWhatIsNotAFileSaysWhatItIs) {
  // Each was reported as "not found". The FIFO must not be opened either: reading it would block for ever.
  const std::string path = write_case("case.toml", valid_case());
  const fs::path fifo = dir_ / "fifo.toml", loop = dir_ / "loop.toml", dangling = dir_ / "dangling.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(dir_ / "loop_back.toml", loop);
  fs::create_symlink(loop, dir_ / "loop_back.toml");
  fs::create_symlink(dir_ / "gone" / "x.toml", dangling);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo.string(), "is a FIFO, not a regular file"},
      {"/dev/null", "is a character device, not a regular file"},
      {loop.string(), "is a loop of symbolic links"},
      {dangling.string(), "is a symbolic link to '" + (dir_ / "gone" / "x.toml").string() + "', which does not exist"},
      {(dir_ / "absent.toml").string(), "not found"}};
  for (const auto& [manifest, words] : cases) {
    SCOPED_TRACE(manifest);
    const CliResult result = shell("timeout 60 " + eddy_run_line({path, "--restart", manifest}) + " >/dev/null");
    expect_input_error(result, {"checkpoint " + manifest + " " + words}, 6);
  }
}

TEST_F(CliErrors, OutputDirectoryThatIsADanglingLinkIsNamed) {
  // Reported as "cannot create output directory 'out': File exists" (what mkdir says about the link itself).
  const std::string path = write_case("case.toml", replaced(valid_case(), "centerlines = false", "centerlines = true"));
  const fs::path link = dir_ / "linked_out", target = dir_ / "scratch" / "run1";
  fs::create_symlink(target, link);
  CliResult result = shell(eddy_run_line({path, "--output", link.string()}) + " >/dev/null");
  expect_input_error(result, {"'" + link.string() + "'", "symbolic link to '" + target.string() + "', which does not exist"},
                     5);
  std::ofstream(dir_ / "plain_file") << "x";
  result = shell(eddy_run_line({path, "--output", (dir_ / "plain_file").string()}) + " >/dev/null");
  expect_input_error(result, {"is a regular file, not a directory"}, 5);
  fs::create_directories(target);  // the link works once its target exists
  result = shell(eddy_run_line({path, "--output", link.string()}) + " >/dev/null");
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

TEST_F(CliErrors, FullDiskDuringACheckpointIsOneLine) {
  // Open MPI's ompio printed "mca_fbtl_posix_pwritev: error in (p)write(v):No space left on device" once per failed
  // write (13 lines for this case) before eddy's own line, and returned success for those writes.
  const fs::path disk = dir_ / "small_disk";
  fs::create_directories(disk);
  const std::string mount = "mount -t tmpfs -o size=64k tmpfs " + shell_quote(disk.string()) + " 2>/dev/null";
  if (::geteuid() != 0 || std::system(mount.c_str()) != 0) {
    GTEST_SKIP() << "SKIPPED: needs root with mount rights, for a 64 KiB tmpfs to fill";
  }
  struct Unmount {
    std::string command;
    ~Unmount() {
      if (std::system(command.c_str()) != 0) std::fprintf(stderr, "could not run: %s\n", command.c_str());
    }
  } unmount{"umount " + shell_quote(disk.string())};
  const std::string path = write_case(
      "case.toml", replaced(checkpointed_case(20), "size = [8, 8, 1]", "size = [64, 64, 1]"));  // 311 KB of f_i
  const CliResult result = shell(eddy_run_line({path, "--output", (disk / "out").string()}) + " >/dev/null");
  expect_input_error(result,
                     {"cannot write checkpoint " + (disk / "out" / "checkpoints").string(), "No space left on device",
                      "the earlier checkpoints are intact"},
                     5);
  EXPECT_TRUE(fs::is_empty(disk / "out" / "checkpoints")) << "a partial checkpoint was left behind";
}

TEST_F(CliErrors, BenchValidRunExitsZero) {
  // Guards the bench tests below: a tiny valid bench exits 0 and rounds an odd step count up to even.
  const CliResult result = bench_eddy({"--size", "4", "--steps", "3", "--repeat", "1", "--warmup", "0"});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.exit_code, 0) << "stderr:\n" << result.err;
  EXPECT_NE(result.out.find("4 steps x 1 repetitions"), std::string::npos) << result.out;
}

TEST_F(CliErrors, BenchSolidSphereCountsItsCellsAndTimesTheCavity) {
  // --solid sphere on 16^3: a sphere of radius 16/8 = 2 centred at (8.3, 8.2, 8.1) (solver/bench.cpp). Its solid
  // cells are the cell centres (i + 1/2, j + 1/2, k + 1/2) inside it, counted here independently.
  long long expected = 0;
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const double dx = i + 0.5 - 8.3, dy = j + 0.5 - 8.2, dz = k + 0.5 - 8.1;
        expected += dx * dx + dy * dy + dz * dz < 4.0;
      }
  const CliResult result =
      bench_eddy({"--size", "16", "--solid", "sphere", "--steps", "4", "--repeat", "1", "--warmup", "0"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.exit_code, 0) << "stderr:\n" << result.err;
  EXPECT_NE(result.out.find("sphere in a channel"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("sphere: " + std::to_string(expected) + " solid cells, "), std::string::npos)
      << "expected " << expected << " solid cells:\n"
      << result.out;
  EXPECT_NE(result.out.find("empty cavity "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("state finite"), std::string::npos) << result.out;
  expect_input_error(bench_eddy({"--size", "8", "--solid", "sphere", "--thermal", "--steps", "2", "--repeat", "1"}),
                     {"--solid sphere", "--thermal"});
  expect_input_error(bench_eddy({"--size", "4", "--solid", "sphere", "--steps", "2", "--repeat", "1"}),
                     {"--solid sphere needs at least 8 cells", "4 here"});
  const CliResult unknown = bench_eddy({"--size", "8", "--solid", "cube"});
  ASSERT_TRUE(unknown.exited);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--solid"), std::string::npos) << unknown.err;
}

TEST_F(CliErrors, BenchOutOfCoreWithThermalReportsBothRates) {
  // --out-of-core --thermal: the temperature travels with the slabs; the thermal line gives the rate against the
  // same grid out of core without T, the in-core line against T in core. 80 x 80 cells across: Ra 1e5 at tau 0.6
  // needs L >= 72 for a free-fall Mach number below 0.3; 12 MiB hold slabs of a few planes.
  const CliResult result = bench_eddy({"--grid", "80", "80", "8", "--out-of-core", "--thermal", "--memory-limit",
                                       "12 MiB", "--steps", "2", "--repeat", "1", "--warmup", "0"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.exit_code, 0) << "stderr:\n" << result.err;
  for (const char* text :
       {"thermal step", "fluid only out of core", "with T", "out-of-core    time_block", "in-core", "state finite"}) {
    EXPECT_NE(result.out.find(text), std::string::npos) << text << ":\n" << result.out;
  }
  // Particles are refused out of core, with the reason.
  expect_input_error(bench_eddy({"--size", "8", "--out-of-core", "--particles", "10", "--steps", "2", "--repeat", "1"}),
                     {"--out-of-core", "no particles", "refuses them"});
}

TEST_F(CliErrors, BenchBlockWidthOutOfRange) {
  for (const char* width : {"0", "-32", "33", "1024"}) {
    expect_input_error(bench_eddy({"--size", "4", "--steps", "2", "--repeat", "1", "--block-x", width}),
                       {"--block-x", "multiple of 32"});
  }
}

TEST_F(CliErrors, BenchGridNotPositive) {
  expect_input_error(bench_eddy({"--grid", "0", "0", "0", "--steps", "2", "--repeat", "1"}), {"--grid"});
  expect_input_error(bench_eddy({"--grid", "-4", "-4", "-4", "--steps", "2", "--repeat", "1"}), {"--grid"});
}

TEST_F(CliErrors, BenchSizeAndGridTogether) {
  expect_input_error(bench_eddy({"--size", "6", "--grid", "8", "8", "8"}), {"--size", "--grid"});
}

}  // namespace
