// The eddy command line: `eddy run`, `eddy info`, `eddy bench` (CLI11), on one rank or under mpirun.
// Every error is reported once, as "eddy: error: ...", with the exit codes of solver/exit_codes.hpp; no stack traces.
// Errors every rank meets alike (case file, rank count, instability) end all ranks with the same code and one
// message from one rank; an error on a single rank (device, output) aborts the whole job through MPI_Abort.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/case_config.hpp"
#include "io/checkpoint.hpp"
#include "io/solid_files.hpp"
#include "kernels/backend.hpp"
#include "solver/bench.hpp"
#include "solver/decomposition.hpp"
#include "solver/errors.hpp"
#include "solver/run_case.hpp"

namespace {

/// MPI for the lifetime of main (singleton init when started without mpirun).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    // MPI_THREAD_MULTIPLE: checkpoints are written by a background thread (solver/checkpointing.hpp); with less,
    // they are written in line.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~MpiSession() { MPI_Finalize(); }
  int rank = 0, size = 1;
};

/// Writes "eddy: error: <message>" with one write call, so lines of several ranks never interleave.
void print_error(const std::string& message) {
  // What the run printed so far goes first: with stdout and stderr in one file the error line then follows the
  // last complete line instead of landing inside a buffered one.
  std::cout.flush();
  std::fflush(stdout);
  const std::string line = "eddy: error: " + eddy::escape_control_characters(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

int report(const MpiSession& mpi, const std::string& message, int code, bool collective) {
  if (collective) {
    if (mpi.rank == 0) print_error(message);
    return code;
  }
  if (mpi.size == 1) {
    print_error(message);
    return code;
  }
  print_error("(rank " + std::to_string(mpi.rank) + " of " + std::to_string(mpi.size) + ") " + message);
  MPI_Abort(MPI_COMM_WORLD, code);  // ends every rank; mpirun exits with `code`
  return code;
}

/// FNV-1a 64-bit hash (Fowler, Noll & Vo) of the case file's bytes and the --set overrides, and the file's size: the
/// same on every rank when the ranks run one case.
std::pair<std::uint64_t, std::uint64_t> case_fingerprint(const std::string& path,
                                                         const std::vector<std::string>& overrides) {
  std::uint64_t hash = 14695981039346656037ull, bytes = 0;
  auto add = [&](unsigned char c) { hash = (hash ^ c) * 1099511628211ull; };
  std::ifstream in(path, std::ios::binary);
  for (char c; in.get(c); ++bytes) add(static_cast<unsigned char>(c));
  for (const std::string& o : overrides) {
    add(0);  // separates the file and each override
    for (char c : o) add(static_cast<unsigned char>(c));
  }
  return {hash, bytes};
}

/// With several ranks: an error naming the first rank whose case file (or --set options) differs from rank 0's,
/// or empty. Ranks with their own copies of the case (node-local directories) that disagree would otherwise run
/// different cases against each other. Collective.
std::string case_mismatch(const MpiSession& mpi, const std::string& path, const std::vector<std::string>& overrides) {
  if (mpi.size == 1) return "";
  const auto [hash, bytes] = case_fingerprint(path, overrides);
  std::uint64_t root[2] = {hash, bytes};
  MPI_Bcast(root, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const int mine = hash != root[0] ? mpi.rank : mpi.size;
  int first = mine;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == mpi.size) return "";
  std::uint64_t theirs = bytes;
  MPI_Bcast(&theirs, 1, MPI_UINT64_T, first, MPI_COMM_WORLD);
  return path + ": rank " + std::to_string(first) + " of " + std::to_string(mpi.size) + " read a different case (" +
         std::to_string(theirs) + " bytes) than rank 0 (" + std::to_string(root[1]) +
         " bytes), or was given other --set options: every rank must run the same case; give them one file on a "
         "shared file system, or identical copies";
}

/// Reads the mesh and voxel files of the case's [[solid]] bodies on every rank (io/solid_files.hpp); if any rank
/// fails, the lowest failing rank prints its message and all return its code (8: a file missing or unreadable, 2:
/// malformed). Collective.
bool load_solid_files_everywhere(const MpiSession& mpi, eddy::CaseConfig& config, int& exit_code) {
  std::string error;
  int code = eddy::kExitInputError;
  try {
    eddy::load_solid_files(config);
  } catch (const eddy::CaseFileError& e) {
    error = e.what();
    code = eddy::kExitCaseFileError;
  } catch (const eddy::InputError& e) {
    error = e.what();
  }
  const int mine = error.empty() ? mpi.size : mpi.rank;
  int first_failure = mine;
  MPI_Allreduce(&mine, &first_failure, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_failure == mpi.size) return true;
  if (mpi.rank == first_failure) print_error(error);
  MPI_Bcast(&code, 1, MPI_INT, first_failure, MPI_COMM_WORLD);
  exit_code = code;
  return false;
}

/// Loads the case on every rank; if any rank fails, the lowest failing rank prints its message and all return 2.
/// Ranks whose case files differ fail too (case_mismatch), with one message from rank 0.
std::optional<eddy::CaseConfig> load_case_everywhere(const MpiSession& mpi, const std::string& path,
                                                     const std::vector<std::string>& overrides, int& exit_code) {
  std::optional<eddy::CaseConfig> config;
  std::string error;
  int code = eddy::kExitInputError;
  try {
    config = eddy::load_case(path, overrides);
  } catch (const eddy::CaseFileError& e) {
    error = e.what();
    code = eddy::kExitCaseFileError;
  } catch (const eddy::InputError& e) {
    error = e.what();
  }
  const int mine = error.empty() ? mpi.size : mpi.rank;
  int first_failure = mine;
  MPI_Allreduce(&mine, &first_failure, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_failure == mpi.size) {
    const std::string mismatch = case_mismatch(mpi, path, overrides);
    if (mismatch.empty()) return config;
    if (mpi.rank == 0) print_error(mismatch);
    exit_code = eddy::kExitInputError;
    return std::nullopt;
  }
  if (mpi.rank == first_failure) print_error(error);
  MPI_Bcast(&code, 1, MPI_INT, first_failure, MPI_COMM_WORLD);
  exit_code = code;
  return std::nullopt;
}

void print_info(std::ostream& out) {
  out << "eddy " << EDDY_VERSION << "\nbackend     " << eddy::backend::name() << "\n";
  const int count = eddy::backend::device_count();
  if (count == 0) {
    out << "device      none visible: this " << eddy::backend::name()
        << " build needs a GPU (or rebuild with -DEDDY_BACKEND=cpu)\n";
    return;
  }
  const auto info = eddy::backend::device_info(0);
  char line[256];
  std::snprintf(line, sizeof line,
                "device      %s (%d of %d visible)\nmemory      %.2f GiB total, %.2f GiB free\n%s %d\n",
                info.name.c_str(), 1, count, info.total_memory / 1073741824.0, info.free_memory / 1073741824.0,
                eddy::backend::is_gpu() ? "compute units" : "threads    ", info.compute_units);
  out << line;
}

eddy::Precision parse_precision(const std::string& text) {
  if (text == "float") return eddy::Precision::float32;
  if (text == "double") return eddy::Precision::float64;
  if (text == "fp16") return eddy::Precision::float16;
  throw eddy::CollectiveInputError("bench: --storage must be \"float\", \"fp16\" or \"double\" (got \"" + text + "\")");
}

eddy::HaloTransport parse_transport(const std::string& text) {
  if (text == "host") return eddy::HaloTransport::host;
  if (text == "device") return eddy::HaloTransport::device;
  if (text == "nccl") return eddy::HaloTransport::nccl;
  throw eddy::CollectiveInputError("bench: --transport must be \"host\", \"device\" or \"nccl\" (got \"" + text +
                                   "\")");
}

/// `eddy run`'s arguments.
struct RunArguments {
  std::string case_path, output_dir, restart_path;
  std::vector<std::string> overrides;
  CLI::App* command = nullptr;
};

void add_run_command(CLI::App& app, RunArguments& a) {
  a.command = app.add_subcommand("run", "Run a case file (TOML); keys are listed in cases/README.md");
  a.command->add_option("case", a.case_path, "Case file, e.g. cases/lid_driven_cavity_2d.toml")->required();
  a.command->add_option("--set", a.overrides, "Override a case key: section.key=value, value as in TOML (repeatable)");
  a.command->add_option("--output", a.output_dir, "Output directory (overrides output.directory)");
  a.command->add_option("--restart", a.restart_path,
                        "Continue from a checkpoint: the .toml manifest a run with [checkpoint] (or a stop signal) "
                        "wrote");
}

/// `eddy bench`'s arguments: the options, and the texts parsed into them after the command line is read.
struct BenchArguments {
  eddy::BenchOptions options;
  std::string precision = "float", transport = "host";
  std::vector<int> grid;
  CLI::App* command = nullptr;
};

void add_bench_command(CLI::App& app, BenchArguments& a) {
  eddy::BenchOptions& o = a.options;
  CLI::App* bench = a.command =
      app.add_subcommand("bench", "Benchmark the fused kernel on a lid-driven cavity (N^3 or a grid), or a body in a channel");
  auto* size_option = bench->add_option("--size", o.size, "N: cells per axis of the N^3 cavity (default 128)");
  bench->add_option("--grid", a.grid, "NX NY NZ: a non-cubic grid instead of --size (e.g. weak scaling)")
      ->expected(3)
      ->excludes(size_option);
  bench->add_option("--steps", o.steps,
                    "Steps per repetition (default: calibrated to ~1 s; rounded up to even, and out of core to whole "
                    "sweeps of time_block)");
  bench->add_option("--repeat", o.repetitions, "Timed repetitions (default 5)");
  bench->add_option("--warmup", o.warmup_steps, "Warm-up steps, not timed (default 10)");
  bench->add_option("--storage,--precision", a.precision, "Population storage: float (default), fp16 or double");
  bench->add_option("--transport", a.transport, "Halo transport under MPI: host (default), device or nccl");
  bench->add_flag("!--no-overlap", o.overlap, "Do not overlap the halo exchange with interior updates");
  bench->add_option("--json", o.json_path, "Also write the results as JSON to this file");
  bench->add_option("--block-x", o.block_size_x,
                    "GPU threads per block along x (multiple of 32, 32-512; default 128): a tuning knob");
  bench->add_option("--odd-step", o.odd_step,
                    "The fused kernel's odd step on GPUs: staged (x-shifted stores through shared memory, default) "
                    "or direct: a tuning knob")
      ->check(CLI::IsMember({"staged", "direct"}));
  bench->add_flag("--stencils", o.stencils,
                  "Also time the stencil operators (vorticity, Q-criterion), plain against tiled");
  bench->add_flag("--thermal", o.thermal,
                  "Add a buoyant temperature field (Pr 0.71, Ra 1e5, heated x walls) and report its cost");
  bench
      ->add_option("--particles", o.particles,
                   "Also move N inertial particles and report the particle step's cost (default 0)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(2147483647)));
  bench
      ->add_option("--particle-forces", o.particle_forces,
                   "With --particles: none (default), contacts (cell list), contacts_all_pairs (the same "
                   "contacts over all pairs) or gravity (all pairs)")
      ->check(CLI::IsMember({"none", "contacts", "contacts_all_pairs", "gravity"}));
  bench
      ->add_option("--voxelise", o.voxelise_triangles,
                   "Time the device voxeliser on a UV sphere of about this many triangles (built in memory) in the "
                   "N^3 domain instead of the fluid, checked against the CPU reference")
      ->check(CLI::Range(std::int64_t(8), std::int64_t(1) << 31));
  bench
      ->add_option("--solid", o.solid,
                   "none (default: the cavity) or sphere: a sphere of diameter N/4 in a channel with a velocity "
                   "inlet, a pressure outlet and interpolated walls, timed beside the empty cavity")
      ->check(CLI::IsMember({"none", "sphere"}));
  bench->add_flag("--les", o.les,
                  "Smagorinsky LES in the fused kernel ([numerics] les = \"smagorinsky\"), timed beside the plain "
                  "kernel on the same grid");
  bench->add_flag("--out-of-core", o.out_of_core,
                  "Run out of core (populations in host memory, z-slabs through the device) and compare with the "
                  "in-core run of the same grid");
  bench->add_option("--memory-limit", o.memory_limit,
                    "With --out-of-core: device memory budget, e.g. \"8 GiB\" or bytes (default: 90% of the free "
                    "memory)");
  bench
      ->add_option("--time-block", o.time_block,
                   "With --out-of-core: steps per slab visit k (default: chosen from the budget)")
      ->check(CLI::Range(1, 64));
  bench->add_option("--slabs", o.slabs, "With --out-of-core: slabs per block (default: from the budget)")
      ->check(CLI::Range(1, 1 << 30));
}

/// Runs `eddy run` with its arguments; returns the exit code (an error on reading the case is reported here).
int run_command(const MpiSession& mpi, RunArguments& a) {
  if (mpi.rank == 0) std::cout << "eddy " << EDDY_VERSION << " (" << eddy::backend::name() << ")\n";
  int code = eddy::kExitOk;
  std::optional<eddy::CaseConfig> config = load_case_everywhere(mpi, a.case_path, a.overrides, code);
  if (!config) return code;
  if (!load_solid_files_everywhere(mpi, *config, code)) return code;
  if (a.command->count("--output")) {
    if (a.output_dir.empty()) throw eddy::CollectiveInputError("--output: the output directory must not be empty");
    config->output_directory = a.output_dir;
  }
  if (a.command->count("--restart") && a.restart_path.empty()) {
    throw eddy::CollectiveInputError("--restart: give the checkpoint's .toml manifest");
  }
  eddy::run_case(*config, MPI_COMM_WORLD, std::cout, a.restart_path);
  return eddy::kExitOk;
}

void bench_command(BenchArguments& a) {
  a.options.precision = parse_precision(a.precision);
  a.options.transport = parse_transport(a.transport);
  if (!a.grid.empty()) a.options.grid = std::array<int, 3>{a.grid[0], a.grid[1], a.grid[2]};
  a.options.block_size_given = a.command->count("--block-x") > 0;
  a.options.memory_limit_given = a.command->count("--memory-limit") > 0;
  eddy::run_bench(a.options, MPI_COMM_WORLD, std::cout);
}

/// Reports the exception being handled (call it in a catch block) once and returns its exit code: the error types
/// of solver/errors.hpp map to their codes through its one list (error_type_of); collective errors end every rank
/// alike, the others name the rank and end the job.
int report_current_exception(const MpiSession& mpi) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return report(mpi, "out of host memory; use a smaller domain or more ranks", eddy::kExitNoMemory, false);
  } catch (const std::exception& e) {
    const eddy::ErrorType* type = eddy::error_type_of(e);
    if (type == nullptr) return report(mpi, std::string("internal error: ") + e.what(), eddy::kExitFailure, false);
    return report(mpi, e.what(), type->exit_code, type->collective);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A closed stdout (eddy run ... | head) must not end the run: progress writes then fail quietly (EPIPE) and the
  // run goes on to its output. A file-size limit (ulimit -f) must not kill it either: the write fails with EFBIG
  // and is reported as an output error (exit 5), its temporary file removed.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  MpiSession mpi(argc, argv);
  CLI::App app{"eddy: a D3Q19 lattice Boltzmann solver (CPU/OpenMP, CUDA, HIP; MPI across ranks)", "eddy"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("eddy ") + EDDY_VERSION + " (" + EDDY_BACKEND_NAME + ")");
  RunArguments run;
  add_run_command(app, run);
  auto* info = app.add_subcommand("info", "Print the backend, the device with its memory, and the version");
  BenchArguments bench;
  add_bench_command(app, bench);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return mpi.rank == 0 ? app.exit(e) : 0;  // --help, --version
    // CLI11 says "A subcommand is required" for a misspelt one too: name it.
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && !app.get_subcommands().size()) {
      return report(mpi, "unknown subcommand '" + first + "': use run, info or bench (see eddy --help)",
                    eddy::kExitInputError, true);
    }
    return report(mpi, std::string(e.what()) + " (see eddy --help)", eddy::kExitInputError, true);
  }

  try {
    if (*info) {
      if (mpi.rank == 0) print_info(std::cout);
    } else if (*run.command) {
      return run_command(mpi, run);
    } else if (*bench.command) {
      bench_command(bench);
    }
  } catch (...) {
    return report_current_exception(mpi);
  }
  return eddy::kExitOk;
}
