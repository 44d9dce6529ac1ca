#include "api/reply.h"

#include <gtest/gtest.h>

namespace cilia::api {
namespace {

using nlohmann::json;

TEST(ReplyTest, JsonInvalidUtf8IsReplacedNotThrown) {
  Reply res = Reply::Json({{"text", std::string("ok \xff end")}});
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.content_type, "application/json");
  EXPECT_EQ(json::parse(res.body)["text"], "ok \xEF\xBF\xBD end");
}

TEST(ReplyTest, JsonKeepsCjkAndEmojiAsUtf8) {
  Reply res = Reply::Json({{"text", "山顶的风很大 🌄"}}, 201);
  EXPECT_EQ(res.status, 201);
  EXPECT_EQ(res.body, "{\"text\":\"山顶的风很大 🌄\"}");
  EXPECT_FALSE(res.stream);
}

TEST(ReplyTest, AStreamHasAProducerAndNoBody) {
  bool ended = false;
  Reply res = Reply::Stream("text/event-stream", [](httplib::DataSink&) { return true; },
                            [&ended](bool) { ended = true; })
                  .WithHeader("Cache-Control", "no-cache");
  EXPECT_TRUE(res.stream);
  EXPECT_TRUE(res.body.empty());
  EXPECT_EQ(res.content_type, "text/event-stream");
  ASSERT_EQ(res.headers.count("Cache-Control"), 1u);
  EXPECT_EQ(res.headers.find("Cache-Control")->second, "no-cache");
  res.on_stream_end(true);
  EXPECT_TRUE(ended);
}

TEST(ReplyTest, TextKeepsItsContentType) {
  Reply res = Reply::Text("# metrics\n", "text/plain; version=0.0.4", 200);
  EXPECT_EQ(res.body, "# metrics\n");
  EXPECT_EQ(res.content_type, "text/plain; version=0.0.4");
}

}  // namespace
}  // namespace cilia::api
