#include "io/checkpoint.hpp"

#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/file_kind.hpp"
#include "solver/errors.hpp"
#include "io/path_limits.hpp"
#include "io/stderr_capture.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

namespace {

constexpr const char* kFormat = "eddy-checkpoint";
constexpr int kVersion = 1;

std::uint64_t mix(std::uint64_t z) {  // splitmix64 finaliser (Steele, Lea & Flood 2014)
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Sum of the value hashes of this rank's block of one component of one field.
std::uint64_t block_checksum(const unsigned char* values, int value_bytes, int field, int component,
                             const CheckpointBlock& block, const std::array<int, 3>& grid) {
  std::uint64_t sum = 0;  // a sum mod 2^64: the same in any order, so threads may share the planes
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int z = 0; z < block.size[2]; ++z)
    for (int y = 0; y < block.size[1]; ++y)
      for (int x = 0; x < block.size[0]; ++x) {
        const std::size_t k = std::size_t(x) + std::size_t(block.size[0]) *
                                                   (std::size_t(y) + std::size_t(block.size[1]) * std::size_t(z));
        const std::uint64_t global =
            std::uint64_t(block.offset[0] + x) +
            std::uint64_t(grid[0]) *
                (std::uint64_t(block.offset[1] + y) + std::uint64_t(grid[1]) * std::uint64_t(block.offset[2] + z));
        std::uint64_t bits = 0;
        std::memcpy(&bits, values + k * std::size_t(value_bytes), std::size_t(value_bytes));
        const std::uint64_t key = (std::uint64_t(field) << 56) ^ (std::uint64_t(component) << 48) ^ global;
        sum += mix(mix(key + 0x9E3779B97F4A7C15ull) ^ bits);
      }
  return sum;
}

/// Sum of the hashes of `count` records of `bytes` each (any order gives the same sum).
std::uint64_t records_checksum(const unsigned char* records, std::int64_t count, int bytes) {
  std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::int64_t r = 0; r < count; ++r) {
    const unsigned char* record = records + std::size_t(r) * std::size_t(bytes);
    std::uint64_t h = 0x243F6A8885A308D3ull;
    for (int at = 0; at < bytes; at += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, record + at, std::size_t(std::min(8, bytes - at)));
      h = mix(h ^ (word + std::uint64_t(at) * 0x9E3779B97F4A7C15ull));
    }
    sum += mix(h + 0x5851F42D4C957F2Dull);
  }
  return sum;
}

/// Largest data file accepted (2^60 bytes): keeps every size computation far from overflow.
constexpr std::uint64_t kMaxCheckpointBytes = std::uint64_t(1) << 60;

/// A hash of what the manifest says about the data (step, layout, grid, fields, records), added to the checksum so
/// that an edited manifest is caught like a corrupted data file.
std::uint64_t manifest_hash(const CheckpointManifest& m) {
  std::uint64_t h = mix(std::uint64_t(m.step) ^ 0xA0761D6478BD642Full);
  h = mix(h ^ std::uint64_t(m.layout));
  for (int n : m.grid) h = mix(h ^ std::uint64_t(n));
  for (const CheckpointField& f : m.fields) {
    for (char c : f.name) h = mix(h ^ std::uint64_t(static_cast<unsigned char>(c)));
    h = mix(h ^ (std::uint64_t(f.components) << 8) ^ std::uint64_t(f.value_bytes));
  }
  for (char c : m.record_name) h = mix(h ^ std::uint64_t(static_cast<unsigned char>(c)));
  h = mix(h ^ std::uint64_t(m.records) ^ (std::uint64_t(m.record_bytes) << 48));
  auto counters = m.counters;  // in name order, as the manifest's table reads back
  std::sort(counters.begin(), counters.end());
  for (const auto& [name, value] : counters) {  // none in older checkpoints: their hash stays as it was
    for (char c : name) h = mix(h ^ std::uint64_t(static_cast<unsigned char>(c)));
    h = mix(h ^ std::uint64_t(value) ^ 0x6A09E667F3BCC909ull);
  }
  return h;
}

std::uint64_t cells_of(const std::array<int, 3>& n) {
  return std::uint64_t(n[0]) * std::uint64_t(n[1]) * std::uint64_t(n[2]);
}

