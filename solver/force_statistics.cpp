// Statistics and the dominant frequency of a force coefficient's series (solver/force_statistics.hpp).
#include "solver/force_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace eddy {

namespace {

/// Relative tolerance on the spacing of "evenly spaced" times (times are step * dt, rounded once).
constexpr double kSpacingTolerance = 1e-6;

/// The Hann window's weight of sample n of N (N >= 2).
double hann(std::size_t n, std::size_t N) {
  const double s = std::sin(M_PI * double(n) / double(N - 1));
  return s * s;
}

/// |sum_n y_n exp(-2 pi i nu n)|^2, nu = f dt in cycles per sample.
double power_at(const std::vector<double>& y, double nu) {
  double re = 0.0, im = 0.0;
  for (std::size_t n = 0; n < y.size(); ++n) {
    // The phase reduced to [0, 1) cycles before the trigonometry keeps it accurate for large n.
    const double cycles = nu * double(n);
    const double phase = 2.0 * M_PI * (cycles - std::floor(cycles));
    re += y[n] * std::cos(phase);
    im -= y[n] * std::sin(phase);
  }
  return re * re + im * im;
}

std::string count_text(std::size_t n) { return std::to_string(n); }

/// A number for a message, `digits` significant digits.
std::string short_text(double v, int digits = 4) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

}  // namespace

SeriesStatistics series_statistics(const std::vector<double>& x) {
  SeriesStatistics s;
  s.samples = x.size();
  if (x.empty()) return s;
  double sum = 0.0;
  s.min = s.max = x[0];
  bool finite = true;
  for (double v : x) {
    sum += v;
    finite = finite && std::isfinite(v);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  if (!finite) {
    s.mean = s.min = s.max = s.amplitude = std::nan("");
    return s;
  }
  s.mean = sum / double(x.size());
  s.amplitude = 0.5 * (s.max - s.min);
  return s;
}

void fft_radix2(std::vector<std::complex<double>>& a) {
  const std::size_t m = a.size();
  if (m == 0 || (m & (m - 1)) != 0) throw std::invalid_argument("fft_radix2: the size must be a power of two");
  // Bit-reversal permutation, then butterflies of growing length (Cooley & Tukey 1965), twiddles from std::polar.
  for (std::size_t i = 1, j = 0; i < m; ++i) {
    std::size_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t length = 2; length <= m; length <<= 1) {
    const std::size_t half = length / 2;
    for (std::size_t k = 0; k < half; ++k) {
      const std::complex<double> w = std::polar(1.0, -2.0 * M_PI * double(k) / double(length));
      for (std::size_t start = 0; start < m; start += length) {
        const std::complex<double> u = a[start + k];
        const std::complex<double> v = a[start + k + half] * w;
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
  }
}

DominantFrequency dominant_frequency(const std::vector<double>& t, const std::vector<double>& x) {
  DominantFrequency out;
  const std::size_t N = x.size();
  if (t.size() != N) throw std::invalid_argument("dominant_frequency: t and x differ in length");
  if (N < kMinSpectralSamples) {
    out.reason = "too few samples (" + count_text(N) + ", at least " + count_text(kMinSpectralSamples) + " needed)";
    return out;
  }
  const double dt = (t[N - 1] - t[0]) / double(N - 1);
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    out.reason = "the sample times do not increase";
    return out;
  }
  for (std::size_t n = 1; n < N; ++n) {
    if (std::abs((t[n] - t[n - 1]) - dt) > kSpacingTolerance * dt) {
      out.reason = "the samples are not evenly spaced in time (at t = " + short_text(t[n - 1], 10) + " and " +
                   short_text(t[n], 10) + "; was forces.every changed between runs?)";
      return out;
    }
  }
  out.resolution = 1.0 / (double(N) * dt);
  const SeriesStatistics s = series_statistics(x);
  if (!std::isfinite(s.mean)) {
    out.reason = "the series holds non-finite values";
    return out;
  }
  if (s.max == s.min) {
    out.reason = "the series is constant";
    return out;
  }
  std::vector<double> y(N);
  for (std::size_t n = 0; n < N; ++n) y[n] = (x[n] - s.mean) * hann(n, N);
  std::size_t M = 1;
  while (M < 4 * N) M <<= 1;
  std::vector<std::complex<double>> spectrum(M);
  for (std::size_t n = 0; n < N; ++n) spectrum[n] = y[n];
  fft_radix2(spectrum);
  std::vector<double> power(M / 2 + 1);
  for (std::size_t k = 0; k <= M / 2; ++k) power[k] = std::norm(spectrum[k]);
  std::size_t peak = 1;
  for (std::size_t k = 2; k <= M / 2; ++k)
    if (power[k] > power[peak]) peak = k;
  std::vector<double> sorted(power.begin() + 1, power.end());
  std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const double coarse = double(peak) / (double(M) * dt);
  if (coarse < 2.0 * out.resolution) {
    out.reason = "the strongest component has fewer than 2 periods in the analysed time (f = " + short_text(coarse) +
                 " < 2 / T: a drift or a transient, not an oscillation)";
    return out;
  }
  if (!(power[peak] >= kMinPeakToMedian * median)) {
    out.reason = "no peak stands out of the spectrum (the highest is " + short_text(power[peak] / median) +
                 " times the median, less than " + short_text(kMinPeakToMedian) + "): noise, not an oscillation";
    return out;
  }
  // Golden-section search for the maximum of the exact periodogram between the coarse peak's neighbours (in cycles
  // per sample), where the main lobe (4 / N wide against a grid of 1 / M <= 1 / (4 N)) has no other maximum.
  double lo = (double(peak) - 1.0) / double(M), hi = std::min(0.5, (double(peak) + 1.0) / double(M));
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
  double pa = power_at(y, a), pb = power_at(y, b);
  for (int iteration = 0; iteration < 80 && hi - lo > 1e-13 / double(N); ++iteration) {
    if (pa < pb) {
      lo = a;
      a = b;
      pa = pb;
      b = lo + ratio * (hi - lo);
      pb = power_at(y, b);
    } else {
      hi = b;
      b = a;
      pb = pa;
      a = hi - ratio * (hi - lo);
      pa = power_at(y, a);
    }
  }
  out.found = true;
  out.frequency = 0.5 * (lo + hi) / dt;
  return out;
}

}  // namespace eddy
