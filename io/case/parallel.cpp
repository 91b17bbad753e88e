// io/case/parallel.cpp: [parallel]: ranks per axis, halo transport, overlap, GPU index.

#include <limits>

#include "io/case/sections.hpp"

namespace eddy::case_io {
namespace {

constexpr std::array<const char*, 3> kRankNames = {"px", "py", "pz"};
constexpr std::array<const char*, 3> kSizeNames = {"nx", "ny", "nz"};

/// "" when every nonzero entry of `ranks` fits its axis of `size`, else why not ("pz = 2 exceeds nz = 1 ...").
/// Shared by the file reader and finalize (0 = automatic is rejected earlier by the reader).
std::string ranks_too_large(const std::array<std::int64_t, 3>& ranks, const std::array<int, 3>& size) {
  for (int axis = 0; axis < 3; ++axis) {
    if (ranks[axis] <= size[axis]) continue;
    return std::string(kRankNames[axis]) + " = " + std::to_string(ranks[axis]) + " exceeds " + kSizeNames[axis] +
           " = " + std::to_string(size[axis]) + " (domain.size = " + fmt3(size) +
           "): each rank needs at least one cell per axis, so px <= nx, py <= ny, pz <= nz";
  }
  return {};
}

/// parallel.device >= -1 (a GPU index; -1 = local rank modulo the visible GPUs), in the file and in the struct.
void require_device(const Entry& entry, std::int64_t device) {
  require_in(entry, device, -1, std::numeric_limits<int>::max(),
             std::string("device must be ") + (entry.as_written() ? "an integer " : "") +
                 ">= -1 (a GPU index; -1 = the local rank on the node modulo the visible GPUs)");
}

}  // namespace

/// Reads [parallel]; needs the domain size (each rank needs at least one cell per axis). The product of the ranks
/// against the MPI rank count is checked by the solver at run time.
void read_parallel(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("parallel"));
  if (const auto ranks = section.integer3("ranks")) {
    for (std::int64_t n : *ranks) {
      require_in(section.entry("ranks"), n, 1, kNoUpperBound,
                 "each of px, py, pz must be an integer >= 1 (MPI ranks per axis; leave out parallel.ranks to let MPI "
                 "choose)");
    }
    const std::string problem = ranks_too_large(*ranks, config.size);
    if (!problem.empty()) section.entry("ranks").out_of_range(problem);
    for (int axis = 0; axis < 3; ++axis) config.parallel.ranks[axis] = static_cast<int>((*ranks)[axis]);
  }
  config.parallel.transport = section
                                  .choice<HaloTransport>("transport", {{"host", HaloTransport::host},
                                                                       {"device", HaloTransport::device},
                                                                       {"nccl", HaloTransport::nccl}})
                                  .value_or(HaloTransport::host);
  config.parallel.overlap = section.boolean("overlap").value_or(true);
  if (const auto device = section.integer("device")) {
    require_device(section.entry("device"), *device);
    config.parallel.device = static_cast<int>(*device);
  }
}

/// Ranks 0 = automatic are allowed here (structs built in code may leave some or all axes to MPI_Dims_create).
void finalize_parallel(const CaseConfig& config, const Source& source) {
  const auto& ranks = config.parallel.ranks;
  const Entry entry(source, "parallel.ranks", fmt3(ranks));
  for (int n : ranks) require_in(entry, n, 0, kNoUpperBound, "each of px, py, pz must be >= 1, or 0 = automatic");
  const std::string problem = ranks_too_large({ranks[0], ranks[1], ranks[2]}, config.size);
  if (!problem.empty()) entry.out_of_range(problem);
  require_device(Entry(source, "parallel.device", std::to_string(config.parallel.device)), config.parallel.device);
}

}  // namespace eddy::case_io
