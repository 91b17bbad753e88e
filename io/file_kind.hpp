// What is at a path, in words, for error messages that name the real problem ("is a FIFO", "is a symbolic link
// to '/scratch/run', which does not exist") instead of a generic "not found" or "File exists".
#pragma once

#include <filesystem>
#include <string>

namespace eddy {

/// "a FIFO", "a character device", "a directory", ... for a file type that is not a regular file.
std::string file_kind(std::filesystem::file_type type);

/// Why `path` cannot be read as a regular file, as a phrase after the path: "" when it is one (following symbolic
/// links), else "not found", "is a FIFO, not a regular file", "is a symbolic link to 'X', which does not
/// exist", "is a loop of symbolic links", or the system error. Never throws, never opens the file (so a FIFO does
/// not block).
std::string not_a_regular_file(const std::string& path);

/// Why `path` cannot be used as a directory that may still have to be created: "" when it is a directory (following
/// symbolic links) or nothing is there, else "is a regular file, not a directory", "is a symbolic link to 'X', which
/// does not exist", "is a loop of symbolic links", or the system error. Never throws.
std::string not_a_directory(const std::string& path);

}  // namespace eddy
