#include "sender.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace mcpping {
namespace {

using test::FakeChannel;
using test::records_of;

class SenderTest : public ::testing::Test {
 protected:
  FakeChannel channel;
  Transcript transcript;
  Sender sender{channel, transcript};
};

Json ping(int id) { return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}; }

// Every frame is written, recorded and kept; labelled ones also under their label.
TEST_F(SenderTest, FramesAreKeptAllAndByLabel) {
  const std::string label = "pings";
  ASSERT_TRUE(sender.send({ping(1), ping(2)}, SendOptions{}, &label, 3));
  ASSERT_TRUE(sender.send_one(ping(3), 4));
  EXPECT_EQ(channel.sent.size(), 3u);
  EXPECT_EQ(sender.all_sent().size(), 3u);
  ASSERT_EQ(sender.labelled(label).size(), 2u);
  EXPECT_EQ(sender.labelled(label)[1].frame["id"], 2);
  EXPECT_EQ(sender.labelled(label)[1].requests_before, 3u);
  EXPECT_EQ(sender.all_sent()[2].requests_before, 4u);
  EXPECT_TRUE(sender.labelled("other").empty());
  const auto frames = records_of(transcript.records(), "frame");
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0]["label"], label);
}

// A batch is one message on the wire and one frame per element in what is kept.
TEST_F(SenderTest, ABatchIsOneMessageAndAFramePerElement) {
  const std::string label = "batch";
  ASSERT_TRUE(sender.send({ping(1), ping(2)}, SendOptions{}, &label, 0, /*batch=*/true));
  ASSERT_EQ(channel.sent.size(), 1u);
  EXPECT_TRUE(channel.sent[0].is_array());
  EXPECT_EQ(sender.labelled(label).size(), 2u);
  const auto frames = records_of(transcript.records(), "frame");
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0]["batch"], 2);
}

TEST_F(SenderTest, ClosingTheOutputClosesTheChannelAndIsRemembered) {
  EXPECT_FALSE(sender.output_closed());
  sender.close_output();
  EXPECT_TRUE(sender.output_closed());
  EXPECT_TRUE(channel.output_closed);
}

}  // namespace
}  // namespace mcpping
