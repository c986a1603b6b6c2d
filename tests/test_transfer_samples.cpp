#include <gtest/gtest.h>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/transfer_samples.hpp"

using namespace perfmodel;

TEST(TransferSamples, CsvRoundTripKeepsEverySampleAndTheProvenance) {
  TransferSampleFile f;
  f.provenance.device_name = "Test GPU";
  f.provenance.command = "perfmodel calibrate --only pcie";
  f.samples = {{{Direction::h2d, HostMemory::pinned}, 4, SizeSet::fit, 0, 64, 9.25e-6, 9.5e-6, TransferMode::stream},
               {{Direction::bidir, HostMemory::pinned}, 1000003, SizeSet::holdout, 3, 1, 4.5e-5, 4.75e-5}};
  const TransferSampleFile back = parse_transfer_samples(to_csv(f), "x.csv");
  EXPECT_EQ(back.provenance.device_name, "Test GPU");
  EXPECT_EQ(back.provenance.command, "perfmodel calibrate --only pcie");
  ASSERT_EQ(back.samples.size(), 2u);
  EXPECT_EQ(back.samples[1].key, (TransferKey{Direction::bidir, HostMemory::pinned}));
  EXPECT_EQ(back.samples[1].bytes, 1000003u);
  EXPECT_EQ(back.samples[1].set, SizeSet::holdout);
  EXPECT_DOUBLE_EQ(back.samples[0].event_s, 9.25e-6);
  EXPECT_EQ(back.samples[0].batch, 64);
  EXPECT_EQ(back.samples[0].mode, TransferMode::stream);
  EXPECT_EQ(back.samples[1].mode, TransferMode::single);
  EXPECT_EQ(back.version, 2);
  EXPECT_EQ(back.host_buffer, "");  // not recorded
  f.host_buffer = "rotating";
  EXPECT_EQ(parse_transfer_samples(to_csv(f), "x.csv").host_buffer, "rotating");
}

TEST(TransferSamples, VersionOneFilesReadAsBatchedStreamSamples) {
  const std::string v1 = "# perfmodel transfer samples v1\ndirection,memory,bytes,set,round,batch,event_s,wall_s\n"
                         "h2d,pinned,4,fit,0,64,9e-06,9.5e-06\nh2d,pinned,1073741824,fit,0,1,0.02,0.021\n";
  const TransferSampleFile f = parse_transfer_samples(v1, "old.csv");
  EXPECT_EQ(f.version, 1);
  ASSERT_EQ(f.samples.size(), 2u);
  EXPECT_EQ(f.samples[0].mode, TransferMode::stream);
  EXPECT_EQ(f.samples[1].mode, TransferMode::stream);
}

TEST(TransferSamples, VersionTwoRowsNeedAKnownModeAndSingleCopiesBatchOne) {
  const std::string head = "# perfmodel transfer samples v2\ndirection,memory,mode,bytes,set,round,batch,event_s,wall_s\n";
  const struct {
    std::string row, message;
  } cases[] = {{"h2d,pinned,burst,4,fit,0,1,1e-5,1e-5", "mode: 'burst' is not single or stream"},
               {"h2d,pinned,single,4,fit,0,8,1e-5,1e-5", "batch: a single copy's sample has batch 1"},
               {"h2d,pinned,4,fit,0,1,1e-5,1e-5", "row: expected 9 columns, found 8"}};
  for (const auto& c : cases) {
    try {
      parse_transfer_samples(head + c.row + "\n", "s.csv");
      ADD_FAILURE() << c.row << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("s.csv:3:", 0), 0u) << e.what();  // file:line(:column)
    }
  }
  EXPECT_EQ(parse_transfer_samples(head + "d2h,pageable,stream,4,fit,0,8,1e-5,1e-5\n", "s.csv").samples.at(0).batch, 8);
}

