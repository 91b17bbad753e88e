// The eddy command line: `eddy run`, `eddy info`, `eddy bench` (CLI11). Every error is reported once, as
// "eddy: error: ...", with the exit codes of solver/exit_codes.hpp; no stack traces.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/output_error.hpp"
#include "kernels/backend.hpp"
#include "solver/bench.hpp"
#include "solver/exit_codes.hpp"
#include "solver/run_case.hpp"

namespace {

int fail(const std::string& message, int code) {
  std::cerr << "eddy: error: " << message << "\n";
  return code;
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
  std::snprintf(line, sizeof line, "device      %s (%d of %d visible)\nmemory      %.2f GiB total, %.2f GiB free\n%s %d\n",
                info.name.c_str(), 1, count, info.total_memory / 1073741824.0, info.free_memory / 1073741824.0,
                eddy::backend::is_gpu() ? "compute units" : "threads    ", info.compute_units);
  out << line;
}

eddy::Precision parse_precision(const std::string& text) {
  if (text == "float") return eddy::Precision::float32;
  if (text == "double") return eddy::Precision::float64;
  throw eddy::InputError("bench: --precision must be \"float\" or \"double\" (got \"" + text + "\")");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"eddy: a D3Q19 lattice Boltzmann solver (CPU/OpenMP, CUDA, HIP)", "eddy"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("eddy ") + EDDY_VERSION + " (" + EDDY_BACKEND_NAME + ")");

  std::string case_path, output_dir;
  std::vector<std::string> overrides;
  auto* run = app.add_subcommand("run", "Run a case file (TOML); keys are listed in cases/README.md");
  run->add_option("case", case_path, "Case file, e.g. cases/lid_driven_cavity_2d.toml")->required();
  run->add_option("--set", overrides, "Override a case key: section.key=value, value as in TOML (repeatable)");
  run->add_option("--output", output_dir, "Output directory (overrides output.directory)");

  auto* info = app.add_subcommand("info", "Print the backend, the device with its memory, and the version");

  eddy::BenchOptions bench_options;
  std::string precision = "float";
  auto* bench = app.add_subcommand("bench", "Benchmark the fused kernel on a lid-driven cavity N^3");
  bench->add_option("--size", bench_options.size, "N: cells per axis (default 128)");
  bench->add_option("--steps", bench_options.steps, "Steps per repetition (default: calibrated to ~1 s)");
  bench->add_option("--repeat", bench_options.repetitions, "Timed repetitions (default 5)");
  bench->add_option("--warmup", bench_options.warmup_steps, "Warm-up steps, not timed (default 10)");
  bench->add_option("--precision", precision, "Storage precision: float (default) or double");
  bench->add_option("--json", bench_options.json_path, "Also write the results as JSON to this file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail(std::string(e.what()) + " (see eddy --help)", eddy::kExitInputError);
  }

  try {
    if (*info) {
      print_info(std::cout);
    } else if (*run) {
      std::cout << "eddy " << EDDY_VERSION << " (" << eddy::backend::name() << ")\n";
      eddy::CaseConfig config = eddy::load_case(case_path, overrides);
      if (run->count("--output")) {
        if (output_dir.empty()) throw eddy::InputError("--output: the output directory must not be empty");
        config.output_directory = output_dir;
      }
      eddy::run_case(config, std::cout);
    } else if (*bench) {
      bench_options.precision = parse_precision(precision);
      eddy::run_bench(bench_options, std::cout);
    }
  } catch (const eddy::InputError& e) {
    return fail(e.what(), eddy::kExitInputError);
  } catch (const eddy::InstabilityError& e) {
    return fail(e.what(), eddy::kExitUnstable);
  } catch (const eddy::OutputError& e) {
    return fail(e.what(), eddy::kExitOutputError);
  } catch (const eddy::DeviceError& e) {
    return fail(e.what(), e.out_of_memory() ? eddy::kExitNoMemory : eddy::kExitFailure);
  } catch (const std::bad_alloc&) {
    return fail("out of host memory; use a smaller domain", eddy::kExitNoMemory);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), eddy::kExitFailure);
  }
  return eddy::kExitOk;
}
