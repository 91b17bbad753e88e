// Wall-clock timing shared by the run loop and the bench: one clock, seconds since a start, MLUPS.
#pragma once

#include <chrono>

namespace eddy {

using Clock = std::chrono::steady_clock;

/// Wall seconds from `start` to now.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Wall seconds from `start` to `end`.
inline double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

/// Million lattice cell updates per second: `cells` updated `steps` times in `seconds` (0 when no time passed).
inline double mlups(double cells, double steps, double seconds) {
  return seconds > 0 ? cells * steps / seconds * 1e-6 : 0.0;
}

}  // namespace eddy
