#include "solver/output_directory.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <thread>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "solver/errors.hpp"
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

/// True when a solid has forces = true: the run writes <case>_forces.csv.
bool writes_forces(const CaseConfig& config) {
  for (const SolidConfig& s : config.solids)
    if (s.forces) return true;
  return false;
}

/// The longest step field of a file name the run can form (%08lld of a step up to `steps`), as zeros.
std::string step_digits(std::int64_t steps) {
  return std::string(std::max<std::size_t>(8, std::to_string(steps).size()), '0');
}

/// The files of one image series <stem>.pvd on rank `rank` of `ranks`: <stem>_<step>.vti, or its piece and .pvti.
void add_image_series(std::vector<std::string>& files, const std::string& stem, const std::string& step, int rank,
                      int ranks) {
  files.push_back(stem + ".pvd");
  if (ranks == 1) {
    files.push_back(stem + "_" + step + ".vti");
  } else {
    files.push_back(stem + "_" + step + "_r" + std::to_string(rank) + ".vti");
    files.push_back(stem + "_" + step + ".pvti");
  }
}

/// The output directory's files of this run on rank `rank` of `ranks` (with their temporary names).
PlannedDirectory planned_output(const CaseConfig& config, int rank, int ranks) {
  PlannedDirectory d{config.output_directory, "output.directory or --output", {}};
  const std::string step = step_digits(config.steps), name = config.name;
  std::vector<std::string> files;
  if (config.write_vtk) {
    add_image_series(files, name, step, rank, ranks);
    if (!config.solids.empty()) files.push_back(name + "_solids.vtp");
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
  for (const SliceConfig& slice : config.slices) {
    add_image_series(files, name + "_slice_" + slice.name, step, rank, ranks);
  }
  if (config.write_centerlines) files.push_back(name + "_centerlines.csv");
  if (writes_forces(config)) files.push_back(name + "_forces.csv");
  for (const std::string& f : files) {
    d.files.push_back(f);
    d.files.push_back(f + kTemporarySuffix);
  }
  d.files.push_back(kLockFileName);
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
  d.files.push_back(kLockFileName);
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
  if (longest->size() > name_max && longest->rfind(case_name + "_slice_", 0) == 0) {  // a slice's name is part of it
    const std::size_t extra = longest->size() - name_max;
    return "the file names of a slice in '" + dir + "' (such as '" + shown(*longest) + "', " +
           characters(longest->size()) + ") exceed the file system's " + std::to_string(name_max) +
           " characters per name (NAME_MAX): shorten that output.slice name (or case.name, " +
           characters(case_name.size()) + ") by at least " + characters(extra);
  }
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

// ---- 4. locks ----------------------------------------------------------------------------------------------------

/// The start time of process `pid` in clock ticks after boot (field 22 of /proc/<pid>/stat), or -1.
long long process_start(long long pid) {
  const std::string stat = read_all("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int k = 3; k <= 22; ++k) {  // fields after "pid (comm)" start at 3
    if (!(fields >> field)) return -1;
  }
  try {
    return std::stoll(field);
  } catch (const std::exception&) {
    return -1;
  }
}

struct LockOwner {
  long long pid = -1;
  long long start = -1;  ///< -1: not recorded
  std::string host, case_name;
};

/// The value of `key = value` in the lock's text (quotes removed), or "".
std::string lock_value(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::size_t at = line.find('=', key.size());
    if (at == std::string::npos || line.find_first_not_of(' ', key.size()) != at) continue;
    std::string value = line.substr(at + 1);
    value.erase(0, value.find_first_not_of(' '));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.pop_back();
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return {};
}

bool parse_owner(const std::string& text, LockOwner& owner) {
  try {
    owner.pid = std::stoll(lock_value(text, "pid"));
  } catch (const std::exception&) {
    return false;
  }
  owner.host = lock_value(text, "host");
  owner.case_name = lock_value(text, "case");
  try {
    const std::string start = lock_value(text, "start");
    owner.start = start.empty() ? -1 : std::stoll(start);
  } catch (const std::exception&) {
    owner.start = -1;
  }
  return owner.pid > 0 && !owner.host.empty();
}

/// Whether the process of `owner` (on this host) still runs: it exists and, where the lock recorded it, started
/// when the lock says (not a later process that got the same PID).
bool alive(const LockOwner& owner) {
  if (::kill(pid_t(owner.pid), 0) != 0 && errno == ESRCH) return false;
  if (owner.start >= 0) {
    const long long start = process_start(owner.pid);
    if (start >= 0 && start != owner.start) return false;
  }
  return true;
}

std::string lock_contents(const CaseConfig& config) {
  const long long pid = ::getpid();
  return "# eddy: a run writes into this directory; it removes this file when it ends. Remove it by hand only when\n"
         "# that process is gone (a run finding it with a process gone from this host takes it over).\n"
         "pid = " + std::to_string(pid) + "\nhost = \"" + host_name() + "\"\nstart = " +
         std::to_string(process_start(pid)) + "\ncase = \"" + config.name + "\"\n";
}

/// Takes the lock of directory `dir` (rank 0), taking over a stale one with a line on `log`. Throws OutputError
/// naming the holder when another live run holds it (or a run on another host, whose life cannot be checked).
void take_lock(const std::string& dir, const std::string& contents, std::ostream& log) {
  const std::string path = (fs::path(dir.empty() ? "." : dir) / kLockFileName).string();
  const std::string me = host_name();
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const ssize_t written = ::write(fd, contents.data(), contents.size());
      const int close_error = ::close(fd);
      if (written != ssize_t(contents.size()) || close_error != 0) {
        ::unlink(path.c_str());
        throw OutputError("cannot write the lock file '" + path + "': " + std::strerror(errno));
      }
      return;
    }
    if (errno != EEXIST) throw OutputError("cannot create the lock file '" + path + "': " + std::strerror(errno));
    const std::string text = read_all(path);
    LockOwner owner;
    if (!parse_owner(text, owner)) {
      // Another run may be writing it right now: look again, and only then take it as stale.
      if (attempt < 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      log << "output      took over the stale lock " << path << ", which names no process\n";
      ::unlink(path.c_str());
      continue;
    }
    const std::string holder = "process " + std::to_string(owner.pid) + " on host " + owner.host +
                               (owner.case_name.empty() ? std::string() : ", case '" + owner.case_name + "'");
    if (owner.host != me) {
      throw OutputError("directory '" + dir + "' is in use by another eddy run: " + holder + " (lock file " + path +
                        "; if that run has ended, remove the file)");
    }
    if (alive(owner)) {
      throw OutputError("directory '" + dir + "' is in use by another eddy run: " + holder + " (lock file " + path +
                        "); wait for it to end or give this run another directory (--output, checkpoint.directory)");
    }
    log << "output      took over the stale lock " << path << " of " << holder << " (no longer running)\n";
    ::unlink(path.c_str());
  }
  throw OutputError("cannot take the lock file '" + path + "': other runs keep replacing it");
}

/// Whether `inner` is `outer` or lies inside it (paths as the file system resolves them).
bool inside(const std::string& inner, const std::string& outer) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(inner.empty() ? "." : inner, ec);
  if (ec) return false;
  const fs::path b = fs::weakly_canonical(outer.empty() ? "." : outer, ec);
  if (ec) return false;
  const fs::path relative = a.lexically_relative(b);
  return !relative.empty() && *relative.begin() != "..";
}

