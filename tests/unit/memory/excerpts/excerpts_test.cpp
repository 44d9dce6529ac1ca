#include "memory/excerpts/excerpts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "text/utf8.h"
#include "testing/excerpt_fixture.h"

namespace cilia::memory {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(FindQuote, MatchesAcrossWhitespaceAndReportsCodePointSpans) {
  const std::string said = "我说：我很喜欢  这里的火锅 🍲，真的。";
  auto span = FindQuote(said, "我很喜欢这里的\n火锅 🍲");
  ASSERT_TRUE(span);
  EXPECT_EQ(span->begin, 3u);
  EXPECT_EQ(span->end, 16u);
  EXPECT_EQ(text::SubstrCodePoints(said, span->begin, span->end - span->begin), "我很喜欢  这里的火锅 🍲");
}

TEST(FindQuote, RefusesShortMissingAndEmptyQuotes) {
  EXPECT_FALSE(FindQuote("I moved to Beijing", "Beijing"));  // 7 characters
  EXPECT_TRUE(FindQuote("I moved to Beijing", "to Beijing"));
  EXPECT_FALSE(FindQuote("I moved to Beijing", "moved to Shanghai"));
  EXPECT_FALSE(FindQuote("I moved to Beijing", "   \n\t  "));
  EXPECT_FALSE(FindQuote("", "anything at all"));
  EXPECT_FALSE(FindQuote("I moved to Beijing", "I Moved To Beijing")) << "verbatim: case counts";
}

TEST(ExcerptIds, RoundTrip) {
  EXPECT_EQ(ExcerptPublicId(12), "x_12");
  EXPECT_EQ(ParseExcerptId("x_12"), 12);
  EXPECT_FALSE(ParseExcerptId("c_12"));
  EXPECT_FALSE(ParseExcerptId("x_"));
  EXPECT_FALSE(ParseExcerptId("x_0"));
  EXPECT_FALSE(ParseExcerptId("x_99999999999999999999"));
  EXPECT_EQ(ParseCandidateId(CandidatePublicId(7)), 7);
}

TEST(ParseNewExcerpt, NamesTheFieldThatIsWrong) {
  json good = {{"content", "She lives in Chengdu"}, {"quote", "I live in Chengdu"}, {"conversation_id", "chat"}};
  EXPECT_TRUE(ParseNewExcerpt(good).ok());
  for (auto [field, value, message] : std::vector<std::tuple<std::string, json, std::string>>{
           {"content", "", "content: required"},
           {"quote", 3, "quote: required"},
           {"type", "hobby", "type: one of fact"},
           {"confidence", 1.5, "confidence: a number from 0 to 1"},
           {"valid_from", "yesterday", "valid_from"},
           {"pinned", "yes", "pinned: must be true or false"}}) {
    json body = good;
    body[field] = value;
    auto parsed = ParseNewExcerpt(body);
    ASSERT_FALSE(parsed.ok()) << field;
    EXPECT_THAT(parsed.status().message(), HasSubstr(message));
  }
}

using ExcerptsTest = testing::ExcerptFixture;

TEST_F(ExcerptsTest, CreateChecksTheQuoteAgainstTheMessageAndKeepsItsOwnWords) {
  const store::ExcerptRecord e = Made(Item("Lena loves the hotpot here.", "我很喜欢这里的火锅🍲"));
  EXPECT_EQ(e.quote, "我很喜欢这里的火锅 🍲");
  EXPECT_EQ(e.status, ExcerptStatus::kActive);
  auto history = *Excerpts(t_.ns()).History(e.id);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].action, "create");
  EXPECT_FALSE(history[0].old_values);
  EXPECT_EQ(json::parse(*history[0].new_values)["content"], "Lena loves the hotpot here.");

  auto missing = Excerpts(t_.ns()).Create(Item("Lena hates hotpot.", "I hate hotpot so much"), Author::kAgent);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("quote: not found verbatim in message \"u1\""));
}

TEST_F(ExcerptsTest, WithoutAMessageIdTheNewestMessageHoldingTheQuoteIsTaken) {
  memory::NewExcerpt item = Item("Lena moved to Beijing.", "I moved to Beijing");
  item.message_id.reset();
  const store::ExcerptRecord e = Made(item);
  auto json = *ExcerptJson(t_.ns(), e);
  EXPECT_EQ(json["message_ids"], nlohmann::json::array({"u2"}));
  EXPECT_EQ(json["conversation_id"], "chat");
  EXPECT_EQ(json["said_at"], "2026-05-28T00:42:00+08:00");
}

TEST_F(ExcerptsTest, UpsertByFactKeyUpdatesTheHolderAndAnAgentMayNotOverwriteTheOwner) {
  memory::NewExcerpt first = Item("Lena lives in Chengdu.", "I live in Chengdu");
  first.fact_key = "home_city";
  auto created = Excerpts(t_.ns()).Upsert(first, Author::kOwner);
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->created);
  memory::NewExcerpt second = Item("Lena lives in Beijing.", "I moved to Beijing last week", "u2");
  second.fact_key = "home_city";
  auto refused = Excerpts(t_.ns()).Upsert(second, Author::kAgent);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_THAT(refused.status().message(), HasSubstr("the owner wrote"));
  auto updated = Excerpts(t_.ns()).Upsert(second, Author::kOwner);
  ASSERT_TRUE(updated.ok());
  EXPECT_FALSE(updated->created);
  EXPECT_EQ(updated->excerpt.id, created->excerpt.id);
  EXPECT_EQ(updated->excerpt.content, "Lena lives in Beijing.");
  auto history = *Excerpts(t_.ns()).History(created->excerpt.id);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(json::parse(*history[1].old_values)["content"], "Lena lives in Chengdu.");
  EXPECT_EQ(json::parse(*history[1].new_values)["quote"], "I moved to Beijing last week");
}

