// ParticleArrays: the device arrays of a rank's particles (structure of arrays, kernels/particles.hpp ParticleView)
// with room to grow: the particles of the rank, and behind them, during a step with contacts, the ghost copies of
// the neighbours' particles (solver/particle_ghosts.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/particles.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

struct ParticleArrays {
  std::array<DeviceBuffer<double>, 3> x, v, force;  ///< capacity entries each, lattice units
  DeviceBuffer<double> diameter, density;
  DeviceBuffer<std::int64_t> id;
  std::int64_t capacity = 0;

  /// Room for `n` particles. When the arrays must grow (to max(n, 1.5 capacity, 1024)), the first `keep` entries
  /// of every array are copied into the new ones, queued on `stream` (the default stream when null); the old
  /// arrays are freed after the work queued on `stream` is done. Throws DeviceError when memory runs out (the old
  /// arrays are then kept).
  void reserve(std::int64_t n, std::int64_t keep = 0, const backend::Stream* stream = nullptr) {
    if (n <= capacity && capacity > 0) return;
    const std::int64_t grown = std::max<std::int64_t>({n, capacity + capacity / 2, 1024});
    const std::size_t c = std::size_t(grown);
    ParticleArrays next;
    for (int a = 0; a < 3; ++a) {
      next.x[a] = DeviceBuffer<double>(c);
      next.v[a] = DeviceBuffer<double>(c);
      next.force[a] = DeviceBuffer<double>(c);
    }
    next.diameter = DeviceBuffer<double>(c);
    next.density = DeviceBuffer<double>(c);
    next.id = DeviceBuffer<std::int64_t>(c);
    next.capacity = grown;
    keep = std::min(keep, capacity);
    if (keep > 0) {
      const std::size_t bytes = std::size_t(keep) * sizeof(double);
      auto copy = [&](void* to, const void* from, std::size_t count) {
        if (stream) {
          backend::copy_on_device_async(to, from, count, *stream);
        } else {
          backend::copy_on_device(to, from, count);
        }
      };
      for (int a = 0; a < 3; ++a) {
        copy(next.x[a].data(), x[a].data(), bytes);
        copy(next.v[a].data(), v[a].data(), bytes);
        copy(next.force[a].data(), force[a].data(), bytes);
      }
      copy(next.diameter.data(), diameter.data(), bytes);
      copy(next.density.data(), density.data(), bytes);
      copy(next.id.data(), id.data(), std::size_t(keep) * sizeof(std::int64_t));
    }
    if (stream) {
      stream->synchronize();  // the copies (and earlier kernels) are done with the old arrays
    } else {
      backend::synchronize();
    }
    swap(next);
  }

  /// The first n entries as a ParticleView (n <= capacity).
  ParticleView view(std::int64_t n) const {
    return ParticleView{{x[0].data(), x[1].data(), x[2].data()},
                        {v[0].data(), v[1].data(), v[2].data()},
                        diameter.data(),
                        density.data(),
                        id.data(),
                        {force[0].data(), force[1].data(), force[2].data()},
                        n};
  }

  void swap(ParticleArrays& other) noexcept {
    for (int a = 0; a < 3; ++a) {
      x[a].swap(other.x[a]);
      v[a].swap(other.v[a]);
      force[a].swap(other.force[a]);
    }
    diameter.swap(other.diameter);
    density.swap(other.density);
    id.swap(other.id);
    std::swap(capacity, other.capacity);
  }
};

}  // namespace eddy
