#include "app/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace cilia::app {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// argv as main() gets it, from words after "cilia".
Result<CommandLine> Parse(std::initializer_list<std::string> words) {
  std::vector<std::string> storage = {"cilia"};
  storage.insert(storage.end(), words);
  std::vector<char*> argv;
  for (std::string& word : storage) argv.push_back(word.data());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

std::string ErrorOf(std::initializer_list<std::string> words) {
  auto parsed = Parse(words);
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  return parsed.status().message();
}

TEST(CommandLineTest, TakesTheCommandItsArgumentsAndFlags) {
  auto line = Parse({"recall", "support group", "--limit", "5", "--json"});
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_EQ(line->command, "recall");
  EXPECT_THAT(line->positional, ElementsAre("support group"));
  EXPECT_EQ(line->Get("limit"), "5");
  EXPECT_TRUE(line->Has("json"));
  EXPECT_EQ(line->Get("json"), "");
  EXPECT_FALSE(line->Has("exact"));
  EXPECT_EQ(line->Get("after", "2023-01-01"), "2023-01-01");
}

TEST(CommandLineTest, FlagsMayComeAnywhereAndUseEquals) {
  auto line = Parse({"--help"});
  ASSERT_TRUE(line.ok());
  line = Parse({"keys", "create", "--namespace=other", "--scopes", "memory:read", "--data", "/tmp/d"});
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_THAT(line->positional, ElementsAre("create"));
  EXPECT_EQ(line->Get("namespace"), "other");
  EXPECT_EQ(line->Get("scopes"), "memory:read");
  EXPECT_EQ(line->Get("data"), "/tmp/d");
  line = Parse({"keys", "create", "--scopes=chat", "--features", "memory=off,recall_tool=on"});
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_EQ(line->Get("features"), "memory=off,recall_tool=on");
  line = Parse({"recall", "--data", "d", "上周三", "去了哪里"});
  ASSERT_TRUE(line.ok());
  EXPECT_THAT(line->positional, ElementsAre("上周三", "去了哪里"));
  line = Parse({"serve", "--listen=127.0.0.1:0", "--config", "a=b.toml"});
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(line->Get("listen"), "127.0.0.1:0");
  EXPECT_EQ(line->Get("config"), "a=b.toml");
}

TEST(CommandLineTest, AValueMayBeEmptyOrStartWithOneDash) {
  auto line = Parse({"recall", "x", "--before=", "--now", "-1"});
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_TRUE(line->Has("before"));
  EXPECT_EQ(line->Get("before", "fallback"), "");
  EXPECT_EQ(line->Get("now"), "-1");
}

TEST(CommandLineTest, DoubleDashEndsTheFlags) {
  auto line = Parse({"recall", "--exact", "--", "--json is part of the query"});
  ASSERT_TRUE(line.ok());
  EXPECT_TRUE(line->Has("exact"));
  EXPECT_FALSE(line->Has("json"));
  EXPECT_THAT(line->positional, ElementsAre("--json is part of the query"));
}

TEST(CommandLineTest, TheLastOfARepeatedFlagWins) {
  auto line = Parse({"recall", "x", "--limit", "1", "--limit", "2"});
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(line->Get("limit"), "2");
}

TEST(CommandLineTest, NoCommandOrAnUnknownOneIsAnError) {
  EXPECT_EQ(ErrorOf({}), "no command given");
  EXPECT_EQ(ErrorOf({"srve"}), "unknown command \"srve\"");
  EXPECT_EQ(ErrorOf({"--data", "x"}), "unknown command \"--data\"");
}

TEST(CommandLineTest, AnUnknownFlagIsNamedWithItsCommand) {
  EXPECT_EQ(ErrorOf({"recall", "x", "--limt", "3"}), "unknown flag --limt for cilia recall");
  EXPECT_EQ(ErrorOf({"serve", "--namespace", "x"}), "unknown flag --namespace for cilia serve");
  EXPECT_EQ(ErrorOf({"version", "--json"}), "unknown flag --json for cilia version");
  EXPECT_EQ(ErrorOf({"ingest", "f.jsonl", "-f", "jsonl"}), "unknown flag -f for cilia ingest");
}

TEST(CommandLineTest, ValueFlagsNeedAValueAndSwitchesTakeNone) {
  EXPECT_EQ(ErrorOf({"recall", "x", "--limit"}), "--limit needs a value (N)");
  EXPECT_EQ(ErrorOf({"recall", "x", "--limit", "--json"}), "--limit needs a value (N)");
  EXPECT_EQ(ErrorOf({"recall", "x", "--json=yes"}), "--json takes no value");
}

TEST(CommandLineTest, PositionalArgumentsAreCounted) {
  EXPECT_THAT(ErrorOf({"ingest"}), HasSubstr("missing arguments; usage: cilia ingest FILE"));
  EXPECT_THAT(ErrorOf({"serve", "now"}), HasSubstr("unexpected argument \"now\""));
  EXPECT_THAT(ErrorOf({"jobs", "run"}), HasSubstr("usage: cilia jobs run extract|nightly|retention|reindex"));
  EXPECT_THAT(ErrorOf({"import", "a.jsonl", "b.jsonl"}), HasSubstr("unexpected argument \"b.jsonl\""));
  EXPECT_TRUE(Parse({"jobs", "run", "nightly"}).ok());
  auto backfill = Parse({"jobs", "run", "extract", "--backfill"});
  ASSERT_TRUE(backfill.ok());
  EXPECT_TRUE(backfill->Has("backfill"));
  EXPECT_TRUE(Parse({"keys", "revoke", "key_abc"}).ok());
}

TEST(CommandLineTest, HelpIsACommandAndAFlag) {
  for (auto words : {std::initializer_list<std::string>{"help"}, {"--help"}, {"-h"}}) {
    auto line = Parse(words);
    ASSERT_TRUE(line.ok());
    EXPECT_EQ(line->command, kHelpCommand);
    EXPECT_THAT(line->positional, IsEmpty());
  }
  auto topic = Parse({"help", "recall"});
  ASSERT_TRUE(topic.ok());
  EXPECT_THAT(topic->positional, ElementsAre("recall"));
  // --help needs no positional arguments, even where the command does.
  auto ingest_help = Parse({"ingest", "-h"});
  ASSERT_TRUE(ingest_help.ok()) << ingest_help.status().ToString();
  EXPECT_TRUE(ingest_help->Has("help"));
}

TEST(UsageTextTest, ListsEveryCommand) {
  std::string usage = UsageText();
  for (const char* command :
       {"serve", "ingest", "recall", "search", "export", "import", "jobs", "keys", "doctor", "version", "migrate"}) {
    EXPECT_THAT(usage, HasSubstr(std::string("cilia ") + command)) << command;
  }
}

TEST(UsageTextTest, ACommandsUsageListsItsFlags) {
  std::string usage = CommandUsageText("recall");
  EXPECT_THAT(usage, HasSubstr("usage: cilia recall QUERY"));
  EXPECT_THAT(usage, HasSubstr("--limit N"));
  EXPECT_THAT(usage, HasSubstr("--exact"));
  EXPECT_EQ(CommandUsageText("nonsense"), UsageText());
  std::string migrate = CommandUsageText("migrate");
  EXPECT_THAT(migrate, HasSubstr("usage: cilia migrate --from SRC --to DST"));
  EXPECT_THAT(migrate, HasSubstr("sqlite:DIR"));
}

TEST(UsageTextTest, SearchTakesRecallsFlags) {
  auto line = Parse({"search", "半马", "--limit", "3", "--after", "2026-05-01", "--json"});
  ASSERT_TRUE(line.ok()) << line.status().ToString();
  EXPECT_EQ(line->command, "search");
  EXPECT_THAT(CommandUsageText("search"), HasSubstr("usage: cilia search QUERY"));
  EXPECT_THAT(CommandUsageText("search"), HasSubstr("no access counts"));
}

// What main() prints after the parse error: the usage of the command that
// was meant, with its flags, not the overview of every command.
std::string UsageAfterError(std::initializer_list<std::string> words) {
  std::vector<std::string> storage = {"cilia"};
  storage.insert(storage.end(), words);
  std::vector<char*> argv;
  for (std::string& word : storage) argv.push_back(word.data());
  EXPECT_FALSE(ParseCommandLine(static_cast<int>(argv.size()), argv.data()).ok());
  return UsageForArguments(static_cast<int>(argv.size()), argv.data());
}

TEST(UsageTextTest, AnArgumentErrorShowsThatCommandsUsage) {
  EXPECT_EQ(UsageAfterError({"ingest"}), CommandUsageText("ingest"));
  EXPECT_EQ(UsageAfterError({"search", "x", "--limt", "3"}), CommandUsageText("search"));
  EXPECT_EQ(UsageAfterError({"keys", "create", "--scopes"}), CommandUsageText("keys"));
  EXPECT_EQ(UsageAfterError({"jobs", "run"}), CommandUsageText("jobs"));
  EXPECT_THAT(UsageAfterError({"export", "extra"}), HasSubstr("usage: cilia export [flags]"));
  EXPECT_EQ(UsageAfterError({"recal", "x"}), UsageText()) << "an unknown command gets the overview";
  EXPECT_EQ(UsageAfterError({}), UsageText());
}

}  // namespace
}  // namespace cilia::app