TEST_F(ExcerptsTest, SupersedeAndReviveRoundTrip) {
  const auto old = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto now = Made(Item("Lena lives in Beijing.", "I moved to Beijing", "u2"));
  Excerpts x(t_.ns());
  auto superseded = x.Supersede(old.id, now.id, Author::kOwner);
  ASSERT_TRUE(superseded.ok());
  EXPECT_EQ(superseded->status, ExcerptStatus::kSuperseded);
  EXPECT_EQ(superseded->superseded_by, now.id);
  EXPECT_FALSE(t_.ns().excerpts().Meta(old.id)->active);
  EXPECT_EQ(x.Supersede(old.id, now.id, Author::kOwner).status().code(), Code::kConflict) << "already superseded";
  auto revived = x.Revive(old.id, Author::kOwner);
  ASSERT_TRUE(revived.ok());
  EXPECT_EQ(revived->status, ExcerptStatus::kActive);
  EXPECT_FALSE(revived->superseded_by);
  EXPECT_TRUE(t_.ns().excerpts().Meta(old.id)->active);
  auto back = *x.Get(old.id);
  EXPECT_EQ(back->content, old.content);
  EXPECT_EQ(x.Supersede(old.id, old.id, Author::kOwner).status().code(), Code::kInvalidArgument);
}

TEST_F(ExcerptsTest, TheExtractorNeverSupersedesPinnedOrHandWrittenExcerpts) {
  const auto pinned = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto owners = Made(Item("Lena loves the hotpot.", "我很喜欢这里的火锅"), Author::kOwner);
  const auto now = Made(Item("Lena lives in Beijing.", "I moved to Beijing", "u2"));
  Excerpts x(t_.ns());
  ASSERT_TRUE(x.SetPinned(pinned.id, true, Author::kOwner).ok());
  EXPECT_EQ(x.Supersede(pinned.id, now.id, Author::kExtractor).status().code(), Code::kConflict);
  EXPECT_EQ(x.Supersede(owners.id, now.id, Author::kExtractor).status().code(), Code::kConflict);
  EXPECT_EQ(x.Supersede(owners.id, now.id, Author::kAgent).status().code(), Code::kConflict);
  EXPECT_TRUE(x.Supersede(pinned.id, now.id, Author::kOwner).ok()) << "the owner decides explicitly";
}

TEST_F(ExcerptsTest, PatchRecordsOnlyWhatChangedAndDeleteKeepsTheRowInHistory) {
  const auto e = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  Excerpts x(t_.ns());
  ExcerptPatch patch;
  patch.content = "Lena lived in Chengdu.";
  patch.fact_key = std::optional<std::string>("home_city");
  auto patched = x.Patch(e.id, patch, Author::kAgent);
  ASSERT_TRUE(patched.ok());
  auto history = *x.History(e.id);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(json::parse(*history[1].old_values), json({{"content", "Lena lives in Chengdu."}, {"fact_key", nullptr}}));
  EXPECT_EQ(json::parse(*history[1].new_values), json({{"content", "Lena lived in Chengdu."}, {"fact_key", "home_city"}}));
  EXPECT_EQ(x.Patch(e.id, patch, Author::kAgent)->updated_at, patched->updated_at);
  EXPECT_EQ(x.History(e.id)->size(), 2u) << "a patch that changes nothing writes nothing";

  ExcerptPatch bad_quote;
  bad_quote.quote = "I live in Shanghai";
  EXPECT_EQ(x.Patch(e.id, bad_quote, Author::kAgent).status().code(), Code::kInvalidArgument);

  ASSERT_TRUE(x.Delete(e.id, Author::kOwner).ok());
  EXPECT_FALSE(*x.Get(e.id));
  EXPECT_FALSE(t_.ns().excerpts().Meta(e.id));
  history = *x.History(e.id);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[2].action, "delete");
  EXPECT_EQ(json::parse(*history[2].old_values)["content"], "Lena lived in Chengdu.");
  EXPECT_EQ(x.Delete(e.id, Author::kOwner).code(), Code::kNotFound);
}

TEST_F(ExcerptsTest, ForgettingTheQuotedMessageRemovesTheExcerptItsHistoryAndItsIndexEntry) {
  const auto e = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto other = Made(Item("Lena moved to Beijing.", "I moved to Beijing", "u2"));
  ASSERT_TRUE(t_.ns().excerpts().Meta(e.id));
  ASSERT_TRUE(Archive(t_.ns()).ForgetMessage("chat", "u1").ok());
  EXPECT_FALSE(*Excerpts(t_.ns()).Get(e.id));
  EXPECT_TRUE(Excerpts(t_.ns()).History(e.id)->empty());
  EXPECT_FALSE(t_.ns().excerpts().Meta(e.id)) << "the in-memory index lets go at once";
  EXPECT_TRUE(*Excerpts(t_.ns()).Get(other.id));
  EXPECT_TRUE(t_.ns().excerpts().Meta(other.id));
}

TEST_F(ExcerptsTest, TheIndexesComeBackAfterARestart) {
  const auto e = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  t_.Reopen();
  auto meta = t_.ns().excerpts().Meta(e.id);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(meta->active);
  EXPECT_EQ(meta->said_at, 1'779'900'000'000);
  EXPECT_EQ(t_.ns().excerpts().vectors().size(), 1u);
  EXPECT_EQ(t_.ns().excerpts().words().size(), 1u);
}

}  // namespace
}  // namespace cilia::memory
