#include "memory/excerpts/own_words.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "store/message_repo.h"
#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class OwnWordsTest : public ::testing::Test {
 protected:
  std::vector<store::MessageRecord> Notes() {
    auto notes = t_.ns().store().Read([](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
      store::MessageRepo repo(db);
      CILIA_ASSIGN_OR_RETURN(auto conversation, repo.FindConversation(kNotesConversation));
      if (!conversation) return std::vector<store::MessageRecord>{};
      return repo.MessagesFrom(conversation->id, 0);
    });
    EXPECT_TRUE(notes.ok());
    return notes.ok() ? *notes : std::vector<store::MessageRecord>{};
  }
  testing::TestNamespace t_;
};

TEST_F(OwnWordsTest, TellsFreeTextFromAQuotedBody) {
  EXPECT_TRUE(IsInOwnWords({{"content", "x"}}));
  EXPECT_TRUE(IsInOwnWords({{"content", "x"}, {"quote", nullptr}}));
  EXPECT_FALSE(IsInOwnWords({{"content", "x"}, {"quote", "y"}}));
  EXPECT_FALSE(IsInOwnWords(json::array()));
}

TEST_F(OwnWordsTest, StoresTheTextAsANoteAndTheExcerptQuotesItWhole) {
  auto upserted = UpsertInOwnWords(t_.ns(), {{"content", "Lena's sister is called Mei."}, {"fact_key", "sister"}},
                                   Author::kOwner, {"owner", "owner"});
  ASSERT_TRUE(upserted.ok()) << upserted.status().ToString();
  EXPECT_TRUE(upserted->created);
  const auto notes = Notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].text, "Lena's sister is called Mei.");
  EXPECT_EQ(notes[0].source, "owner");
  EXPECT_EQ(notes[0].role, "user");
  EXPECT_EQ(upserted->excerpt.source.message_id, notes[0].id);
  EXPECT_EQ(upserted->excerpt.quote, "Lena's sister is called Mei.");

  // The same words again are the same note; the fact_key updates the same excerpt.
  auto again = UpsertInOwnWords(t_.ns(), {{"content", "Lena's sister is called Mei."}, {"fact_key", "sister"}},
                                Author::kOwner, {"owner", "owner"});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(Notes().size(), 1u);
}

TEST_F(OwnWordsTest, ForgettingTheNoteTakesTheExcerpt) {
  auto upserted = UpsertInOwnWords(t_.ns(), {{"content", "Lena runs every Sunday."}}, Author::kAgent, {"mcp", "claude"});
  ASSERT_TRUE(upserted.ok());
  const std::string note_id = *Notes().at(0).caller_id;
  ASSERT_TRUE(Archive(t_.ns()).ForgetMessage(kNotesConversation, note_id).ok());
  auto gone = Excerpts(t_.ns()).Get(upserted->excerpt.id);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

TEST_F(OwnWordsTest, RefusesWhatCannotBeANoteAndLeavesNothingBehind) {
  EXPECT_THAT(UpsertInOwnWords(t_.ns(), {{"content", "short"}}, Author::kAgent, {"mcp", "a"}).status().message(),
              HasSubstr("content: at least 8 characters"));
  EXPECT_THAT(UpsertInOwnWords(t_.ns(), {{"content", "A long enough note."}, {"conversation_id", "chat"}}, Author::kAgent,
                               {"mcp", "a"})
                  .status()
                  .message(),
              HasSubstr("conversation_id: give it only with a quote"));
  EXPECT_THAT(UpsertInOwnWords(t_.ns(), {{"content", "A long enough note."}, {"type", "nonsense"}}, Author::kAgent,
                               {"mcp", "a"})
                  .status()
                  .message(),
              HasSubstr("type:"));
  // The owner's memory under a fact_key may not be overwritten by an agent: the agent's note goes again.
  ASSERT_TRUE(UpsertInOwnWords(t_.ns(), {{"content", "Lena's home is Beijing."}, {"fact_key", "home"}}, Author::kOwner,
                               {"owner", "owner"})
                  .ok());
  auto refused = UpsertInOwnWords(t_.ns(), {{"content", "Lena's home is Chengdu."}, {"fact_key", "home"}}, Author::kAgent,
                                  {"mcp", "a"});
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_EQ(Notes().size(), 1u);
  EXPECT_TRUE(UpsertInOwnWords(t_.ns(), json::array(), Author::kAgent, {"mcp", "a"}).status().code() == Code::kInvalidArgument);
}

}  // namespace
}  // namespace cilia::memory
