#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/units.hpp"

using namespace perfmodel;

TEST(Statistics, MedianAndDecilesOfKnownSample) {
  const SampleSummary s = summarize({5, 1, 4, 2, 3, 10, 6, 7, 9, 8, 100});
  EXPECT_EQ(s.count, 11u);
  EXPECT_DOUBLE_EQ(s.median, 6.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_DOUBLE_EQ(s.p10, 2.0);
  EXPECT_DOUBLE_EQ(s.p90, 10.0);
  EXPECT_DOUBLE_EQ(s.p25, 3.5);
  EXPECT_DOUBLE_EQ(s.p75, 8.5);
  EXPECT_DOUBLE_EQ(s.relative_spread(), 5.0 / 6.0);  // the outlier 100 moves neither quartile
}

// The interquartile mean drops floor(n/4) samples at each end: the outlier 100 does not move it,
// and on a bimodal sample it follows the mix where the median jumps from one mode to the other.
TEST(Statistics, InterquartileMeanIgnoresTailsAndFollowsABimodalMix) {
  EXPECT_DOUBLE_EQ(summarize({5, 1, 4, 2, 3, 10, 6, 7, 9, 8, 100}).interquartile_mean, (3 + 4 + 5 + 6 + 7 + 8 + 9) / 7.0);
  EXPECT_DOUBLE_EQ(summarize({2.0}).interquartile_mean, 2.0);
  EXPECT_DOUBLE_EQ(summarize({1.0, 3.0}).interquartile_mean, 2.0);
  // 6.0 or 7.2 µs, 9 against 11 and 11 against 9: the median moves 1.2 µs, the interquartile mean 0.24.
  std::vector<double> fewer_slow(9, 6.0), more_slow(11, 6.0);
  fewer_slow.insert(fewer_slow.end(), 11, 7.2);
  more_slow.insert(more_slow.end(), 9, 7.2);
  const SampleSummary a = summarize(fewer_slow), b = summarize(more_slow);
  EXPECT_NEAR(a.median - b.median, 1.2, 1e-12);
  EXPECT_NEAR(a.interquartile_mean - b.interquartile_mean, 0.24, 1e-12);
}

TEST(Statistics, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, NAN}), std::invalid_argument);
}

// The bootstrap standard error of the interquartile mean: for normal samples it is the textbook
// figure (the interquartile mean is ~84 % efficient: SE ≈ σ / √(0.84·n)), it halves when n
// quadruples, it is 0 without spread, and the same samples always give the same figure.
TEST(Statistics, InterquartileMeanStandardErrorMatchesTheoryAndIsDeterministic) {
  std::mt19937_64 gen(7);
  const auto normal_sample = [&](std::size_t n) {  // mean 1, sigma 0.1 (Box-Muller on the raw stream)
    std::vector<double> v;
    while (v.size() < n) {
      const double u1 = (static_cast<double>(gen() >> 11) + 0.5) / 9007199254740992.0;
      const double u2 = static_cast<double>(gen() >> 11) / 9007199254740992.0;
      v.push_back(1.0 + 0.1 * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
    }
    return v;
  };
  const std::vector<double> a = normal_sample(100), b = normal_sample(400);
  const double se_a = interquartile_mean_rel_se(a), se_b = interquartile_mean_rel_se(b);
  EXPECT_NEAR(se_a, 0.1 / std::sqrt(0.84 * 100), 0.003);
  EXPECT_NEAR(se_b / se_a, 0.5, 0.15);
  EXPECT_EQ(interquartile_mean_rel_se(a), se_a);  // a fixed stream: reproducible to the bit
  EXPECT_EQ(interquartile_mean_rel_se(std::vector<double>(20, 3.0)), 0.0);
  EXPECT_EQ(interquartile_mean_rel_se({2.0}), 0.0);
  EXPECT_THROW(interquartile_mean_rel_se({1.0, INFINITY}), std::invalid_argument);
}

TEST(Units, ParsesByteCountsWithUnits) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("64MiB"), 64u << 20);
  EXPECT_EQ(parse_bytes("1.5 KiB"), 1536u);
  EXPECT_EQ(parse_bytes("2GB"), 2000000000u);
  EXPECT_EQ(parse_bytes(" 1GiB "), 1u << 30);
}

TEST(Units, RejectsNegativeGarbageAndFractionalBytes) {
  for (const char* bad : {"-4", "", "abc", "12 parsecs", "1.5", "1e400", "0x10"}) {
    try {
      parse_bytes(bad, "--bytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--bytes"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, FormatsForPeople) {
  EXPECT_EQ(format_bytes(64.0 * 1024 * 1024), "64 MiB");
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_seconds(12.5e-6), "12.5 us");
  EXPECT_EQ(format_rate(55.3e9), "55.3 GB/s");
}
