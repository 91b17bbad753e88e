#include "solver/output_directory.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/output_error.hpp"
#include "io/particle_output.hpp"
#include "io/path_limits.hpp"
#include "solver/checkpointing.hpp"
#include "solver/mpi_check.hpp"
#include "solver/reductions.hpp"

namespace eddy {

namespace {

namespace fs = std::filesystem;

/// The longest temporary-name suffix of this system: ".tmp." and a PID of 7 digits (Linux's pid_max is at most
/// 2^22 = 4194304), so the checks do not depend on the PID a run happens to get.
const std::string kTemporarySuffix = ".tmp.4194304";

int rank_of(MPI_Comm comm) {
  int rank = 0;
  EDDY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int size_of(MPI_Comm comm) {
  int size = 1;
  EDDY_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

/// `file` as messages show it: the 7-digit PID of a temporary name as "<pid>".
std::string shown(const std::string& file) {
  const std::size_t at = file.rfind(kTemporarySuffix);
  return at == std::string::npos || at + kTemporarySuffix.size() != file.size() ? file
                                                                                 : file.substr(0, at) + ".tmp.<pid>";
}

/// "N characters", for messages.
std::string characters(std::size_t n) { return std::to_string(n) + " characters"; }

// ---- 1. path limits ------------------------------------------------------------------------------------------

/// A directory the run writes into and the file names it forms there.
struct PlannedDirectory {
  std::string path;
  std::string source;  ///< the keys that set it, for messages
  std::vector<std::string> files;
};

/// The longest step field of a file name the run can form (%08lld of a step up to `steps`), as zeros.
std::string step_digits(std::int64_t steps) {
  return std::string(std::max<std::size_t>(8, std::to_string(steps).size()), '0');
}

/// The output directory's files of this run on rank `rank` of `ranks` (with their temporary names).
PlannedDirectory planned_output(const CaseConfig& config, int rank, int ranks) {
  PlannedDirectory d{config.output_directory, "output.directory or --output", {}};
  const std::string step = step_digits(config.steps), name = config.name;
  std::vector<std::string> files;
  if (config.write_vtk) {
    files.push_back(name + ".pvd");
    if (ranks == 1) {
      files.push_back(name + "_" + step + ".vti");
    } else {
      files.push_back(name + "_" + step + "_r" + std::to_string(rank) + ".vti");
      files.push_back(name + "_" + step + ".pvti");
    }
    if (config.particles.enabled) {
      const std::string stem = name + "_particles_" + step;  // particle_snapshot_stem with the most digits
      files.push_back(name + "_particles.pvd");
      if (ranks == 1) {
        files.push_back(stem + ".vtp");
      } else {
        files.push_back(particle_piece_name(stem, rank));
        files.push_back(stem + ".pvtp");
      }
    }
  }
  if (config.write_centerlines) files.push_back(name + "_centerlines.csv");
  for (const std::string& f : files) {
    d.files.push_back(f);
    d.files.push_back(f + kTemporarySuffix);
  }
  return d;
}

PlannedDirectory planned_checkpoints(const CaseConfig& config) {
  PlannedDirectory d{checkpoint_directory(config),
                     config.checkpoint_directory.empty() ? "output.directory or --output (checkpoints go to "
                                                           "<output>/checkpoints)"
                                                         : "checkpoint.directory",
                     {}};
  const std::string stem = config.name + "_checkpoint_" + step_digits(config.steps);
  for (const std::string& f : {stem + ".data", stem + ".toml"}) {
    d.files.push_back(f);
    d.files.push_back(f + kTemporarySuffix);
  }
  return d;
}

/// The first problem of `d` with the limits (empty: none). `ranks`: the communicator size MPI-IO opens
/// checkpoints on, or 0 for a directory without MPI-IO files.
std::string path_problem(const PlannedDirectory& d, const std::string& case_name, int ranks) {
  const std::string dir = d.path.empty() ? std::string(".") : d.path;
  if (dir.size() > kPathLimit) {
    return "the directory (" + d.source + ") '" + dir + "' has " + characters(dir.size()) +
           ", more than a path may have (" + std::to_string(kPathLimit) + ", PATH_MAX less its NUL)";
  }
  const std::size_t name_max = name_limit(dir);
  for (const fs::path& part : fs::path(dir)) {
    if (part.string().size() > name_max) {
      return "the directory (" + d.source + ") '" + dir + "' has a name of " + characters(part.string().size()) +
             ", more than the file system takes (" + std::to_string(name_max) + ", NAME_MAX): '" + part.string() +
             "'";
    }
  }
  const auto longest = std::max_element(d.files.begin(), d.files.end(), [](const auto& a, const auto& b) {
    return a.size() < b.size();
  });
  if (longest == d.files.end()) return {};
  if (longest->size() > name_max) {
    const std::size_t extra = longest->size() - std::min(longest->size(), case_name.size());
    return "case.name has " + characters(case_name.size()) + ": the file names it forms in '" + dir +
           "' (such as '" + shown(*longest) + "', " + characters(longest->size()) +
           (shown(*longest) != *longest ? " with a 7-digit PID" : "") + ") exceed the file system's " +
           std::to_string(name_max) + " characters per name (NAME_MAX); use a case.name of at most " +
           std::to_string(name_max > extra ? name_max - extra : 0) + " characters";
  }
  const std::string full = (fs::path(dir) / *longest).string();
  if (full.size() > kPathLimit) {
    return "the path '" + shown(full) + "' that this run would write has " + characters(full.size()) +
           ", more than a path may have (" + std::to_string(kPathLimit) + ", PATH_MAX less its NUL); use a shorter " +
           d.source + " or case.name";
  }
  if (ranks > 0) {  // the checkpoint's temporary data file, the longest name MPI-IO opens
    for (const std::string& f : d.files) {
      if (f.find(".data.tmp.") == std::string::npos) continue;
      const std::string path = (fs::path(dir) / f).string();
      if (!MpiIoName::possible(path, ranks)) {
        std::string problem = mpi_io_name_problem(path, ranks);
        for (std::size_t at = problem.find(kTemporarySuffix); at != std::string::npos;
             at = problem.find(kTemporarySuffix, at)) {
          problem.replace(at, kTemporarySuffix.size(), ".tmp.<pid>");
        }
        return "checkpoint " + problem + " (counted with a 7-digit PID); use a shorter case.name or " + d.source +
               ", or start the run closer to it";
      }
    }
  }
  return {};
}

}  // namespace

OutputDirectories::OutputDirectories(const CaseConfig& config, MPI_Comm world, std::ostream& log) {
  const int rank = rank_of(world), ranks = size_of(world);
  const bool writes_output = config.write_vtk || config.write_centerlines;
  const bool checkpoints = config.checkpoint_every > 0;

  // 1. Limits, before a directory is created.
  const PlannedDirectory output = planned_output(config, rank, ranks), saved = planned_checkpoints(config);
  agree_on_failure(world, [&] {
    if (writes_output) {
      const std::string problem = path_problem(output, config.name, 0);
      if (!problem.empty()) throw OutputError("output paths: " + problem);
    }
    if (checkpoints) {
      const std::string problem = path_problem(saved, config.name, ranks);
      if (!problem.empty()) throw OutputError("checkpoint paths: " + problem);
    }
  });
  if (!checkpoints && rank == 0) {  // only a stop signal writes a checkpoint: a warning now, exit 5 then
    const std::string problem = path_problem(saved, config.name, ranks);
    if (!problem.empty()) log << "warning: a stop signal's checkpoint could not be written: " << problem << "\n";
  }

  // 2. The directories.
  if (writes_output) agree_on_failure(world, [&] { ensure_writable_directory(output.path); });
  if (checkpoints) agree_on_failure(world, [&] { ensure_writable_directory(saved.path); });
}

}  // namespace eddy
