// STREAM-style copy, b[k] = a[k] over n floats (McCalpin, "Memory Bandwidth and Machine Balance in Current High
// Performance Computers", IEEE TCCA Newsletter, 1995: the Copy kernel), run through the same parallel_for as the
// lattice kernels: every OpenMP thread on cpu, the GPU launch shape on cuda/hip. `eddy bench` times it next to the
// fused kernel so the percent of bandwidth compares like with like. Bytes per element: 4 read + 4 written.
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// Rows of kRowLength elements: a 2D box keeps the int coordinates of parallel_for for any n up to 2^40.
constexpr int kRowLength = 4096;

struct CopyRows {
  float* b;
  const float* a;
  std::int64_t n;
  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k < n) b[k] = a[k];
  }
};

}  // namespace

void stream_copy(float* b, const float* a, std::int64_t n) {
  const int rows = int((n + kRowLength - 1) / kRowLength);
  parallel_for(Box{{0, 0, 0}, {kRowLength, rows, 1}}, CopyRows{b, a, n}, "stream_copy");
}

}  // namespace eddy
