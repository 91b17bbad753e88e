// Particles outside a box: the test that decides whether any particle must move to another MPI rank
// (solver/particle_system.hpp). Reads 3 doubles per particle; one atomic addition per particle outside.
#include <algorithm>

#include "kernels/parallel_for.hpp"
#include "kernels/particle_launchers.hpp"

namespace eddy {
namespace {

/// Particles as rows of kParticleRow in a 2D box (parallel_for's int coordinates cover any count).
constexpr int kParticleRow = 1024;

struct CountOutside {
  ParticleView p;
  double lo[3], hi[3];
  unsigned long long* counter;
  EDDY_HOST_DEVICE void operator()(int i, int row, int /*z*/) const {
    const std::int64_t k = std::int64_t(row) * kParticleRow + i;
    if (k >= p.n) return;
    bool outside = false;
    for (int a = 0; a < 3; ++a) outside = outside || !(p.x[a][k] >= lo[a] && p.x[a][k] < hi[a]);
    if (outside) atomic_add(counter, 1ull);
  }
};

}  // namespace

std::int64_t count_particles_outside(const ParticleView& p, const double (&lo)[3], const double (&hi)[3],
                                     unsigned long long* counter, const backend::Stream* stream) {
  if (p.n == 0) return 0;
  const unsigned long long zero = 0;
  backend::copy_to_device(counter, &zero, sizeof zero);
  const int rows = int((p.n + kParticleRow - 1) / kParticleRow);
  parallel_for(Box{{0, 0, 0}, {int(std::min<std::int64_t>(p.n, kParticleRow)), rows, 1}},
               CountOutside{p, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, counter}, "count_particles_outside",
               stream);
  unsigned long long count = 0;
  backend::synchronize();
  backend::copy_to_host(&count, counter, sizeof count);
  return std::int64_t(count);
}

}  // namespace eddy