// ---- 5. leftover temporary files ----------------------------------------------------------------------------

/// Removes this case's temporary files older than `start` from `dirs` (rank 0) and says so on `log`.
void remove_leftovers(const std::vector<std::string>& dirs, const std::string& case_name,
                      fs::file_time_type start, std::ostream& log) {
  std::vector<std::string> removed;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& file = it->path();
      std::error_code type_error;
      if (!it->is_regular_file(type_error) || !is_case_temporary(file.filename().string(), case_name)) continue;
      const fs::file_time_type written = fs::last_write_time(file, type_error);
      if (type_error || written >= start) continue;
      if (fs::remove(file, type_error)) removed.push_back(file.string());
    }
  }
  if (removed.empty()) return;
  log << "output      removed " << removed.size() << " leftover temporary file" << (removed.size() == 1 ? "" : "s")
      << " of earlier runs of this case (stopped while writing):";
  for (std::size_t k = 0; k < removed.size() && k < 3; ++k) log << (k ? ", " : " ") << removed[k];
  if (removed.size() > 3) log << ", ...";
  log << "\n";
}

bool all_digits(const std::string& text, std::size_t from, std::size_t to) {
  if (from >= to) return false;
  for (std::size_t k = from; k < to; ++k) {
    if (text[k] < '0' || text[k] > '9') return false;
  }
  return true;
}

