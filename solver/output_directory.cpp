#include "solver/output_directory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>

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

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

/// `text` from rank 0 on every rank of `comm`.
std::string broadcast(std::string text, MPI_Comm comm) {
  int length = static_cast<int>(text.size());
  EDDY_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, comm));
  text.resize(std::size_t(length));
  EDDY_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm));
  return text;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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

// ---- 3. one directory on every rank ----------------------------------------------------------------------------

/// Random hexadecimal digits (std::random_device).
std::string random_hex(int digits) {
  std::random_device device;
  std::string text;
  const char* hex = "0123456789abcdef";
  while (int(text.size()) < digits) {
    unsigned value = device();
    for (int i = 0; i < 8 && int(text.size()) < digits; ++i, value >>= 4) text += hex[value & 15u];
  }
  return text;
}

std::string absolute_text(const std::string& dir) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  return ec ? dir : absolute.lexically_normal().string();
}

/// Shows that `dir` is the same directory on every rank of `comm` (collective; nothing to do on one rank).
void check_same_directory(const std::string& dir, const std::string& what, MPI_Comm comm) {
  const int rank = rank_of(comm), size = size_of(comm);
  if (size == 1) return;
  std::string token, name, host0 = host_name(), where0 = absolute_text(dir);
  if (rank == 0) {
    token = "eddy: rank 0 checks that every rank sees this directory; " + random_hex(32) + "\n";
    name = ".eddy_shared_check." + std::to_string(::getpid()) + "." + random_hex(8);
  }
  token = broadcast(token, comm);
  name = broadcast(name, comm);
  host0 = broadcast(host0, comm);
  where0 = broadcast(where0, comm);
  const std::string path = (fs::path(dir.empty() ? "." : dir) / name).string();
  agree_on_failure(comm, [&] {
    if (rank == 0) write_file_atomically(path, token);
  });
  try {
    agree_on_failure(comm, [&] {
      if (rank == 0) return;
      for (int attempt = 0; attempt < 10; ++attempt) {  // another node's client may take a moment to see it
        if (read_all(path) == token) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      throw OutputError(what + " '" + dir + "' is not the same directory on every rank: rank " +
                        std::to_string(rank) + " (host " + host_name() + ", '" + absolute_text(dir) +
                        "') does not see the file that rank 0 (host " + host0 + ", '" + where0 +
                        "') wrote into it, so the ranks would write separate files and hang in MPI-IO (a node-local "
                        "directory such as /tmp on several nodes, or a relative path from different working "
                        "directories?); give a directory on a file system that all ranks share");
    });
  } catch (...) {
    if (rank == 0) ::unlink(path.c_str());
    throw;
  }
  if (rank == 0) ::unlink(path.c_str());
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

  // 3. The same directories on every rank.
  if (writes_output) check_same_directory(output.path, "the output directory", world);
  if (checkpoints) check_same_directory(saved.path, "the checkpoint directory", world);
}

}  // namespace eddy
