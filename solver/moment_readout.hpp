// Read-outs built on macroscopic fields that arrive a slab of z-planes at a time (Simulation::for_each_moment_slab),
// used by the read-outs of solver/simulation.cpp: the fields on the host, diagnostics, and the .vti piece of a rank.
//
// A slab callback has the form fn(part, slab, first, cells): `part` holds 4 blocks of `slab` values (rho, ux, uy,
// uz), of which the first `cells` are interior cells first, first + 1, ... (MacroscopicFields order).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Mass, fastest cell and first non-finite cell of the slabs added (in interior order), summed in fixed chunks of
/// interior cells, each in cell order, then the chunks in order: host threads share the work, and the result
/// depends neither on their number nor on how the cells arrive in slabs.
class DiagnosticsAccumulator {
 public:
  template <class R>
  void add(const R* part, std::int64_t slab, std::int64_t first, std::int64_t cells);
  /// The result; `size` and `offset` turn interior indices into global cell coordinates.
  Diagnostics result(const std::array<int, 3>& size, const std::array<int, 3>& offset) const;

 private:
  struct Partial {
    double mass = 0.0, max_speed2 = -1.0, energy = 0.0;
    std::int64_t fastest = 0, first_bad = -1, fluid = 0;
  };
  std::vector<Partial> chunks_;
};

/// Global coordinates of interior cell k of a block of `size` cells at `offset`.
std::array<int, 3> interior_to_global(std::int64_t k, const std::array<int, 3>& size, const std::array<int, 3>& offset);

/// Factors applied to rho and to u while gathering (gather_moments_into, moment_factors).
template <class R>
struct MomentFactors {
  R rho = R(1), u = R(1);
};

/// Gathers the slabs of `for_each_slab` into `host`, resized to 4 blocks of n interior values (rho, ux, uy, uz); a
/// vector kept from an earlier read-out is reused without clearing (every value is overwritten). Each value is
/// multiplied by `factor` (rho's, then u's: MomentFactors) as it is copied, unless the factor is 1. The copies run
/// on the host's threads (a slab is up to 256 MiB; one thread copies a few GB/s).
template <class R, class ForEachSlab>
void gather_moments_into(std::vector<R>& host, std::int64_t n, ForEachSlab&& for_each_slab,
                         const MomentFactors<R>& factor = {}) {
  host.resize(std::size_t(4 * n));
  for_each_slab([&](const R* part, std::int64_t slab, std::int64_t first, std::int64_t cells) {
    constexpr std::int64_t kPiece = std::int64_t(1) << 18;  // values per copy: 1 MiB in float
    const std::int64_t pieces = (cells + kPiece - 1) / kPiece;
#pragma omp parallel for collapse(2) schedule(static)
    for (int q = 0; q < 4; ++q) {
      for (std::int64_t k = 0; k < pieces; ++k) {
        const std::int64_t lo = k * kPiece, count = std::min(kPiece, cells - lo);
        const R* from = part + q * slab + lo;
        R* to = host.data() + q * n + first + lo;
        const R f = q == 0 ? factor.rho : factor.u;
        if (f == R(1)) {
          std::copy_n(from, count, to);
        } else {
          for (std::int64_t i = 0; i < count; ++i) to[i] = from[i] * f;
        }
      }
    }
  });
}

/// Gathers the slabs of `for_each_slab` into 4 blocks of n interior values (rho, ux, uy, uz).
template <class R, class ForEachSlab>
std::vector<R> gather_moments(std::int64_t n, ForEachSlab&& for_each_slab) {
  std::vector<R> host;
  gather_moments_into(host, n, for_each_slab);
  return host;
}

/// MacroscopicFields of this rank's block from 4 blocks of interior values (rho, ux, uy, uz).
template <class R>
MacroscopicFields to_fields(const std::vector<R>& host, const Decomposition& decomposition);

/// The factors that put rho and u in output units: rho by scaling.density, u by 1 / velocity (1 and 1 in lattice
/// units). MomentFactors<R> is declared above gather_moments_into.
template <class R>
MomentFactors<R> moment_factors(const OutputScaling& scaling) {
  return MomentFactors<R>{R(scaling.density), R(1.0 / scaling.velocity)};
}

/// True when the case asks for output field `name` ([output] fields; the statistics fields: [statistics] fields).
bool wants_output(const CaseConfig& config, std::string_view name);

/// The names of the point arrays the case's snapshots hold (wants_output), in kOutputFields order.
std::vector<std::string> written_fields(const CaseConfig& config);

/// The blocks a piece's host array holds, in kOutputFields order (io/output_fields.hpp), as (name, components):
/// the moments (density, velocity) always, the stencil fields, the solid labels and the statistics the case asks
/// for, and the temperature when asked and `thermal`.
std::vector<std::pair<std::string, int>> piece_fields(const CaseConfig& config, bool thermal);

/// Stages this rank's piece of `box` (solver/output_box.hpp): `host` holds the blocks of `fields` (name, components)
/// back to back, each component n interior values; those named in `wanted` go into the file. On several ranks the
/// piece is extended by one node of the box towards its upper neighbours (collective) and its extent returned for
/// the .pvti; a rank that holds none of the box stages nothing (size 0, a write that does nothing). The staged
/// write owns a copy of the piece's values and writes `path`, compressed by `compression` ([output] compression);
/// on one rank, a box of every node of the block shares `host` instead (no copy).
template <class R>
StagedPiece stage_piece_vti(const std::string& path, const OutputBox& box, const OutputScaling& scaling,
                            const Decomposition& decomposition, const std::shared_ptr<const std::vector<R>>& host,
                            const std::vector<std::pair<std::string, int>>& fields,
                            const std::vector<std::string>& wanted, std::int64_t step, VtkCompression compression);

}  // namespace eddy
