// Process exit codes of the eddy command (documented in README.md).
#pragma once

namespace eddy {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      ///< internal or GPU runtime error
inline constexpr int kExitInputError = 2;   ///< bad case file content, key, value, override or command line
inline constexpr int kExitUnstable = 3;     ///< NaN or |u| > 0.5 during a run (fields written before stopping)
inline constexpr int kExitNoMemory = 4;     ///< the domain does not fit in device (or host) memory
inline constexpr int kExitOutputError = 5;  ///< output directory or file cannot be written
inline constexpr int kExitCheckpointError = 6;  ///< --restart checkpoint missing, truncated, corrupted or mismatched
inline constexpr int kExitRankCount = 7;        ///< the MPI rank count does not fit the grid or parallel.ranks
inline constexpr int kExitCaseFileError = 8;    ///< the case file is missing or cannot be read

}  // namespace eddy
