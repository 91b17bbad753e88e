// Atomic file replacement (see atomic_file.hpp): write "<path>.tmp.<pid>", flush it to disk, rename it over
// <path>. Every failure throws OutputError naming the path and the system error, removes the temporary file and
// leaves the previous <path> as it was. Only regular files are replaced: an existing device, FIFO, socket or
// directory at <path> is an error (as root, renaming over /dev/null would replace the device), and a symbolic link
// is followed, so that its target gets the new contents and the link stays.
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "io/file_kind.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;

/// "<what> '<path>': <strerror(error)>", the one message format of this file.
std::string describe(const std::string& what, const std::string& path, int error) {
  return what + " '" + path + "': " + std::strerror(error);
}

/// Removes the file `path` if it exists; never removes a directory, never throws (used on error paths).
void remove_quietly(const std::string& path) { ::unlink(path.c_str()); }

/// The directory that holds `path` ("." for a bare file name).
std::string parent_directory(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

/// Writes all of `contents` to the open descriptor `fd`, retrying short writes and EINTR.
/// Returns 0 or the errno of the failed write (ENOSPC on a full disk).
int write_all(int fd, const std::string& contents) {
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  return 0;
}

/// Flushes the file `path` to stable storage, so that the rename never exposes an empty or partial file after
/// a power loss. Returns 0 or the errno of the failed open/fsync/close (delayed write errors show up here).
int sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int error = 0;
  if (::fsync(fd) != 0 && errno != EINVAL) error = errno;  // EINVAL: the file system does not support fsync
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

/// Moves the temporary file `tmp` next to `target` (a symlink's target may be on another file system, where
/// rename fails with EXDEV); returns the new temporary name, or `tmp` when it is already there.
std::string move_next_to(const std::string& tmp, const std::string& target) {
  if (fs::path(tmp).parent_path() == fs::path(target).parent_path()) return tmp;
  const std::string moved = temporary_name(target);
  if (std::rename(tmp.c_str(), moved.c_str()) == 0) return moved;
  std::error_code ec;
  fs::copy_file(tmp, moved, fs::copy_options::overwrite_existing, ec);
  remove_quietly(tmp);
  if (ec) {
    remove_quietly(moved);
    throw OutputError("cannot write output file '" + target + "': " + ec.message());
  }
  return moved;
}

/// Best effort: makes the rename itself durable. Failures are ignored (the new file is already complete).
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

/// The file that replacing `path` must replace: `path` itself, or for a symbolic link (a chain of them, possibly
/// dangling) the file it points to, so that the link survives and its target gets the new contents. Throws
/// OutputError, before anything is written, when that file exists and is not a regular file (a device such as
/// /dev/null, a FIFO, a socket, a directory): renaming over it would replace it.
std::string replacement_target(const std::string& path) {
  fs::path target = path;
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(target, ec);
    if (status.type() == fs::file_type::not_found) return target.string();  // a new file (or a missing directory)
    if (ec) throw OutputError("cannot write output file '" + path + "': " + ec.message());
    if (fs::is_regular_file(status)) return target.string();
    if (!fs::is_symlink(status)) {
      std::string what = path + ": exists and is not a regular file; refusing to replace it (";
      if (target != fs::path(path)) what += "it points to '" + target.string() + "', ";
      throw OutputError(what + file_kind(status.type()) + ")");
    }
    if (hops >= 40) throw OutputError(describe("cannot write output file", path, ELOOP));
    const fs::path link = fs::read_symlink(target, ec);
    if (ec) throw OutputError("cannot write output file '" + path + "': " + ec.message());
    target = link.is_absolute() ? link : target.parent_path() / link;  // relative links: from the link's directory
  }
}

std::string temporary_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

void ensure_writable_directory(const std::string& dir) {
  const std::string target = dir.empty() ? std::string(".") : dir;
  const std::string problem = not_a_directory(target);  // create_directories says only "File exists" for these
  if (!problem.empty()) throw OutputError("cannot use output directory '" + target + "': it " + problem);
  std::error_code ec;
  fs::create_directories(target, ec);
  if (ec) throw OutputError("cannot create output directory '" + target + "': " + ec.message());
  if (!fs::is_directory(target, ec)) {
    throw OutputError("cannot write into '" + target + "': " + (ec ? ec.message() : "not a directory"));
  }
  if (::access(target.c_str(), W_OK | X_OK) != 0) throw OutputError(describe("cannot write into", target, errno));
}

void commit_temporary_file(const std::string& tmp_path, const std::string& path) {
  std::string target;
  std::string tmp = tmp_path;
  try {
    target = replacement_target(path);
    tmp = move_next_to(tmp_path, target);
  } catch (...) {
    remove_quietly(tmp_path);
    throw;
  }
  const int sync_error = sync_file(tmp);
  if (sync_error != 0) {
    remove_quietly(tmp);
    throw OutputError(describe("cannot write output file", path, sync_error));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    remove_quietly(tmp);
    throw OutputError("cannot rename '" + tmp + "' to '" + target + "': " + std::strerror(error));
  }
  sync_directory(parent_directory(target));
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string target = replacement_target(path);  // throws before anything is written
  const std::string directory = parent_directory(target);
  std::error_code ec;
  if (target == path) {
    ensure_writable_directory(directory);
  } else if (!fs::is_directory(directory, ec)) {
    // A link's target is written where it points, but no directory is made for it there: a dangling link must not
    // create directories anywhere on the file system (the VTK writers refuse it alike).
    throw OutputError("cannot write output file '" + path + "': it is a symbolic link to '" + target +
                      "', whose directory does not exist");
  }
  const std::string tmp = temporary_name(target);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(describe("cannot write output file", path, errno));
  int error = write_all(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;  // NFS and quota errors can surface only at close
  if (error != 0) {
    remove_quietly(tmp);
    throw OutputError(describe("cannot write output file", path, error));
  }
  commit_temporary_file(tmp, target);
}

}  // namespace eddy
