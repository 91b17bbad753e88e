// Limits on the paths eddy writes and reads: the file system's per-name limit (NAME_MAX), the system calls' limit on
// a whole path (PATH_MAX), and the shorter limit of Open MPI's MPI_File_open, which aborts the process beyond it.
#pragma once

#include <cstddef>
#include <string>

namespace eddy {

/// Longest path string a system call takes: PATH_MAX (4096 on Linux) less its terminating NUL.
inline constexpr std::size_t kPathLimit = 4095;

/// Longest file name (one path component, in bytes) of the file system that holds `directory`: pathconf's
/// _PC_NAME_MAX of it, or of its nearest existing parent; NAME_MAX (255) when that cannot be asked. Never throws.
std::size_t name_limit(const std::string& directory);

/// Longest file name MPI_File_open takes on a communicator of `ranks` ranks. Open MPI (4.1, and its current
/// sources) formats "<name>.locktest.<rank>" into a 256-byte buffer while opening (sharedfp/lockedfile's query) and
/// aborts with "*** buffer overflow detected ***" when it does not fit: 245 - digits(ranks - 1) characters, 244 up
/// to 10 ranks (found by experiment with Open MPI 4.1.4: 244 opens on 1 and 2 ranks, 245 aborts; on 11 ranks 243
/// opens, 244 aborts). Other MPI libraries: kPathLimit.
std::size_t mpi_io_name_limit(int ranks);

/// The name this process passes MPI_File_open for `path` (a file in a directory) on `ranks` ranks, chosen when
/// constructed: `path` itself when it fits mpi_io_name_limit; else the shortest of the absolute path and the path
/// relative to the working directory (symbolic links of the existing part resolved) that fits and leads to the same
/// directory; else, where the directory exists and /proc/self/fd does (Linux), "/proc/self/fd/<n>/<file name>"
/// through a descriptor of the directory that this object holds open until it is destroyed (keep it alive until
/// MPI_File_close). The names of several ranks may differ and still name the same file. Never throws.
class MpiIoName {
 public:
  MpiIoName(const std::string& path, int ranks);
  ~MpiIoName();
  MpiIoName(const MpiIoName&) = delete;
  MpiIoName& operator=(const MpiIoName&) = delete;

  /// False when no name fits: the file cannot be opened with MPI-IO without crashing.
  bool found() const { return !name_.empty(); }
  const std::string& name() const { return name_; }

  /// Whether a name would be found for `path`, also when its directory does not exist yet (then the
  /// /proc/self/fd name is judged with a descriptor number of 4 digits).
  static bool possible(const std::string& path, int ranks);

 private:
  std::string name_;
  int directory_fd_ = -1;
};

/// Why MpiIoName found no name for `path`, for messages: "'<path>' has N characters, more than the M that
/// MPI_File_open takes on R ranks (...), and no shorter name leads there".
std::string mpi_io_name_problem(const std::string& path, int ranks);

}  // namespace eddy
