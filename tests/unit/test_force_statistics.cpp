// Unit tests for the closing summary's time-series analysis (solver/force_statistics.hpp) on synthetic signals of
// known mean, amplitude and frequency:
//   - the radix-2 FFT equals a direct DFT written here;
//   - mean, min, max and amplitude of a sampled sinusoid against their exact values;
//   - the dominant frequency of a clean sinusoid (to 1e-5 relative: the coarse FFT grid alone is off by up to 1/8 of
//     a bin, ~1e-2 here), of a sinusoid under noise and on a large mean (C_D-like), of the stronger of two tones, and
//     in SI time units;
//   - no number, and the reason, for a series that is too short, constant, pure noise, a drift, or unevenly spaced.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "solver/force_statistics.hpp"

namespace eddy {
namespace {

/// n samples of mean + amplitude sin(2 pi f t + phase) at t = t0 + i dt, plus Gaussian noise of deviation sigma.
struct Signal {
  std::vector<double> t, x;
};
Signal sinusoid(std::size_t n, double dt, double f, double mean, double amplitude, double phase = 0.3,
                double sigma = 0.0, double t0 = 0.0) {
  Signal s;
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = t0 + double(i) * dt;
    s.t.push_back(t);
    s.x.push_back(mean + amplitude * std::sin(2.0 * M_PI * f * t + phase) + sigma * noise(rng));
  }
  return s;
}

TEST(ForceStatistics, FftEqualsADirectDft) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const std::size_t m : {1u, 2u, 8u, 64u, 1024u}) {
    std::vector<std::complex<double>> a(m);
    for (auto& v : a) v = {u(rng), u(rng)};
    std::vector<std::complex<double>> direct(m);
    for (std::size_t k = 0; k < m; ++k)
      for (std::size_t n = 0; n < m; ++n)
        direct[k] += a[n] * std::polar(1.0, -2.0 * M_PI * double(k * n % m) / double(m));
    fft_radix2(a);
    for (std::size_t k = 0; k < m; ++k) EXPECT_LT(std::abs(a[k] - direct[k]), 1e-11 * double(m)) << m << " " << k;
  }
  std::vector<std::complex<double>> odd(12);
  EXPECT_THROW(fft_radix2(odd), std::invalid_argument);
}

TEST(ForceStatistics, MeanExtremesAndAmplitude) {
  // 20 whole periods of 3.2 + 0.05 sin, 100 samples a period, the first at phase 0.3: the mean is exact up to
  // round-off, the sampled extremes lie within A (1 - cos(pi / 100)) of the true ones.
  const Signal s = sinusoid(2000, 0.01, 1.0, 3.2, 0.05);
  const SeriesStatistics st = series_statistics(s.x);
  EXPECT_EQ(st.samples, 2000u);
  EXPECT_NEAR(st.mean, 3.2, 1e-14);
  const double sampling = 0.05 * (1.0 - std::cos(M_PI / 100.0));
  EXPECT_NEAR(st.max, 3.25, sampling);
  EXPECT_NEAR(st.min, 3.15, sampling);
  EXPECT_NEAR(st.amplitude, 0.05, sampling);
  EXPECT_LE(st.max, 3.25 + 1e-15);
  const SeriesStatistics three = series_statistics({1.0, -2.0, 4.0});
  EXPECT_EQ(three.mean, 1.0);
  EXPECT_EQ(three.min, -2.0);
  EXPECT_EQ(three.max, 4.0);
  EXPECT_EQ(three.amplitude, 3.0);
}

TEST(ForceStatistics, FrequencyOfACleanSinusoid) {
  // f = 0.0123 per step, sampled every 2 steps: 10.3 periods in 419 samples, 40.7 samples a period.
  const double f = 0.0123;
  const Signal s = sinusoid(419, 2.0, f, 0.0, 1.0);
  const DominantFrequency d = dominant_frequency(s.t, s.x);
  ASSERT_TRUE(d.found) << d.reason;
  std::printf("clean: relative error %.3e, bin width / f = %.3e\n", d.frequency / f - 1.0, d.resolution / f);
  EXPECT_NEAR(d.frequency / f, 1.0, 1e-5);
  EXPECT_NEAR(d.resolution, 1.0 / (419 * 2.0), 1e-15);
}

