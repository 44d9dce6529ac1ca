// Per-turn cost of the two memory look-ups the chat gateway makes on every
// request: finding the stored conversation a history continues
// (FindContinuedConversation) and building the menu (BuildMenu), on a store
// of 100,000 messages (1,000 conversations of 100, one client user).
//
// Data: synthetic English and Chinese chat from a fixed seed, one user
// message in ten a short common reply ("ok", "好的", …) that recurs across
// conversations. The store is built once in a temporary folder (the menu's
// windows are indexed only when a menu benchmark runs) and removed at exit.
// Measured numbers belong in bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "embed/hash_embedder.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_match.h"
#include "memory/recall/menu.h"

namespace {

using cilia::memory::ChatHistoryMessage;

constexpr int kConversations = 1000;
constexpr int kMessagesPerConversation = 100;
constexpr int kProbedConversation = 500;
constexpr cilia::UnixMs kStart = 1'760'000'000'000;
constexpr const char* kClientUser = "owner";

class SyntheticChat {
 public:
  explicit SyntheticChat(uint32_t seed) : rng_(seed) {}

  std::string UserText() {
    static const std::vector<std::string> kCommon = {"ok", "好的", "继续", "thanks", "hi", "嗯"};
    if (Uniform(10) == 0) return kCommon[Uniform(kCommon.size())];
    return Sentence();
  }
  std::string Sentence() {
    static const std::vector<std::string> kWords = {
        "run",  "tea",  "garden", "camera", "train", "market", "kiwi", "river", "book", "coffee", "meeting",
        "rain", "plan", "dinner", "parrot", "code",  "跑步",   "喝茶", "花园",  "相机", "火车",   "市场",
        "下雨", "计划", "晚饭",   "周末",   "朋友",  "成都",   "工作", "电影",  "公园", "猫"};
    std::string out;
    const size_t n = 5 + Uniform(35);
    for (size_t i = 0; i < n; ++i) {
      if (i) out += ' ';
      out += kWords[Uniform(kWords.size())];
      if (Uniform(4) == 0) out += std::to_string(Uniform(1000));
    }
    return out + ".";
  }

 private:
  size_t Uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::mt19937 rng_;
};

// The namespace with its conversations, built on first use.
class Store {
 public:
  static Store& Get() {
    static Store store;
    return store;
  }
  ~Store() {
    ns_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  cilia::memory::Namespace& ns() { return *ns_; }
  const std::vector<ChatHistoryMessage>& probed() const { return probed_; }
  int64_t probed_row() const { return probed_row_; }

  void EnsureIndexed() {
    if (indexed_) return;
    if (!cilia::memory::Archive(*ns_).IndexPending().ok()) std::abort();
    indexed_ = true;
  }

 private:
  Store() : clock_(kStart + 400LL * cilia::kMsPerDay) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cilia-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    dir_ = pattern;
    cilia::memory::NamespaceOptions options;
    options.name = "bench";
    options.dir = dir_ + "/ns/bench";
    auto ns = cilia::memory::Namespace::Open(options, std::make_shared<cilia::embed::HashEmbedder>(),
                                             cilia::TimeZone::Utc(), clock_);
    if (!ns.ok()) std::abort();
    ns_ = *ns;

    SyntheticChat chat(42);
    std::vector<cilia::ingest::IngestConversation> batch;
    cilia::memory::Archive archive(*ns_);
    for (int c = 0; c < kConversations; ++c) {
      cilia::ingest::IngestConversation conversation;
      conversation.conversation_id = "c" + std::to_string(c);
      conversation.source = "gateway";
      for (int i = 0; i < kMessagesPerConversation; ++i) {
        const bool user = i % 2 == 0;
        cilia::ingest::IngestMessage m;
        m.role = user ? "user" : "assistant";
        m.content = user ? chat.UserText() : chat.Sentence();
        m.created_at_ms = kStart + (static_cast<int64_t>(c) * kMessagesPerConversation + i) * 60'000;
        if (c == kProbedConversation) probed_.push_back({m.role, m.content.get<std::string>()});
        conversation.messages.push_back(std::move(m));
      }
      batch.push_back(std::move(conversation));
      if (batch.size() == 100) Flush(archive, batch);
    }
  }

  void Flush(cilia::memory::Archive& archive, std::vector<cilia::ingest::IngestConversation>& batch) {
    auto outcomes = archive.StoreAll(batch);
    if (!outcomes.ok()) std::abort();
    for (size_t i = 0; i < batch.size(); ++i) {
      const int64_t row = (*outcomes)[i].conversation_row;
      if (!cilia::memory::TagConversationUser(*ns_, row, kClientUser).ok()) std::abort();
      if (batch[i].conversation_id == "c" + std::to_string(kProbedConversation)) probed_row_ = row;
    }
    batch.clear();
  }

  std::string dir_;
  cilia::FakeClock clock_;
  std::shared_ptr<cilia::memory::Namespace> ns_;
  std::vector<ChatHistoryMessage> probed_;
  int64_t probed_row_ = 0;
  bool indexed_ = false;
};

std::vector<ChatHistoryMessage> WithNewTurn(std::vector<ChatHistoryMessage> history) {
  history.push_back({"user", "and what about the weekend plan?"});
  return history;
}

void RunFind(benchmark::State& state, const std::vector<ChatHistoryMessage>& history, bool expect_match) {
  Store& store = Store::Get();
  for (auto _ : state) {
    auto match = cilia::memory::FindContinuedConversation(store.ns(), kClientUser, history);
    if (!match.ok() || match->has_value() != expect_match) {
      state.SkipWithError("unexpected result");
      return;
    }
    // A scalar: DoNotOptimize of a class object miscompiles with Debian's benchmark 1.7.
    int matched = match->has_value() ? (*match)->matched : 0;
    benchmark::DoNotOptimize(matched);
  }
}

// The client sends its last 49 messages and the new one.
void BM_FindContinued_Last50(benchmark::State& state) {
  const auto& probed = Store::Get().probed();
  RunFind(state, WithNewTurn({probed.end() - 49, probed.end()}), true);
}

// The client resends the whole conversation (100 messages) and the new one.
void BM_FindContinued_Whole100(benchmark::State& state) { RunFind(state, WithNewTurn(Store::Get().probed()), true); }

// A new chat: 50 messages of which none is stored.
void BM_FindContinued_Unknown50(benchmark::State& state) {
  Store::Get();
  SyntheticChat other(7);
  std::vector<ChatHistoryMessage> history;
  for (int i = 0; i < 50; ++i) history.push_back({i % 2 ? "assistant" : "user", other.Sentence() + " (new)"});
  RunFind(state, history, false);
}

void BM_BuildMenu(benchmark::State& state) {
  Store& store = Store::Get();
  store.EnsureIndexed();
  const auto& probed = store.probed();
  cilia::memory::MenuRequest request;
  request.user_texts = {probed[probed.size() - 2].text, "did we talk about the parrot and the kiwi garden?"};
  request.previous_assistant = probed.back().text;
  request.conversation_row = store.probed_row();
  request.visible_from_seq = kMessagesPerConversation - 50;
  for (auto _ : state) {
    auto menu = cilia::memory::BuildMenu(store.ns(), request);
    if (!menu.ok()) {
      state.SkipWithError(menu.status().ToString().c_str());
      return;
    }
    size_t lines = menu->lines.size();
    benchmark::DoNotOptimize(lines);
  }
}

BENCHMARK(BM_FindContinued_Last50)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindContinued_Whole100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindContinued_Unknown50)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildMenu)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
