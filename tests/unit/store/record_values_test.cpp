#include "store/record_values.h"

#include <fmt/format.h>
#include <gmock/gmock.h>

#include <sstream>
#include <vector>

namespace cilia::store {
namespace {

using ::testing::ElementsAreArray;

// Every value's string parses back to it, is what JSON, fmt and streams
// show, and the strings are the stored ones of the contract, in order.
template <typename E>
std::vector<std::string> RoundTrip() {
  std::vector<std::string> names;
  for (size_t i = 0; i < ValueNames<E>::kNames.size(); ++i) {
    const E value = static_cast<E>(i);
    const std::string name(Name(value));
    auto parsed = Parse<E>(name, "field");
    EXPECT_TRUE(parsed.ok()) << name;
    if (parsed.ok()) EXPECT_EQ(*parsed, value) << name;
    EXPECT_EQ(StoredValue<E>(name), value) << name;
    auto filter = ParseFilter<E>(name, "field");
    EXPECT_TRUE(filter.ok() && *filter == value) << name;
    EXPECT_EQ(nlohmann::json(value), nlohmann::json(name));
    EXPECT_EQ(fmt::format("{}", value), name);
    std::ostringstream out;
    out << value;
    EXPECT_EQ(out.str(), name);
    names.push_back(name);
  }
  return names;
}

TEST(RecordValuesTest, EveryValueRoundTripsThroughItsStoredString) {
  EXPECT_THAT(RoundTrip<ExcerptStatus>(), ElementsAreArray({"active", "superseded", "archived"}));
  EXPECT_THAT(RoundTrip<CandidateStatus>(), ElementsAreArray({"pending", "approved", "discarded", "merged"}));
  EXPECT_THAT(RoundTrip<BatchStatus>(), ElementsAreArray({"ok", "pending", "failed"}));
  EXPECT_THAT(RoundTrip<NightlyStatus>(), ElementsAreArray({"ok", "empty", "pending", "failed"}));
  EXPECT_THAT(RoundTrip<RollupKind>(), ElementsAreArray({"week", "month"}));
  EXPECT_THAT(RoundTrip<Author>(), ElementsAreArray({"extractor", "agent", "owner"}));
  EXPECT_THAT(RoundTrip<JobOutcome>(), ElementsAreArray({"running", "ok", "partial", "skipped", "failed"}));
}

TEST(RecordValuesTest, ABadValueIsRefusedNamingTheFieldTheValueAndTheChoices) {
  auto bad = Parse<ExcerptStatus>("Active", "status");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "status: \"Active\" is not one of active, superseded, archived");
  EXPECT_FALSE(Parse<ExcerptStatus>("all", "status").ok()) << "all is a filter, not a status";
  EXPECT_FALSE(Parse<Author>("", "author").ok());
}

TEST(RecordValuesTest, AFilterTakesAllForEveryValue) {
  auto all = ParseFilter<CandidateStatus>("all", "status");
  ASSERT_TRUE(all.ok());
  EXPECT_FALSE(all->has_value());
  EXPECT_EQ(NameOrEmpty(*all), "");
  auto bad = ParseFilter<CandidateStatus>("done", "status");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "status: \"done\" is not one of pending, approved, discarded, merged, all");
  EXPECT_EQ(NameOrEmpty(std::optional(CandidateStatus::kMerged)), "merged");
}

}  // namespace
}  // namespace cilia::store
