// `eddy bench --voxelise TRIANGLES`: the device voxeliser (solver/mesh_voxeliser.hpp) timed on a UV sphere of about
// that many triangles, built in memory (no mesh file), in the benchmark's N^3 block, checked bitwise against the
// plain CPU reference and counted against the analytic sphere of the same radius.
#pragma once

#include <mpi.h>

#include <iosfwd>

#include "solver/bench.hpp"

namespace eddy {

/// Runs the voxeliser benchmark on the ranks of `world` (collective; each rank its own block of the --size or --grid
/// domain, walls on every face); only rank 0 logs. The sphere has radius min(size) / 4 around the domain's centre
/// (offset by (0.31, 0.17, 0.23) cells, off the lattice's symmetry). --repeat timed repetitions after one warm-up;
/// each is an upload of the triangles, the device passes and the download of the bits. Throws InputError for a
/// non-positive count, DeviceError when the block does not fit.
void run_voxelise_bench(const BenchOptions& options, MPI_Comm world, std::ostream& log);

}  // namespace eddy