/// The MPI datatype of this rank's block of one component in the global array (values of `value_bytes`).
struct BlockType {
  MPI_Datatype value = MPI_DATATYPE_NULL, block = MPI_DATATYPE_NULL;
  BlockType(int value_bytes, const CheckpointBlock& b, const std::array<int, 3>& grid) {
    EDDY_MPI_CHECK(MPI_Type_contiguous(value_bytes, MPI_BYTE, &value));
    EDDY_MPI_CHECK(MPI_Type_commit(&value));
    const int sizes[3] = {grid[2], grid[1], grid[0]};
    const int subsizes[3] = {b.size[2], b.size[1], b.size[0]};
    const int starts[3] = {b.offset[2], b.offset[1], b.offset[0]};
    EDDY_MPI_CHECK(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, value, &block));
    EDDY_MPI_CHECK(MPI_Type_commit(&block));
  }
  ~BlockType() {  // unchecked: a destructor may run while an error is on its way out
    MPI_Type_free(&block);
    MPI_Type_free(&value);
  }
  BlockType(const BlockType&) = delete;
  BlockType& operator=(const BlockType&) = delete;
};

/// Writes this rank's block of one component (values of `value_bytes`, x fastest) into the global array that starts
/// at byte `displacement` of `file` (byte view), with independent writes of its contiguous runs: rows, or planes
/// and the whole block where the block spans the grid along x (and y). Returns the first MPI error, or MPI_SUCCESS.
/// Not MPI_File_write_all with a subarray view: under Open MPI 4.1's default collective-I/O component that wrote
/// stretches of zeros with 3 ranks along x (6 of 8 runs of a 22 x 14 x 2 case, found by a breaker; ranks 1 x 3,
/// 2 x 2, 4 x 1 and 2 were correct), with exit code 0 and a manifest whose checksum the file no longer matched.
int write_block(MPI_File file, MPI_Offset displacement, const unsigned char* values, int value_bytes,
                const CheckpointBlock& b, const std::array<int, 3>& grid) {
  const std::uint64_t vb = std::uint64_t(value_bytes);
  std::uint64_t run = std::uint64_t(b.size[0]);  // values per contiguous run
  int rows = b.size[1], planes = b.size[2];      // runs along y and z
  if (b.size[0] == grid[0]) {
    run *= std::uint64_t(b.size[1]);
    rows = 1;
    if (b.size[1] == grid[1]) {
      run *= std::uint64_t(b.size[2]);
      planes = 1;
    }
  }
  const std::uint64_t chunk_limit = std::uint64_t(1) << 30;
  std::uint64_t done_values = 0;
  for (int z = 0; z < planes; ++z) {
    for (int y = 0; y < rows; ++y) {
      const std::uint64_t first = (std::uint64_t(b.offset[2] + z) * std::uint64_t(grid[1]) +
                                   std::uint64_t(b.offset[1] + y)) * std::uint64_t(grid[0]) + std::uint64_t(b.offset[0]);
      const unsigned char* from = values + done_values * vb;
      for (std::uint64_t byte = 0; byte < run * vb;) {
        const std::uint64_t count = std::min(run * vb - byte, chunk_limit);
        const int rc = MPI_File_write_at(file, displacement + MPI_Offset(first * vb + byte), from + byte, int(count),
                                         MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        byte += count;
      }
      done_values += run;
    }
  }
  return MPI_SUCCESS;
}

/// True on every rank when `ok` is true on every rank.
bool all_ok(bool ok, MPI_Comm comm) {
  int mine = ok ? 1 : 0, all = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  return all == 1;
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

}  // namespace

std::string checkpoint_data_temporary(const std::string& stem, long writer_pid) {
  return stem + ".data.tmp." + std::to_string(writer_pid);
}

std::string write_checkpoint(const std::string& stem, CheckpointManifest manifest,
                             const std::vector<std::vector<unsigned char>>& data,
                             const std::vector<unsigned char>& records, const CheckpointBlock& block, MPI_Comm comm) {
  int rank = 0;
  EDDY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::filesystem::path stem_path(stem);
  int size = 1;
  EDDY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::string data_path = stem + ".data", manifest_path = stem + ".toml";
  long writer = static_cast<long>(::getpid());  // rank 0's: the same temporary name on every rank, unique per run
  EDDY_MPI_CHECK(MPI_Bcast(&writer, 1, MPI_LONG, 0, comm));
  const std::string tmp = checkpoint_data_temporary(stem, writer);
  const std::uint64_t cells = cells_of(manifest.grid), block_cells = cells_of(block.size);

  // Open MPI aborts the process for names beyond its limit: pass a shorter equivalent name, or fail cleanly.
  const MpiIoName mpi_name(tmp, size);  // held until the file is closed
  if (!all_ok(mpi_name.found(), comm)) {
    throw OutputError("cannot write checkpoint " + data_path + ": its temporary file " +
                      (mpi_name.found() ? std::string("on another rank") : mpi_io_name_problem(tmp, size)));
  }
  // Open MPI's ompio prints a line per failed write (and may return success): held here, reported once below.
  StderrCapture library_messages;
  MPI_File file;
  int rc = MPI_File_open(comm, mpi_name.name().c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  if (!all_ok(rc == MPI_SUCCESS, comm)) {
    if (rc == MPI_SUCCESS) MPI_File_close(&file);
    library_messages.release();
    throw OutputError("cannot write checkpoint " + data_path + ": " +
                      (rc == MPI_SUCCESS ? std::string("another rank could not open it") : mpi_error_text(rc)));
  }
  std::uint64_t checksum = 0;
  MPI_Offset displacement = 0;
  bool ok = true;
  std::string error;
  for (int set : {MPI_File_set_size(file, 0), MPI_File_set_view(file, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)}) {
    if (set != MPI_SUCCESS && ok) {
      ok = false;
      error = mpi_error_text(set);
    }
  }
  for (std::size_t f = 0; f < manifest.fields.size(); ++f) {
    const CheckpointField& field = manifest.fields[f];
    for (int c = 0; c < field.components; ++c) {
      const unsigned char* values = data[f].data() + std::size_t(c) * block_cells * std::size_t(field.value_bytes);
      // The checksum on other threads while this one writes (the hash needs no MPI).
      std::future<std::uint64_t> sum = std::async(std::launch::async, [&, values, f, c] {
        return block_checksum(values, field.value_bytes, int(f), c, block, manifest.grid);
      });
      rc = write_block(file, displacement, values, field.value_bytes, block, manifest.grid);
      checksum += sum.get();
      if (rc != MPI_SUCCESS && ok) {
        ok = false;
        error = mpi_error_text(rc);
      }
      displacement += MPI_Offset(cells * std::uint64_t(field.value_bytes));
    }
  }
  // Records: this rank's after those of the lower ranks.
  const long long rb = manifest.record_bytes;
  const long long mine = rb > 0 ? static_cast<long long>(records.size()) / rb : 0;
  long long before = 0, all_records = 0;
  EDDY_MPI_CHECK(MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (rank == 0) before = 0;  // MPI_Exscan leaves rank 0's result undefined
  EDDY_MPI_CHECK(MPI_Allreduce(&mine, &all_records, 1, MPI_LONG_LONG, MPI_SUM, comm));
  if (all_records > 0) {
    for (std::size_t done = 0; done < records.size();) {
      const std::size_t chunk = std::min<std::size_t>(records.size() - done, std::size_t(1) << 30);
      rc = MPI_File_write_at(file, displacement + MPI_Offset(before * rb) + MPI_Offset(done), records.data() + done,
                             int(chunk), MPI_BYTE, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS && ok) {
        ok = false;
        error = mpi_error_text(rc);
      }
      done += chunk;
    }
    checksum += records_checksum(records.data(), mine, int(rb));
    displacement += MPI_Offset(all_records * rb);
  }
  manifest.records = all_records;
  std::sort(manifest.counters.begin(), manifest.counters.end());  // in name order, as the manifest reads back
  rc = MPI_File_close(&file);
  if (rc != MPI_SUCCESS && ok) {
    ok = false;
    error = mpi_error_text(rc);
  }
  const std::string captured = library_messages.release();
  const std::string library_error = first_library_error(captured);
  if (!library_error.empty() && ok) {  // a write the library reported only on stderr: a hole in the file
    ok = false;
    error = library_error;
  }
  if (!all_ok(ok, comm)) {
    if (rank == 0) std::remove(tmp.c_str());
    throw OutputError("cannot write checkpoint " + data_path + ": " +
                      (ok ? "another rank failed" : error + "; the earlier checkpoints are intact"));
  }
  replay_on_stderr(captured);  // what the library said about a write that succeeded
  std::uint64_t total = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, comm));
  manifest.data_file = stem_path.filename().string() + ".data";
  manifest.data_bytes = std::uint64_t(displacement);
  manifest.checksum = total + manifest_hash(manifest);

  std::string failure;
  if (rank == 0) {
    try {
      // A full disk can shorten the file without MPI-IO reporting it: only a file of the full size is committed.
      std::error_code ec;
      const std::uintmax_t written = std::filesystem::file_size(tmp, ec);
      if (ec || written != manifest.data_bytes) {
        std::remove(tmp.c_str());
        throw OutputError("cannot write checkpoint " + data_path + ": " +
                          (ec ? ec.message()
                              : std::to_string(written) + " of " + std::to_string(manifest.data_bytes) +
                                    " bytes reached the disk (full?)") +
                          "; the earlier checkpoints are intact");
      }
      commit_temporary_file(tmp, data_path);
      std::ostringstream text;
      text << "# eddy checkpoint: restart with  eddy run CASE.toml --restart " << manifest_path << "\n"
           << "format = \"" << kFormat << "\"\nversion = " << kVersion << "\ncase = " << quoted(manifest.case_name)
           << "\nstep = " << manifest.step << "\nlayout = " << manifest.layout << "\ngrid = [" << manifest.grid[0]
           << ", " << manifest.grid[1] << ", " << manifest.grid[2] << "]\nranks = [" << manifest.ranks[0] << ", "
           << manifest.ranks[1] << ", " << manifest.ranks[2] << "]\nstorage = " << quoted(manifest.storage)
           << "\ndata_file = " << quoted(manifest.data_file) << "\ndata_bytes = " << manifest.data_bytes
           << "\nchecksum = \"" << std::hex << manifest.checksum << std::dec << "\"\n";
      if (manifest.record_bytes > 0) {
        text << "record_name = " << quoted(manifest.record_name) << "\nrecords = " << manifest.records
             << "\nrecord_bytes = " << manifest.record_bytes << "\n";
      }
      if (!manifest.counters.empty()) {
        text << "\n[counters]\n";
        for (const auto& [name, value] : manifest.counters) text << name << " = " << value << "\n";
      }
      for (const CheckpointField& field : manifest.fields) {
        text << "\n[[field]]\nname = " << quoted(field.name) << "\ncomponents = " << field.components
             << "\nvalue_bytes = " << field.value_bytes << "\n";
      }
      write_file_atomically(manifest_path, text.str());
    } catch (const OutputError& e) {
      failure = e.what();
    }
  }
  int failed = failure.empty() ? 0 : 1;
  EDDY_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
  if (failed) throw OutputError(rank == 0 ? failure : "cannot write checkpoint " + manifest_path + " (rank 0 failed)");
  return manifest_path;
}

namespace {

/// The [[field]] list and the particle records of a manifest (`root`) into `m`, checked against m.data_bytes (set
/// before); `fail(what)` makes the CheckpointError to throw.
template <class Fail>
void read_manifest_payload(const toml::table& root, CheckpointManifest& m, const Fail& fail) {
  const toml::array* fields = root["field"].as_array();
  if (!fields || fields->empty()) throw fail("lists no [[field]]");
  std::uint64_t expected = 0;
  for (const toml::node& node : *fields) {
    const toml::table* t = node.as_table();
    if (!t) throw fail("[[field]] entries must be tables");
    CheckpointField f;
    f.name = (*t)["name"].value_or<std::string>("");
    f.components = int((*t)["components"].value_or<std::int64_t>(0));
    f.value_bytes = int((*t)["value_bytes"].value_or<std::int64_t>(0));
    if (f.name.empty() || f.components < 1 || f.components > 64 ||
        (f.value_bytes != 2 && f.value_bytes != 4 && f.value_bytes != 8)) {
      throw fail("a [[field]] needs a name, components in 1..64 and value_bytes 2, 4 or 8");
    }
    expected += cells_of(m.grid) * std::uint64_t(f.components) * std::uint64_t(f.value_bytes);
    if (expected > kMaxCheckpointBytes) throw fail("its grid and fields add up to more than 2^60 bytes");
    m.fields.push_back(f);
  }
  m.record_name = root["record_name"].value_or<std::string>("");
  m.records = root["records"].value_or<std::int64_t>(0);
  m.record_bytes = int(root["record_bytes"].value_or<std::int64_t>(0));
  if (m.records < 0 || m.record_bytes < 0 || m.record_bytes > 4096 || (m.records > 0 && m.record_bytes == 0) ||
      (m.record_bytes > 0 && std::uint64_t(m.records) > kMaxCheckpointBytes / std::uint64_t(m.record_bytes))) {
    throw fail("records and record_bytes are out of range");
  }
  expected += std::uint64_t(m.records) * std::uint64_t(m.record_bytes);
  if (const toml::node* counters = root.get("counters")) {
    const toml::table* table = counters->as_table();
    if (!table) throw fail("counters must be a table of integers");
    for (auto&& [key, value] : *table) {
      const toml::value<std::int64_t>* number = value.as_integer();
      if (!number) throw fail("counter '" + std::string(key.str()) + "' must be an integer");
      m.counters.emplace_back(std::string(key.str()), number->get());
    }
  }
  if (expected != m.data_bytes) {
    throw fail("data_bytes = " + std::to_string(m.data_bytes) + " does not match its grid and fields (" +
               std::to_string(expected) + " bytes)");
  }
}

}  // namespace

CheckpointManifest read_checkpoint_manifest(const std::string& manifest_path) {
  std::error_code ec;
  if (std::filesystem::is_directory(manifest_path, ec)) {
    throw CheckpointError("checkpoint " + manifest_path + " is a directory: give the .toml manifest of a checkpoint "
                          "in it");
  }
  const std::string problem = not_a_regular_file(manifest_path);  // checked without opening: a FIFO would block
  if (!problem.empty()) {
    throw CheckpointError("checkpoint " + manifest_path + " " + problem +
                          " (give the .toml manifest a checkpointed run wrote, e.g. "
                          "output/checkpoints/<case>_checkpoint_00001000.toml)");
  }
  toml::table root;
  try {
    root = toml::parse_file(manifest_path);
  } catch (const toml::parse_error& e) {
    throw CheckpointError("checkpoint " + manifest_path +
                          " is not a readable manifest: " + std::string(e.description()));
  }
  auto fail = [&](const std::string& what) -> CheckpointError {
    return CheckpointError("checkpoint " + manifest_path + ": " + what);
  };
  if (root["format"].value<std::string>() != std::string(kFormat)) {
    throw fail("not an eddy checkpoint manifest (format must be \"" + std::string(kFormat) + "\")");
  }
  CheckpointManifest m;
  if (!root["version"].is_integer()) throw fail("key 'version' must be an integer");
  m.version = int(root["version"].value_or<std::int64_t>(0));
  if (m.version != kVersion) {
    throw fail("version " + std::to_string(m.version) + " is not supported (this eddy reads version " +
               std::to_string(kVersion) + ")");
  }
  const auto need_int = [&](const char* key) {
    const auto v = root[key].value<std::int64_t>();
    if (!v) throw fail("missing or non-integer key '" + std::string(key) + "'");
    return *v;
  };
  const auto need_string = [&](const char* key) {
    const auto v = root[key].value<std::string>();
    if (!v) throw fail("missing or non-string key '" + std::string(key) + "'");
    return *v;
  };
  const auto need3 = [&](const char* key) {
    std::array<int, 3> out{};
    const toml::array* a = root[key].as_array();
    if (!a || a->size() != 3) throw fail("key '" + std::string(key) + "' must be an array of 3 integers");
    for (std::size_t i = 0; i < 3; ++i) {
      const auto v = (*a)[i].value<std::int64_t>();
      if (!v || *v < 0 || *v > (std::int64_t(1) << 30)) throw fail("key '" + std::string(key) + "' is out of range");
      out[i] = int(*v);
    }
    return out;
  };
  m.case_name = need_string("case");
  m.step = need_int("step");
  m.layout = int(need_int("layout"));
  m.grid = need3("grid");
  m.ranks = need3("ranks");
  m.storage = need_string("storage");
  m.data_file = need_string("data_file");
  const std::int64_t bytes = need_int("data_bytes");
  if (m.step < 0 || bytes < 0) throw fail("step and data_bytes must be >= 0");
  m.data_bytes = std::uint64_t(bytes);
  const std::string checksum = need_string("checksum");
  try {
    std::size_t used = 0;
    if (checksum.empty() || checksum.size() > 16 ||
        checksum.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw std::invalid_argument(checksum);
    }
    m.checksum = std::stoull(checksum, &used, 16);
    if (used != checksum.size()) throw std::invalid_argument(checksum);
  } catch (const std::exception&) {
    throw fail("checksum '" + checksum + "' is not a hexadecimal number");
  }
  if (m.data_file.empty() || m.data_file.find('/') != std::string::npos) {
    throw fail("data_file must be a file name in the manifest's directory");
  }
  read_manifest_payload(root, m, fail);
  return m;
}

CheckpointData read_checkpoint_data(const std::string& manifest_path, const CheckpointManifest& manifest,
                                    const CheckpointBlock& block, MPI_Comm comm) {
  const std::string data_path = (std::filesystem::path(manifest_path).parent_path() / manifest.data_file).string();
  const std::string problem = not_a_regular_file(data_path);
  if (!problem.empty()) {
    throw CheckpointError("checkpoint data file " + data_path + " " + problem + "; use an earlier checkpoint");
  }
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(data_path, ec);
  if (ec) throw CheckpointError("checkpoint data file " + data_path + " cannot be read: " + ec.message());
  if (size != manifest.data_bytes) {
    throw CheckpointError("checkpoint data file " + data_path + " has " + std::to_string(size) + " bytes, " +
                          std::to_string(manifest.data_bytes) + " expected: it is " +
                          (size < manifest.data_bytes ? "truncated" : "longer than written") +
                          "; use an earlier checkpoint");
  }
  int ranks = 1;
  EDDY_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const MpiIoName mpi_name(data_path, ranks);  // held until the file is closed
  if (!all_ok(mpi_name.found(), comm)) {
    throw CheckpointError("checkpoint data file " +
                          (mpi_name.found() ? data_path + ": its path is too long for MPI-IO on another rank"
                                    : mpi_io_name_problem(data_path, ranks)) +
                          "; restart from a working directory closer to it, or move the checkpoint (its .data and "
                          ".toml) to a shorter path");
  }
  MPI_File file;
  int rc = MPI_File_open(comm, mpi_name.name().c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  if (!all_ok(rc == MPI_SUCCESS, comm)) {
    if (rc == MPI_SUCCESS) MPI_File_close(&file);
    throw CheckpointError("checkpoint data file " + data_path + " cannot be opened" +
                          (rc == MPI_SUCCESS ? std::string(" on another rank") : ": " + mpi_error_text(rc)));
  }
  const std::uint64_t cells = cells_of(manifest.grid), block_cells = cells_of(block.size);
  CheckpointData out;
  std::vector<std::vector<unsigned char>>& data = out.fields;
  data.resize(manifest.fields.size());
  std::uint64_t checksum = 0;
  MPI_Offset displacement = 0;
  bool ok = true;
  for (std::size_t f = 0; f < manifest.fields.size(); ++f) {
    const CheckpointField& field = manifest.fields[f];
    const BlockType type(field.value_bytes, block, manifest.grid);
    data[f].resize(std::size_t(field.components) * block_cells * std::size_t(field.value_bytes));
    for (int c = 0; c < field.components; ++c) {
      unsigned char* values = data[f].data() + std::size_t(c) * block_cells * std::size_t(field.value_bytes);
      rc = MPI_File_set_view(file, displacement, type.value, type.block, "native", MPI_INFO_NULL);
      ok = ok && rc == MPI_SUCCESS;
      rc = MPI_File_read_all(file, values, int(block_cells), type.value, MPI_STATUS_IGNORE);
      ok = ok && rc == MPI_SUCCESS;
      checksum += block_checksum(values, field.value_bytes, int(f), c, block, manifest.grid);
      displacement += MPI_Offset(cells * std::uint64_t(field.value_bytes));
    }
  }
  // Every rank reads all records (each keeps its own).
  out.records.resize(std::size_t(manifest.records) * std::size_t(manifest.record_bytes));
  if (!out.records.empty()) ok = MPI_File_set_view(file, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS && ok;
  for (std::size_t done = 0; done < out.records.size();) {
    const std::size_t chunk = std::min<std::size_t>(out.records.size() - done, std::size_t(1) << 30);
    rc = MPI_File_read_at(file, displacement + MPI_Offset(done), out.records.data() + done, int(chunk), MPI_BYTE,
                          MPI_STATUS_IGNORE);
    ok = ok && rc == MPI_SUCCESS;
    done += chunk;
  }
  ok = MPI_File_close(&file) == MPI_SUCCESS && ok;
  if (!all_ok(ok, comm)) throw CheckpointError("checkpoint data file " + data_path + " could not be read");
  std::uint64_t total = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, comm));
  total += records_checksum(out.records.data(), std::int64_t(out.records.size() / std::max(manifest.record_bytes, 1)),
                            manifest.record_bytes) +
           manifest_hash(manifest);
  if (total != manifest.checksum) {
    char text[64];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(total));
    throw CheckpointError("checkpoint data file " + data_path + " is corrupted: its checksum is " + text +
                          ", the manifest " + manifest_path + " recorded a different one (the data or the manifest "
                          "was changed); use an earlier checkpoint");
  }
  return out;
}

}  // namespace eddy
