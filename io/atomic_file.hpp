// Atomic file replacement: write to a temporary name in the target's directory, then rename over the target,
// so readers (ParaView, a restarted run) never see a truncated file and the previous version survives a crash.
#pragma once

#include <string>

namespace eddy {

/// Writes `contents` to `path` through "<path>.tmp.<pid>" and std::rename. Creates missing parent
/// directories of `path`; a symbolic link at `path` is followed and kept, and its target is written only where its
/// directory exists (none is created for it). Throws OutputError naming the path and the system error; the old file
/// is left untouched.
void write_file_atomically(const std::string& path, const std::string& contents);

/// Renames `tmp_path` over `path` (same directory). Throws OutputError; removes `tmp_path` on failure.
void commit_temporary_file(const std::string& tmp_path, const std::string& path);

/// The file that replacing `path` replaces: `path`, or the file a chain of symbolic links at `path` points to.
/// Throws OutputError when that file exists and is not a regular file (a device, a FIFO, a socket, a directory).
std::string replacement_target(const std::string& path);

/// The temporary name used for `path` by this process: "<path>.tmp.<pid>".
std::string temporary_name(const std::string& path);

/// Creates `dir` and its parents if missing; throws OutputError if it cannot, or if it is not writable.
void ensure_writable_directory(const std::string& dir);

}  // namespace eddy