/// Whether `rest` (a file name after "<case>") is one of the names a run of the case writes.
bool is_case_file_rest(const std::string& rest) {
  for (const char* fixed : {".pvd", "_particles.pvd", "_centerlines.csv", "_solids.vtp", "_forces.csv"}) {
    if (rest == fixed) return true;
  }
  if (rest.compare(0, 7, "_slice_") == 0) {  // _slice_<name>.pvd, _slice_<name>_<step>[_r<rank>].vti, .pvti
    const std::size_t dot = rest.rfind('.');
    if (dot == std::string::npos || dot <= 7) return false;
    const std::string extension = rest.substr(dot);
    if (extension == ".pvd") return true;
    std::string stem = rest.substr(7, dot - 7);
    const std::size_t r = stem.rfind("_r");
    const bool piece = r != std::string::npos && r + 2 < stem.size() && all_digits(stem, r + 2, stem.size());
    if (piece) stem.resize(r);
    const std::size_t step = stem.rfind('_');
    if (step == std::string::npos || step == 0 || step + 1 == stem.size() || !all_digits(stem, step + 1, stem.size()))
      return false;
    return extension == ".vti" || (!piece && extension == ".pvti");
  }
  std::string body = rest;
  for (const char* prefix : {"_checkpoint_", "_particles_", "_"}) {
    if (rest.compare(0, std::strlen(prefix), prefix) != 0) continue;
    body = rest.substr(std::strlen(prefix));
    const std::size_t dot = body.find('.');
    if (dot == std::string::npos) return false;
    const std::string extension = body.substr(dot), stem = body.substr(0, dot);
    const std::size_t r = stem.find("_r");
    const bool piece = r != std::string::npos && all_digits(stem, r + 2, stem.size()) && all_digits(stem, 0, r);
    const bool plain = all_digits(stem, 0, stem.size());
    if (std::strcmp(prefix, "_checkpoint_") == 0) return plain && (extension == ".data" || extension == ".toml");
    if (std::strcmp(prefix, "_particles_") == 0) {
      return (plain && extension == ".pvtp") || ((plain || piece) && extension == ".vtp");
    }
    return (plain && extension == ".pvti") || ((plain || piece) && extension == ".vti");
  }
  return false;
}

}  // namespace

bool is_case_temporary(const std::string& file, const std::string& case_name) {
  if (file.compare(0, case_name.size(), case_name) != 0) return false;
  const std::size_t tmp = file.rfind(".tmp");
  if (tmp == std::string::npos || tmp < case_name.size()) return false;
  const std::size_t after = tmp + 4;
  if (after != file.size() && !(file[after] == '.' && all_digits(file, after + 1, file.size()))) return false;
  return is_case_file_rest(file.substr(case_name.size(), tmp - case_name.size()));
}

OutputDirectories::OutputDirectories(const CaseConfig& config, MPI_Comm world, std::ostream& log) {
  const fs::file_time_type start = fs::file_time_type::clock::now();
  const int rank = rank_of(world), ranks = size_of(world);
  const bool writes_output =
      config.write_vtk || !config.slices.empty() || config.write_centerlines || writes_forces(config);
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

  // 4. Locks: the output directory (which holds the default checkpoint directory), and a checkpoint directory
  // elsewhere.
  std::vector<std::string> locked;
  if (writes_output || (checkpoints && config.checkpoint_directory.empty())) locked.push_back(output.path);
  if (checkpoints && (locked.empty() || !inside(saved.path, output.path))) locked.push_back(saved.path);
  const std::string contents = lock_contents(config);
  rank_ = rank;
  try {
    for (const std::string& dir : locked) {
      agree_on_failure(world, [&] {
        if (rank == 0) take_lock(dir, contents, log);
      });
      locks_.push_back({(fs::path(dir.empty() ? "." : dir) / kLockFileName).string(), contents});
    }
  } catch (...) {
    release();  // the locks taken so far
    throw;
  }

  // 5. What killed runs of this case left behind (the directories are ours now).
  if (rank == 0) {
    std::vector<std::string> dirs = locked;
    if (checkpoints && std::find(dirs.begin(), dirs.end(), saved.path) == dirs.end()) dirs.push_back(saved.path);
    remove_leftovers(dirs, config.name, start, log);
  }
}

OutputDirectories::~OutputDirectories() { release(); }

void OutputDirectories::release() noexcept {
  for (const Lock& lock : locks_) {
    try {
      if (rank_ == 0 && read_all(lock.path) == lock.contents) ::unlink(lock.path.c_str());  // still ours
    } catch (...) {
    }
  }
  locks_.clear();
}

}  // namespace eddy
