// STREAM-style copy, b[k] = a[k] over n floats (McCalpin, "Memory Bandwidth and Machine Balance in Current High
// Performance Computers", IEEE TCCA Newsletter, 1995: the Copy kernel), run through the same parallel_for as the
// lattice kernels: every OpenMP thread on cpu, the GPU launch shape on cuda/hip. `eddy bench` times it next to the
// fused kernel so the percent of bandwidth compares like with like. Bytes per element: 4 read + 4 written.
// Each thread (each loop iteration on cpu) moves four floats as one 16-byte access: with one float per thread the
// GPU copy reached well under the device-to-device memcpy (the fused kernel showed at "120 % of STREAM copy").
#include <cstdint>

#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// Four floats moved as one 16-byte load and store.
struct alignas(16) Quad {
  float v[4];
};

/// Rows of kRowLength elements: a 2D box keeps the int coordinates of parallel_for for any n up to 2^40.
constexpr int kRowLength = 4096;

/// b[k] = a[k] for k in [0, n), elements of type V.
template <class V>
struct CopyRows {
  V* b;
  const V* a;
  std::int64_t n;
  EDDY_HOST_DEVICE void operator()(int x, int y, int /*z*/) const {
    const std::int64_t k = std::int64_t(y) * kRowLength + x;
    if (k < n) b[k] = a[k];
  }
};

template <class V>
void copy_rows(V* b, const V* a, std::int64_t n) {
  if (n <= 0) return;
  const int rows = int((n + kRowLength - 1) / kRowLength);
  parallel_for(Box{{0, 0, 0}, {kRowLength, rows, 1}}, CopyRows<V>{b, a, n}, "stream_copy");
}

}  // namespace

void stream_copy(float* b, const float* a, std::int64_t n) {
  // Quads need 16-byte aligned arrays (device allocations are); otherwise float by float.
  const bool aligned = reinterpret_cast<std::uintptr_t>(a) % alignof(Quad) == 0 &&
                       reinterpret_cast<std::uintptr_t>(b) % alignof(Quad) == 0;
  const std::int64_t quads = aligned ? n / 4 : 0;
  copy_rows(reinterpret_cast<Quad*>(b), reinterpret_cast<const Quad*>(a), quads);
  copy_rows(b + 4 * quads, a + 4 * quads, n - 4 * quads);
}

}  // namespace eddy
