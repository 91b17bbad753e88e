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
inline constexpr int kExitNoMemory = 4;         ///< OutOfMemoryError, std::bad_alloc
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
/// a directory or not a regular file, unreadable. Exit code 8. Not collective: a file can be missing on one node
/// only (the run's readers agree over the ranks themselves, solver/main.cpp; one met later ends the job).
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

/// A GPU runtime call failed (or no GPU is visible to a GPU build). Exit code 1.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  /// True for an OutOfMemoryError.
  bool out_of_memory() const;
};

/// Device memory (or, on the cpu backend and for pinned buffers, host memory) ran out, or the domain does not fit
/// the free memory. Exit code 4.
class OutOfMemoryError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

inline bool DeviceError::out_of_memory() const { return dynamic_cast<const OutOfMemoryError*>(this) != nullptr; }

/// An MPI call failed (solver/mpi_check.hpp EDDY_MPI_CHECK). Exit code 1.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- the one list of the types above ---------------------------------------------------------------------------
/// Every error type of this file: X(type, parent, exit code, collective, doc), most derived first, so the first
/// entry an exception is an instance of is its type (error_type_of). `collective`: every rank meets the error alike
/// (the same case, rank count or state), so on several ranks one of them reports it and all exit with its code;
/// other errors end the job from the rank that met them. main() maps exceptions to exit codes through this list,
/// and the Python module (python/) makes one exception class per entry from it: the same name, the same parent
/// (std::runtime_error: eddy.Error), `exit_code` and the doc line as its docstring.
#define EDDY_ERROR_TYPES(X)                                                                                          \
  X(RankCountError, CollectiveInputError, kExitRankCount, true, "The MPI rank count does not fit the grid.")         \
  X(CollectiveInputError, InputError, kExitInputError, true, "Bad input that every rank detects alike.")             \
  X(CaseFileError, InputError, kExitCaseFileError, false, "The case file, or a file it names, cannot be read.")      \
  X(InputError, std::runtime_error, kExitInputError, false,                                                          \
    "Invalid input: an unknown key, a wrong type or value, a bad override.")                                         \
  X(CollectiveOutputError, OutputError, kExitOutputError, true, "An output error every rank has been told about.")   \
  X(OutputError, std::runtime_error, kExitOutputError, false, "Output or a checkpoint cannot be written.")           \
  X(CheckpointError, std::runtime_error, kExitCheckpointError, true, "A checkpoint to restart from cannot be used.") \
  X(InstabilityError, std::runtime_error, kExitUnstable, true, "The flow became unstable (NaN, or |u| > 0.5).")      \
  X(OutOfMemoryError, DeviceError, kExitNoMemory, false, "The domain does not fit the device (or host) memory.")     \
  X(DeviceError, std::runtime_error, kExitFailure, false, "A GPU runtime call failed, or no GPU is visible.")        \
  X(MpiError, std::runtime_error, kExitFailure, false, "An MPI call failed.")

/// One entry of EDDY_ERROR_TYPES.
struct ErrorType {
  const char* name;    ///< the class name, e.g. "InputError"
  const char* parent;  ///< its parent's name, "std::runtime_error" for a top-level type
  int exit_code;
  bool collective;
  const char* doc;
};

/// EDDY_ERROR_TYPES as data, in its order.
inline constexpr ErrorType kErrorTypes[] = {
#define EDDY_ERROR_ENTRY(type, parent, code, collective, doc) {#type, #parent, code, collective, doc},
    EDDY_ERROR_TYPES(EDDY_ERROR_ENTRY)
#undef EDDY_ERROR_ENTRY
};

/// The entry of kErrorTypes that `e` is an instance of (its most derived listed type), or nullptr for any other
/// exception (an internal error, exit code 1).
inline const ErrorType* error_type_of(const std::exception& e) {
  const ErrorType* entry = kErrorTypes;
#define EDDY_ERROR_MATCH(type, ...)                           \
  if (dynamic_cast<const type*>(&e) != nullptr) return entry; \
  ++entry;
  EDDY_ERROR_TYPES(EDDY_ERROR_MATCH)
#undef EDDY_ERROR_MATCH
  return nullptr;
}

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
