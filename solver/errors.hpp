// Every error eddy reports to its user, in one place: the exception types, the exit code each one ends the run
// with (README.md "Exit codes"), and the two ways a message is kept on one line. Header-only and free of MPI and
// GPU headers, so io/, solver/ and the host side of kernels/ all throw the same types; main() catches them, prints
// "eddy: error: <what()>" once and exits with the type's code. The checked wrappers for MPI and GPU runtime calls
// that throw MpiError and DeviceError are solver/mpi_check.hpp and EDDY_GPU_CHECK in kernels/backend.hpp (the GPU
// runtime's names are mapped there, in the backend switch).
#pragma once

#include <stdexcept>
#include <string>

namespace eddy {

// ---- exit codes (documented in README.md) ------------------------------------------------------------------------
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;          ///< internal, GPU runtime or MPI error (DeviceError, MpiError)
inline constexpr int kExitInputError = 2;       ///< InputError: bad case content, key, value, override, command line
inline constexpr int kExitUnstable = 3;         ///< InstabilityError: NaN or |u| > 0.5 during a run
inline constexpr int kExitNoMemory = 4;         ///< DeviceError with out_of_memory(), std::bad_alloc
inline constexpr int kExitOutputError = 5;      ///< OutputError: output directory or file cannot be written
inline constexpr int kExitCheckpointError = 6;  ///< CheckpointError: --restart checkpoint unusable
inline constexpr int kExitRankCount = 7;        ///< RankCountError: the MPI rank count does not fit
inline constexpr int kExitCaseFileError = 8;    ///< CaseFileError: the case file (or a file it names) cannot be read

// ---- input --------------------------------------------------------------------------------------------------------
/// Any invalid user input (unknown key, wrong type, out-of-range value). Exit code 2 (kExitInputError).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The case file, or a file it names (a [[solid]] mesh or voxel file, io/solid_files.hpp), cannot be read: missing,
/// a directory or not a regular file, unreadable. Exit code 8.
class CaseFileError : public InputError {
 public:
  using InputError::InputError;
};

/// An input error that every rank detects alike (same case, same rank count), so all ranks can exit together.
class CollectiveInputError : public InputError {
 public:
  using InputError::InputError;
};

/// The MPI rank count does not fit the grid or parallel.ranks (every rank detects it alike). Exit code 7.
class RankCountError : public CollectiveInputError {
 public:
  using CollectiveInputError::CollectiveInputError;
};

// ---- output and checkpoints ---------------------------------------------------------------------------------------
/// A file eddy must write could not be written (unwritable or full directory, failed rename). Exit code 5.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An output error that every rank has been told about (solver/output_directory.hpp agree_on_failure), so all
/// ranks exit together.
class CollectiveOutputError : public OutputError {
 public:
  using OutputError::OutputError;
};

/// A checkpoint that cannot be read or used: missing, not a checkpoint, truncated, corrupted (checksum), or from
/// another grid, storage or set of fields. Exit code 6.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- the run ------------------------------------------------------------------------------------------------------
/// The flow blew up (NaN, or |u| above kMaxLatticeSpeed, solver/simulation.hpp). Exit code 3.
class InstabilityError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A GPU runtime call failed, or device memory ran out. Exit code 4 for memory, 1 otherwise.
class DeviceError : public std::runtime_error {
 public:
  DeviceError(const std::string& what, bool out_of_memory) : std::runtime_error(what), out_of_memory_(out_of_memory) {}
  bool out_of_memory() const { return out_of_memory_; }

 private:
  bool out_of_memory_;
};

/// An MPI call failed (solver/mpi_check.hpp EDDY_MPI_CHECK). Exit code 1.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- one line per message -----------------------------------------------------------------------------------------
/// For messages built from hostile input (a case file's keys and values): line breaks and the other ASCII control
/// characters (a NUL would cut what() short, an escape drives the terminal, a vertical tab breaks the line) become
/// spaces; tabs stay.
inline std::string blank_control_characters(std::string text) {
  for (char& ch : text) {
    const auto code = static_cast<unsigned char>(ch);
    if ((code < 0x20 && ch != '\t') || code == 0x7f) ch = ' ';
  }
  return text;
}

/// For printing any message on one line: every control character (a newline in a path, a tab) as \xNN.
inline std::string escape_control_characters(const std::string& text) {
  static const char* const digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace eddy
