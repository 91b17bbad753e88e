// solver/force_statistics.hpp: what the closing summary of a run says about a force coefficient's time series
// (host only): mean, min, max and amplitude over a window of samples, and the dominant frequency from a spectral
// estimate with peak refinement.
//
// Dominant frequency (dominant_frequency), for N samples x_n at evenly spaced times t_n = t_0 + n dt:
//   1. the mean is removed and a Hann window w_n = sin^2(pi n / (N - 1)) applied (its side lobes fall as 1/f^3, so
//      neither a large mean, a slow drift nor the spectrum's negative-frequency image bends the peak much);
//   2. the periodogram P(f) = |sum_n w_n x_n exp(-2 pi i f n dt)|^2 on the grid f_k = k / (M dt), by a radix-2 FFT
//      of the windowed samples zero-padded to M = the power of two >= 4 N (fft_radix2); its largest value for k >= 1
//      is the coarse peak;
//   3. refinement: golden-section search for the maximum of P(f), evaluated directly (the sum above, O(N) each), in
//      the two grid intervals around the coarse peak, to about 1e-12 of the bin width.
// Resolution: the bin width is 1 / T, T = N dt the window's span; the Hann main lobe is 4 / T wide, so two components
// closer than about 2 / T merge into one peak, and only frequencies below the Nyquist frequency 1 / (2 dt) can be
// told (higher ones alias). For one clean oscillation the refined peak is far closer than 1 / T, limited by what the
// window's side lobes carry over from the negative-frequency image and other components: measured relative errors
// of 3e-6 and 8e-6 with 10 periods in the window, 1.4e-4 with 5, and 1e-3 of the bin width under noise of 0.3 of the
// amplitude (tests/unit/test_force_statistics.cpp, test_force_output.cpp). Spectral estimation with a tapered
// periodogram: Harris 1978, Proc. IEEE 66, 51; peak interpolation as in Quinn 1994, IEEE Trans. Signal Process. 42,
// 1264 (there by formulas, here by search). No frequency is reported (DominantFrequency::reason says why) for fewer
// than kMinSpectralSamples samples, samples not evenly spaced, a non-finite or constant series, a peak below 2 / T
// (fewer than 2 periods in the window: a drift or a transient), or a peak less than kMinPeakToMedian times the
// periodogram's median (noise: white noise of any variance stays below about 20 for up to 10^8 samples).
#pragma once

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace eddy {

/// Fewest samples dominant_frequency analyses.
inline constexpr std::size_t kMinSpectralSamples = 16;
/// The periodogram's peak must be at least this many times its median for a frequency to be reported.
inline constexpr double kMinPeakToMedian = 30.0;

/// Mean, extremes and amplitude (max - min) / 2 of a series.
struct SeriesStatistics {
  std::size_t samples = 0;
  double mean = 0.0, min = 0.0, max = 0.0, amplitude = 0.0;
};

/// The statistics of `x` (at least one value; NaN values make every result NaN).
SeriesStatistics series_statistics(const std::vector<double>& x);

/// A dominant frequency, or why there is none.
struct DominantFrequency {
  bool found = false;
  double frequency = 0.0;   ///< in 1 / (the unit of t), when found
  double resolution = 0.0;  ///< the bin width 1 / (N dt), when the spacing is known
  std::string reason;       ///< when not found: one phrase, e.g. "too few samples (8, at least 16 needed)"
};

/// The dominant frequency of `x` sampled at times `t` (same length; the header's method and limits).
DominantFrequency dominant_frequency(const std::vector<double>& t, const std::vector<double>& x);

/// In-place radix-2 FFT, X_k = sum_n x_n exp(-2 pi i k n / M), M = a.size() a power of two (std::invalid_argument
/// otherwise).
void fft_radix2(std::vector<std::complex<double>>& a);

}  // namespace eddy
