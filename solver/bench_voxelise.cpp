// `eddy bench --voxelise` (solver/bench_voxelise.hpp).
#include "solver/bench_voxelise.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "kernels/backend.hpp"
#include "solver/decomposition.hpp"
#include "solver/mesh_voxeliser.hpp"
#include "solver/mpi_check.hpp"
#include "solver/rank_device.hpp"
#include "solver/run_report.hpp"
#include "solver/tessellated_sphere.hpp"
#include "solver/timing.hpp"

namespace eddy {

void run_voxelise_bench(const BenchOptions& o, MPI_Comm world, std::ostream& rank0_log) {
  if (o.voxelise_triangles < 8) throw CollectiveInputError("bench: --voxelise needs at least 8 triangles");
  CaseConfig config;
  config.name = "bench_voxelise";
  config.size = o.grid ? *o.grid : std::array<int, 3>{o.size, o.size, o.size};
  for (auto& face : config.faces) face.kind = FaceKind::wall;
  config.tau = 0.6;
  config.steps = 1;
  const Decomposition d = decompose(config, world);
  std::ostream null_log(nullptr);
  std::ostream& log = d.rank == 0 ? rank0_log : null_log;
  const backend::DeviceInfo device = backend::device_info(select_rank_device(config, world));

  const int n_lat = uv_sphere_bands(o.voxelise_triangles);
  const double radius = double(*std::min_element(config.size.begin(), config.size.end())) / 4.0;
  const std::array<double, 3> centre = {0.5 * config.size[0] + 0.31, 0.5 * config.size[1] + 0.17,
                                        0.5 * config.size[2] + 0.23};
  const TriangleMesh sphere = uv_sphere(centre, radius, n_lat, 2 * n_lat);
  auto start = Clock::now();
  const std::vector<MeshTriangle> all = fixed_point_triangles(sphere, config.size, "bench: the sphere");
  const VoxelSamples samples = block_samples(config, d, 0);
  const std::vector<MeshTriangle> triangles = triangles_for(all, samples);
  const double host_seconds = seconds_since(start);
  log << "bench: voxelise a UV sphere of " << sphere.triangles.size() << " triangles (radius "
      << format_number("%.6g", radius) << " cells) into the " << config.size[0] << " x " << config.size[1] << " x "
      << config.size[2] << " domain, " << backend::name() << " on " << device.name;
  if (d.size > 1) log << ", " << d.size << " ranks as " << d.dims[0] << " x " << d.dims[1] << " x " << d.dims[2];
  log << "\n  samples of rank 0's block (with its ghost cells, none beyond the walls): "
      << samples.axis[0].global.size() << " x " << samples.axis[1].global.size() << " x "
      << samples.axis[2].global.size() << "; host: fixed point and selection " << format_number("%.3f", host_seconds)
      << " s\n";

  MeshVoxels voxels = voxelise_mesh(triangles, samples, false);  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < o.repetitions; ++r) {
    if (!d.serial()) EDDY_MPI_CHECK(MPI_Barrier(d.comm));
    start = Clock::now();
    voxels = voxelise_mesh(triangles, samples, false);
    double t = seconds_since(start);
    if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, d.comm));
    seconds.push_back(t);
  }
  double mean = 0.0, sd = 0.0;
  for (double t : seconds) mean += t / double(seconds.size());
  for (double t : seconds) sd += (t - mean) * (t - mean) / double(std::max<std::size_t>(seconds.size() - 1, 1));
  sd = std::sqrt(sd);
  log << "  device voxelisation (upload of " << triangles.size()
      << " triangles, passes, download of the bits): " << format_number("%.4f", mean) << " s mean, "
      << format_number("%.4f", sd) << " s sd over " << seconds.size()
      << " repetitions (slowest rank; one warm-up not counted)\n";

  // Cells inside, this rank's interior, summed; and the analytic sphere's.
  long long cells[2] = {0, 0};
  for (int z = 1; z <= d.local_size[2]; ++z)
    for (int y = 1; y <= d.local_size[1]; ++y)
      for (int x = 1; x <= d.local_size[0]; ++x) {
        cells[0] += voxels.inside(x, y, z) ? 1 : 0;
        const double p[3] = {d.offset[0] + x - 0.5, d.offset[1] + y - 0.5, d.offset[2] + z - 0.5};
        const double r2 = (p[0] - centre[0]) * (p[0] - centre[0]) + (p[1] - centre[1]) * (p[1] - centre[1]) +
                          (p[2] - centre[2]) * (p[2] - centre[2]);
        cells[1] += r2 <= radius * radius ? 1 : 0;
      }
  start = Clock::now();
  const MeshVoxels reference = voxelise_mesh_reference(triangles, samples, false);
  const double reference_seconds = seconds_since(start);
  int differ = (reference.bits != voxels.bits || reference.crossings != voxels.crossings) ? 1 : 0;
  if (!d.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, cells, 2, MPI_LONG_LONG, MPI_SUM, d.comm));
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, d.comm));
  }
  log << "  solid cells " << cells[0] << " (the analytic sphere of the same radius: " << cells[1]
      << "; the inscribed mesh leaves out cell centres between its faces and the sphere)\n"
      << "  CPU reference (plain loops, rank 0): " << format_number("%.3f", reference_seconds) << " s; device "
      << (differ ? "DIFFERS from it" : "bitwise equal to it") << "\n";
  if (differ) throw std::runtime_error("bench --voxelise: the device voxeliser differs from the CPU reference");
}

}  // namespace eddy