TEST(ForceStatistics, FrequencyUnderNoiseAndOnALargeMean) {
  // C_L-like: amplitude 1 with noise of deviation 0.3; C_D-like: 3.2 + 0.02 sin at twice the frequency with noise
  // 0.005, in seconds (dt = 1e-3 s, f = 3 Hz: 30 periods in 10 s).
  const Signal lift = sinusoid(10000, 1e-3, 3.0, 0.01, 1.0, 1.1, 0.3);
  const DominantFrequency dl = dominant_frequency(lift.t, lift.x);
  ASSERT_TRUE(dl.found) << dl.reason;
  std::printf("noisy lift: error / bin width %.3e\n", (dl.frequency - 3.0) / dl.resolution);
  EXPECT_LT(std::abs(dl.frequency - 3.0), 1e-2 * dl.resolution);
  const Signal drag = sinusoid(10000, 1e-3, 6.0, 3.2, 0.02, 0.4, 0.005, 5.0);
  const DominantFrequency dd = dominant_frequency(drag.t, drag.x);
  ASSERT_TRUE(dd.found) << dd.reason;
  std::printf("noisy drag: error / bin width %.3e\n", (dd.frequency - 6.0) / dd.resolution);
  EXPECT_LT(std::abs(dd.frequency - 6.0), 1e-2 * dd.resolution);
  const SeriesStatistics st = series_statistics(drag.x);
  EXPECT_NEAR(st.mean, 3.2, 5 * 0.005 / std::sqrt(10000.0));  // five standard errors of the noise's mean
}

TEST(ForceStatistics, TheStrongerOfTwoTones) {
  Signal s = sinusoid(2000, 1.0, 0.02, 0.0, 1.0);
  const Signal weak = sinusoid(2000, 1.0, 0.047, 0.0, 0.4);
  for (std::size_t i = 0; i < s.x.size(); ++i) s.x[i] += weak.x[i];
  const DominantFrequency d = dominant_frequency(s.t, s.x);
  ASSERT_TRUE(d.found) << d.reason;
  EXPECT_NEAR(d.frequency / 0.02, 1.0, 1e-4);
}

TEST(ForceStatistics, SaysWhyThereIsNoFrequency) {
  const auto reason = [](const Signal& s) {
    const DominantFrequency d = dominant_frequency(s.t, s.x);
    EXPECT_FALSE(d.found) << d.frequency;
    return d.reason;
  };
  EXPECT_NE(reason(sinusoid(8, 1.0, 0.2, 0.0, 1.0)).find("too few samples (8, at least 16 needed)"), std::string::npos);
  EXPECT_NE(reason(sinusoid(200, 1.0, 0.1, 2.0, 0.0)).find("constant"), std::string::npos);
  EXPECT_NE(reason(sinusoid(4000, 1.0, 0.1, 0.0, 0.0, 0.0, 1.0)).find("no peak stands out"), std::string::npos);
  Signal drift;
  for (int i = 0; i < 500; ++i) {
    drift.t.push_back(i);
    drift.x.push_back(1.0 - std::exp(-i / 150.0));
  }
  EXPECT_NE(reason(drift).find("fewer than 2 periods"), std::string::npos);
  Signal uneven = sinusoid(100, 1.0, 0.1, 0.0, 1.0);
  uneven.t[50] += 0.5;
  EXPECT_NE(reason(uneven).find("not evenly spaced"), std::string::npos);
  Signal bad = sinusoid(100, 1.0, 0.1, 0.0, 1.0);
  bad.x[3] = std::nan("");
  EXPECT_NE(reason(bad).find("non-finite"), std::string::npos);
}

}  // namespace
}  // namespace eddy
