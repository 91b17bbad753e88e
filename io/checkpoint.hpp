// Checkpoints: the state of a run in one binary data file, written and read collectively with MPI-IO, plus a small
// TOML manifest. The data file holds each field's components one after another, each over the whole grid in global
// order (x fastest), so a checkpoint does not depend on the decomposition that wrote it: any rank count can read it.
//
//   <stem>.data   field 0 component 0 (nx ny nz values), component 1, ..., field 1 component 0, ..., then the
//                 records (particles), rank 0's first
//   <stem>.toml   format, version, case, step, layout, grid, ranks, storage, fields (name, components, bytes per
//                 value), records (name, count, bytes each), counters (name = integer), data file name and size,
//                 checksum
//
// Both are written under temporary names and renamed when complete, data first, manifest last: a manifest always
// describes a complete data file, and a crash while writing leaves the previous checkpoint intact.
// The checksum is the sum (mod 2^64) over every value of a 64-bit hash of (field, component, global cell, value
// bits), plus over every record of a hash of its bytes: it does not depend on the order the ranks add their shares
// in, and a flipped bit or swapped block changes it.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "solver/errors.hpp"

namespace eddy {

struct CheckpointField {
  std::string name;
  int components = 1;
  int value_bytes = 4;  ///< bytes of one value (2, 4 or 8), stored as the machine holds them (little endian)
};

struct CheckpointManifest {
  int version = 1;
  std::string case_name;
  std::int64_t step = 0;
  int layout = 0;              ///< population layout of the state (solver: PopulationLayout)
  std::array<int, 3> grid{};   ///< global cells nx, ny, nz
  std::array<int, 3> ranks{};  ///< the decomposition that wrote it (information only)
  std::string storage;         ///< "float", "fp16" or "double"
  std::vector<CheckpointField> fields;
  std::uint64_t checksum = 0;
  std::string data_file;         ///< the data file's name, in the manifest's directory
  std::uint64_t data_bytes = 0;  ///< its size
  /// Records after the fields (Lagrangian particles): their name, count over all ranks and bytes each. A rank's
  /// records are stored after those of the lower ranks, so their order in the file depends on the decomposition;
  /// the checksum does not.
  std::string record_name;
  std::int64_t records = 0;
  int record_bytes = 0;
  /// Named integers that travel with the state (the sample count of the statistics, ...), in the manifest's
  /// [counters] table; none in older checkpoints. Part of the checksum when present.
  std::vector<std::pair<std::string, std::int64_t>> counters;
  /// The value of counter `name`, or `fallback` when the manifest has none.
  std::int64_t counter(const std::string& name, std::int64_t fallback) const {
    for (const auto& [key, value] : counters)
      if (key == name) return value;
    return fallback;
  }
};

/// What a rank reads back: its block of every field, and all records (the caller keeps those it owns).
struct CheckpointData {
  std::vector<std::vector<unsigned char>> fields;
  std::vector<unsigned char> records;
};

/// This rank's block of the global grid (0-based offset, cells per axis).
struct CheckpointBlock {
  std::array<int, 3> offset{};
  std::array<int, 3> size{};
};

/// The temporary name of "<stem>.data" while a run writes it: "<stem>.data.tmp.<pid>", `writer_pid` the process ID
/// of the run's rank 0 (the name is the same on every rank and differs between runs).
std::string checkpoint_data_temporary(const std::string& stem, long writer_pid);

/// Writes "<stem>.data" and "<stem>.toml" (collective over `comm`; every rank passes its block and, per field of
/// `manifest.fields`, components x block cells values, component-major, x fastest, and its records of
/// manifest.record_bytes each, back to back). Fills in checksum, data_file, data_bytes and records. Returns the
/// manifest's path. Throws OutputError (exit code 5) when a file cannot be written, on every rank, also when no name
/// of the temporary data file fits MPI_File_open's limit (io/path_limits.hpp).
std::string write_checkpoint(const std::string& stem, CheckpointManifest manifest,
                             const std::vector<std::vector<unsigned char>>& data,
                             const std::vector<unsigned char>& records, const CheckpointBlock& block, MPI_Comm comm);

/// Reads and checks a manifest (format, version, keys). Throws CheckpointError naming the file.
CheckpointManifest read_checkpoint_manifest(const std::string& manifest_path);

/// Reads this rank's block of every field of the checkpoint (layout as write_checkpoint's `data`) and all records,
/// after checking the data file's size, and checks the checksum over all ranks (collective). Throws CheckpointError
/// on every rank, also when no name of the data file fits MPI_File_open's limit (io/path_limits.hpp).
CheckpointData read_checkpoint_data(const std::string& manifest_path, const CheckpointManifest& manifest,
                                    const CheckpointBlock& block, MPI_Comm comm);

}  // namespace eddy
