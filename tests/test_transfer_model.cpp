#include <gtest/gtest.h>

#include <cmath>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"
#include "perfmodel/predictors/communication.hpp"

using namespace perfmodel;

namespace {

TransferCurve two_segment_curve() {
  TransferCurve c;
  c.segments = {{0, 1 << 20, 10e-6, 1.0 / 20e9, 0, 10, 0.01, 0.02}, {1 << 20, INFINITY, 30e-6, 1.0 / 50e9, 0, 10, 0.01, 0.02}};
  c.min_bytes = 4;
  c.max_bytes = 1 << 30;
  return c;
}

}  // namespace

TEST(TransferCurve, EvaluatesTheSegmentThatCoversTheSize) {
  const TransferCurve c = two_segment_curve();
  EXPECT_DOUBLE_EQ(c.seconds(4096), 10e-6 + 4096 / 20e9);
  EXPECT_DOUBLE_EQ(c.seconds(1 << 20), 30e-6 + (1 << 20) / 50e9);  // boundary belongs to the upper segment
  EXPECT_DOUBLE_EQ(c.asymptotic_rate_bytes_per_s(), 50e9);
  // S0's c0 = s_per_byte − 1/T_x: positive where the segment is slower than the asymptote.
  EXPECT_NEAR(c.c0_s_per_byte(c.segments[0]), 1.0 / 20e9 - 1.0 / 50e9, 1e-25);
  EXPECT_DOUBLE_EQ(c.c0_s_per_byte(c.segments[1]), 0.0);
  EXPECT_TRUE(c.extrapolates(2.0 * (1 << 30)));
  EXPECT_FALSE(c.extrapolates(1 << 29));
}

TEST(TransferCurve, FitReportsHeldOutErrorSeparately) {
  std::vector<SizeTime> fit_set, holdout;
  for (double e = 2; e <= 30; e += 0.5) fit_set.push_back({std::exp2(e), 8e-6 + std::exp2(e) / 50e9, 9});
  for (double e = 2.3; e < 30; e += 1.0) holdout.push_back({std::round(std::exp2(e)), 1.02 * (8e-6 + std::exp2(e) / 50e9), 9});
  const TransferCurve c = fit_transfer_curve(fit_set, holdout);
  EXPECT_LT(c.fit.max_rel_error, 1e-9);
  ASSERT_TRUE(c.holdout.has_value());
  EXPECT_EQ(c.holdout->sizes, holdout.size());
  EXPECT_NEAR(c.holdout->mean_rel_error, 0.02 / 1.02, 1e-3);  // the 2% offset planted in the held-out set
  EXPECT_EQ(c.samples, 9 * fit_set.size());
  EXPECT_EQ(c.min_bytes, 4.0);
  EXPECT_EQ(c.max_bytes, std::exp2(30));
}

// The ragged tail of git history's data/experiments/2026-11-23-h100-pcie-pageable: a size pays the tail cost
// when it is not a multiple of 16 B and its last partial 64-byte block holds 16 B or more.
TEST(TransferCurve, ARaggedTailIsSixteenOrMoreBytesPastAMultipleOf64ThatIsNoMultipleOf16) {
  for (double aligned : {16.0, 32.0, 48.0, 64.0, 96.0, 4096.0, 1073741824.0}) EXPECT_FALSE(is_misaligned(aligned)) << aligned;
  // Short tails: the sizes every calibration had put 6–8 % too slow (79 B, 20171 B), and the
  // smallest copies.
  for (double short_tail : {4.0, 5.0, 14.0, 15.0, 65.0, 79.0, 1039.0, 20171.0}) EXPECT_FALSE(is_misaligned(short_tail)) << short_tail;
  for (double ragged : {17.0, 20.0, 23.0, 56.0, 63.0, 95.0, 111.0, 1041.0, 14263.0, 24563283.0}) EXPECT_TRUE(is_misaligned(ragged)) << ragged;

  TransferCurve c = two_segment_curve();
  c.segments[0].misaligned_s = 0.5e-6;
  EXPECT_DOUBLE_EQ(c.seconds(95) - (10e-6 + 95 / 20e9), 0.5e-6);
  EXPECT_DOUBLE_EQ(c.seconds(79), 10e-6 + 79 / 20e9);
}

TEST(CommunicationPredictor, AddsTheTransfersOfAList) {
  Profile p;
  p.pcie = PcieCalibration{};
  p.pcie->curves[{Direction::h2d, HostMemory::pinned}] = two_segment_curve();
  p.pcie->curves[{Direction::d2h, HostMemory::pinned}] = two_segment_curve();
  const CommunicationPredictor predictor(p);
  const auto transfers = mv_transfers(4096, HostMemory::pinned);
  ASSERT_EQ(transfers.size(), 3u);
  EXPECT_EQ(transfers[0].bytes, 4u * 4096 * 4096);
  const TransferListPrediction list = predictor.predict(transfers);
  const TransferCurve c = two_segment_curve();
  EXPECT_DOUBLE_EQ(list.total_seconds, c.seconds(4.0 * 4096 * 4096) + 2 * c.seconds(4.0 * 4096));
  EXPECT_THROW(predictor.predict(Transfer{{Direction::h2d, HostMemory::pageable}, 64}), InputError);
}

TEST(CommunicationPredictor, NeedsAPcieSection) { EXPECT_THROW(CommunicationPredictor(Profile{}), InputError); }


// Copies issued among others cost a fixed amount more than back to back: the single curve's
// setup moves by the median difference below 1 MiB, at every size, and its interval spans both.
TEST(TransferCurve, MixedCopiesShiftTheSetupAndWidenTheInterval) {
  std::vector<SizeTime> own, mixed;
  for (double e = 2; e <= 28; e += 1) {
    const double b = std::exp2(e), t = 9e-6 + b / 50e9;
    own.push_back({b, t, 5, 0, 0, 1, {t, t * 1.01, t * 0.99, t, t}});
    mixed.push_back({b, t + 3e-6, 3, 0, 0, 1, {t + 2.5e-6, t + 3e-6, t + 4e-6}});
  }
  TransferCurve c = fit_transfer_curve(own, {});
  const double before_small = c.seconds(64), before_large = c.seconds(1 << 26);
  const double shift = apply_mixed_copies(c, own, mixed);
  EXPECT_NEAR(shift, 3e-6, 0.2e-6);
  EXPECT_DOUBLE_EQ(c.mixed_setup_s, shift);
  EXPECT_NEAR(c.seconds(64) - before_small, shift, 1e-12);
  EXPECT_NEAR(c.seconds(1 << 26) - before_large, shift, 1e-12);
  // The back-to-back copies now lie below the curve: the band reaches down to them.
  const auto [low, high] = c.interval_s(64);
  EXPECT_LT(low, own[4].samples_s[2]);
  EXPECT_GE(high, 9e-6 + 64 / 50e9 + 4e-6 - 1e-9);
  // An empty set changes nothing.
  TransferCurve d = fit_transfer_curve(own, {});
  EXPECT_EQ(apply_mixed_copies(d, own, {}), 0.0);
  EXPECT_EQ(d.mixed_setup_s, 0.0);
}