TEST(TransferSamples, MalformedRowsNameFileLineAndColumn) {
  const std::string head = "# perfmodel transfer samples v1\ndirection,memory,bytes,set,round,batch,event_s,wall_s\n";
  const struct {
    std::string row, column;  // column: "character: column name"
  } cases[] = {{"h3d,pinned,4,fit,0,1,1e-5,1e-5", "1: direction"},
               {"h2d,shared,4,fit,0,1,1e-5,1e-5", "5: memory"},
               {"h2d,pinned,-4,fit,0,1,1e-5,1e-5", "12: bytes"},
               {"h2d,pinned,4,test,0,1,1e-5,1e-5", "14: set"},
               {"h2d,pinned,4,fit,0,1,-1e-5,1e-5", "22: event_s"},
               {"h2d,pinned,4,fit,0,1,1.29e-05xyz,1e-5", "22: event_s: '1.29e-05xyz' is not a number"},
               {"h2d,pinned,4,fit,0,1,1e-5,1e-5 ", "27: wall_s"},
               {"h2d,pinned,4,fit,0,1, 1e-5,1e-5", "22: event_s"},
               {"h2d,pinned,4,fit,1e10,1,1e-5,1e-5", "18: round"},
               {"h2d,pinned,4,fit,0,1,1e-5", "1: row"}};
  for (const auto& c : cases) {
    try {
      parse_transfer_samples(head + c.row + "\n", "s.csv");
      ADD_FAILURE() << "accepted " << c.row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("s.csv:3:" + c.column), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_transfer_samples("hello\n", "s.csv"), InputError);
  try {
    parse_transfer_samples("# perfmodel transfer samples v1\n# pcie_host_buffer: warm\n" + head.substr(head.find('\n') + 1), "s.csv");
    ADD_FAILURE() << "accepted pcie_host_buffer: warm";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.csv:2: pcie_host_buffer: must be rotating or fixed, got 'warm'"), std::string::npos)
        << e.what();
  }
}

TEST(TransferSamples, MediansPerSizeOfOneCurveAndSet) {
  const TransferKey k{Direction::d2h, HostMemory::pageable};
  std::vector<TransferSample> s;
  for (double t : {3.0, 1.0, 2.0}) s.push_back({k, 8, SizeSet::fit, 0, 1, t, t});
  s.push_back({k, 8, SizeSet::holdout, 0, 1, 100, 100});
  s.push_back({{Direction::h2d, HostMemory::pageable}, 8, SizeSet::fit, 0, 1, 100, 100});
  const auto m = typical_times_by_size(s, k, SizeSet::fit);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_DOUBLE_EQ(m[0].typical_s, 2.0);
  EXPECT_EQ(m[0].samples, 3u);
  EXPECT_EQ(m[0].batch, 1);
}

TEST(TransferSamples, ASizeCarriesItsBatchOrZeroWhereItsSamplesDiffer) {
  const TransferKey k{Direction::bidir, HostMemory::pinned};
  std::vector<TransferSample> s;
  for (int round = 0; round < 3; ++round) s.push_back({k, 64, SizeSet::fit, round, 4, 1e-5, 1e-5});
  s.push_back({k, 128, SizeSet::fit, 0, 4, 1e-5, 1e-5});
  s.push_back({k, 128, SizeSet::fit, 1, 3, 1e-5, 1e-5});  // recorded before one batch per curve
  const auto m = typical_times_by_size(s, k, SizeSet::fit);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].batch, 4);
  EXPECT_EQ(m[1].batch, 0);
}

TEST(TransferSamples, MixedCopiesRoundTripAndAreSingleOneWayCopies) {
  TransferSampleFile f;
  f.samples.push_back({{Direction::h2d, HostMemory::pinned}, 4, SizeSet::mixed, 0, 1, 12e-6, 20e-6, TransferMode::single});
  const TransferSampleFile back = parse_transfer_samples(to_csv(f), "m.csv");
  ASSERT_EQ(back.samples.size(), 1u);
  EXPECT_EQ(back.samples[0].set, SizeSet::mixed);
  EXPECT_TRUE(typical_times_by_size(back.samples, {Direction::h2d, HostMemory::pinned}, SizeSet::fit).empty());
  EXPECT_EQ(typical_times_by_size(back.samples, {Direction::h2d, HostMemory::pinned}, SizeSet::mixed).size(), 1u);
  std::string csv = to_csv(f);
  const auto at = csv.find("h2d,pinned,single");
  std::string stream = csv;
  stream.replace(at, 17, "h2d,pinned,stream");
  EXPECT_THROW(parse_transfer_samples(stream, "m.csv"), InputError);
  std::string bidir = csv;
  bidir.replace(at, 10, "bidir,pinned");
  EXPECT_THROW(parse_transfer_samples(bidir, "m.csv"), InputError);
}
