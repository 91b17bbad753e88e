#include "io/path_limits.hpp"

#include <mpi.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace eddy {

namespace {

namespace fs = std::filesystem;

/// True when directories `a` and `b` are the same one (device and inode), or when either does not exist yet (then
/// the names were derived lexically from each other and nothing more can be checked).
bool same_directory(const fs::path& a, const fs::path& b) {
  struct stat sa {}, sb {};
  const std::string na = a.empty() ? std::string(".") : a.string(), nb = b.empty() ? std::string(".") : b.string();
  if (::stat(na.c_str(), &sa) != 0 || ::stat(nb.c_str(), &sb) != 0) return true;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::size_t digits(long long n) {
  std::size_t count = 1;
  while (n >= 10) {
    n /= 10;
    ++count;
  }
  return count;
}

}  // namespace

std::size_t name_limit(const std::string& directory) {
  std::error_code ec;
  fs::path dir = directory.empty() ? fs::path(".") : fs::path(directory);
  while (!fs::exists(dir, ec)) {  // the nearest existing parent: the file system the new directories will be on
    const fs::path parent = dir.parent_path();
    if (parent.empty() || parent == dir) {
      dir = dir.is_absolute() ? dir.root_path() : fs::path(".");
      break;
    }
    dir = parent;
  }
  const long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return limit > 0 ? std::size_t(limit) : std::size_t(NAME_MAX);
}

std::size_t mpi_io_name_limit(int ranks) {
#ifdef OPEN_MPI
  // char filename[256]; sprintf(filename, "%s.locktest.%d", name, rank): 255 - 10 - digits(rank) characters.
  return 245 - digits(std::max(ranks, 1) - 1);
#else
  (void)ranks;
  return kPathLimit;
#endif
}

namespace {

/// The shortest of `path`, its absolute form and its form relative to the working directory (the existing part's
/// symbolic links resolved) that fits `limit` and leads to the same directory; empty when none does.
std::string shortest_plain_name(const std::string& path, std::size_t limit) {
  if (path.size() <= limit) return path;
  std::error_code ec;
  const fs::path given(path), file = given.filename();
  const fs::path cwd = fs::current_path(ec);
  if (ec || file.empty()) return {};
  const fs::path dir = fs::weakly_canonical((given.is_absolute() ? given : cwd / given).parent_path(), ec);
  if (ec) return {};
  std::vector<std::string> candidates = {(dir / file).string()};
  const fs::path relative = dir.lexically_relative(fs::weakly_canonical(cwd, ec));
  if (!ec && !relative.empty()) candidates.push_back(relative == "." ? file.string() : (relative / file).string());
  std::sort(candidates.begin(), candidates.end(),
            [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  for (const std::string& candidate : candidates) {
    if (candidate.size() <= limit && same_directory(fs::path(candidate).parent_path(), given.parent_path())) {
      return candidate;
    }
  }
  return {};
}

constexpr const char* kProcFd = "/proc/self/fd/";

bool have_proc_fd() { return ::access(kProcFd, X_OK) == 0; }

}  // namespace

MpiIoName::MpiIoName(const std::string& path, int ranks) {
  const std::size_t limit = mpi_io_name_limit(ranks);
  name_ = shortest_plain_name(path, limit);
  if (!name_.empty() || !have_proc_fd()) return;
  const fs::path given(path);
  const std::string file = given.filename().string();
  const std::string dir = given.parent_path().empty() ? std::string(".") : given.parent_path().string();
#ifdef O_PATH
  const int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;  // no read permission needed
#else
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
#endif
  if (file.empty() || dir.size() > kPathLimit) return;
  directory_fd_ = ::open(dir.c_str(), flags);
  if (directory_fd_ < 0) return;
  const std::string name = kProcFd + std::to_string(directory_fd_) + "/" + file;
  if (name.size() <= limit) name_ = name;
}

MpiIoName::~MpiIoName() {
  if (directory_fd_ >= 0) ::close(directory_fd_);
}

bool MpiIoName::possible(const std::string& path, int ranks) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (fs::is_directory(parent.empty() ? fs::path(".") : parent, ec)) return MpiIoName(path, ranks).found();
  const std::size_t limit = mpi_io_name_limit(ranks);
  if (!shortest_plain_name(path, limit).empty()) return true;
  return have_proc_fd() && std::string(kProcFd).size() + 4 + 1 + fs::path(path).filename().string().size() <= limit;
}

std::string mpi_io_name_problem(const std::string& path, int ranks) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return "'" + path + "' has " + std::to_string(path.size()) + " characters, more than the " +
         std::to_string(mpi_io_name_limit(ranks)) + " that MPI_File_open takes on " + std::to_string(ranks) +
         (ranks == 1 ? " rank" : " ranks") +
#ifdef OPEN_MPI
         " (Open MPI aborts beyond that)" +
#endif
         ", and no shorter name leads there (from the working directory" +
         (ec ? std::string() : " '" + cwd.string() + "'") + ", or as " + kProcFd + "<n>/" +
         fs::path(path).filename().string() + ")";
}

}  // namespace eddy
