#include "solver/decomposition.hpp"

#include <string>
#include <vector>

#include "solver/mpi_check.hpp"

namespace eddy {

void Decomposition::block_extent(int axis, int coord, int& first, int& count) const {
  const int n = global_size[axis], p = dims[axis];
  const int base = n / p, extra = n % p;
  count = base + (coord < extra ? 1 : 0);
  first = coord * base + (coord < extra ? coord : extra);
}

namespace {

void fill_blocks(Decomposition& d) {
  for (int a = 0; a < 3; ++a) d.block_extent(a, d.coords[a], d.offset[a], d.local_size[a]);
}

std::string triple(const std::array<int, 3>& v) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "]";
}

}  // namespace

Decomposition serial_decomposition(const CaseConfig& config) {
  Decomposition d;
  d.global_size = config.size;
  for (int a = 0; a < 3; ++a) {
    d.periodic[a] = config.faces[2 * a].kind == FaceKind::periodic;
    d.neighbour[a] = d.periodic[a] ? std::array<int, 2>{0, 0} : std::array<int, 2>{kNoNeighbour, kNoNeighbour};
  }
  fill_blocks(d);
  return d;
}

std::array<int, 3> fitting_dims(int ranks, const std::array<int, 3>& size, const std::array<int, 3>& preferred) {
  const auto fits = [&](const std::array<int, 3>& dims) {
    return dims[0] <= size[0] && dims[1] <= size[1] && dims[2] <= size[2];
  };
  if (fits(preferred)) return preferred;
  std::array<int, 3> best = preferred;
  double best_area = -1.0;
  const double cells = double(size[0]) * size[1] * size[2];
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px != 0) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py != 0) continue;
      const std::array<int, 3> dims = {px, py, ranks / px / py};
      if (!fits(dims)) continue;
      double area = 0.0;
      for (int a = 0; a < 3; ++a) area += double(dims[a] - 1) * cells / size[a];
      // Candidates come with px, then py, rising: on a tie the first has the most ranks on z, then on y.
      if (best_area < 0 || area < best_area) {
        best = dims;
        best_area = area;
      }
    }
  }
  return best;
}

Decomposition decompose(const CaseConfig& config, MPI_Comm parent) {
  Decomposition d = serial_decomposition(config);
  int ranks = 1;
  EDDY_MPI_CHECK(MPI_Comm_size(parent, &ranks));
  std::array<int, 3> dims = config.parallel.ranks;
  const bool given = dims[0] > 0 && dims[1] > 0 && dims[2] > 0;
  if (given) {
    const long long needed = static_cast<long long>(dims[0]) * dims[1] * dims[2];
    if (needed != ranks) {
      throw RankCountError(source_prefix(config) + "parallel.ranks = " + triple(dims) + " needs " +
                       std::to_string(needed) + " MPI ranks, but the job has " +
                       std::to_string(ranks) + "; run with that many ranks or change parallel.ranks");
    }
  } else if (config.out_of_core.mode == OutOfCoreMode::on) {
    // Out-of-core runs stream each block through the device in z-slabs: the domain is split along z only (an axis
    // with fewer cells than ranks is refused below, like any other decomposition).
    dims = {1, 1, ranks};
  } else {
    // Axes with a single cell stay whole; MPI_Dims_create balances the others and its largest count goes to the
    // slowest axis (z, then y): planes normal to z or y are contiguous rows of x, cheap to pack and to update.
    std::vector<int> free_axes;
    for (int a = 2; a >= 0; --a)
      if (config.size[a] > 1) free_axes.push_back(a);
    dims = {1, 1, 1};
    if (!free_axes.empty()) {
      std::vector<int> counts(free_axes.size(), 0);
      EDDY_MPI_CHECK(MPI_Dims_create(ranks, static_cast<int>(counts.size()), counts.data()));
      for (std::size_t k = 0; k < free_axes.size(); ++k) dims[free_axes[k]] = counts[k];
    } else {
      dims[0] = ranks;  // a single cell: only one rank fits, the check below says so
    }
    dims = fitting_dims(ranks, config.size, dims);  // e.g. 3 ranks on 2 x 64 x 2: [1, 3, 1], not [1, 1, 3]
  }
  for (int a = 0; a < 3; ++a) {
    if (dims[a] > config.size[a]) {
      throw RankCountError(source_prefix(config) + std::to_string(ranks) + " MPI ranks do not fit the grid " +
                       triple(config.size) + ": the decomposition " + triple(dims) + " puts " +
                       std::to_string(dims[a]) + " ranks on an axis of " + std::to_string(config.size[a]) +
                       " cells (each rank needs at least one cell per axis); use fewer ranks or set parallel.ranks");
    }
  }
  int periods[3] = {d.periodic[0], d.periodic[1], d.periodic[2]};
  MPI_Comm cart = MPI_COMM_NULL;
  EDDY_MPI_CHECK(MPI_Cart_create(parent, 3, dims.data(), periods, /*reorder=*/0, &cart));
  d.owned_comm_ = std::shared_ptr<MPI_Comm>(new MPI_Comm(cart), [](MPI_Comm* c) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && *c != MPI_COMM_NULL) MPI_Comm_free(c);
    delete c;
  });
  d.comm = cart;
  d.dims = dims;
  EDDY_MPI_CHECK(MPI_Comm_rank(cart, &d.rank));
  d.size = ranks;
  EDDY_MPI_CHECK(MPI_Cart_coords(cart, d.rank, 3, d.coords.data()));
  for (int a = 0; a < 3; ++a) {
    int low = MPI_PROC_NULL, high = MPI_PROC_NULL;
    EDDY_MPI_CHECK(MPI_Cart_shift(cart, a, 1, &low, &high));
    d.neighbour[a][0] = low == MPI_PROC_NULL ? kNoNeighbour : low;
    d.neighbour[a][1] = high == MPI_PROC_NULL ? kNoNeighbour : high;
  }
  fill_blocks(d);
  return d;
}

}  // namespace eddy
