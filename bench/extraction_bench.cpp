// What the extraction job costs per 1,000 messages (model calls, tokens in
// and out) and what share of the items a model returns the quote check
// drops, on ../shared/bench/locomo-dev/ (or the folder given as argv[1]),
// with a scripted fake model on loopback, so the numbers are reproducible.
//
// The fake answers each extraction request with items made from the batch's
// new messages by a fixed rule: from every third message one item whose
// quote is the message's first words; of these, every fourth quote is
// paraphrased (words swapped), every seventh invented, every fifth re-wrapped
// (spaces turned into line breaks, which the check tolerates); every sixth
// item has confidence 0.6 (review). Judge calls answer "unrelated". Usage is
// cilia's own token estimate of the request and the reply. Not a timing
// benchmark; the numbers belong in bench/RESULTS.md.
#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "text/tokens.h"
#include "text/utf8.h"
#include "embed/hash_embedder.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/extraction.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

int items_returned = 0;

// "1:56 pm on 8 May, 2023" -> Unix ms (UTC).
cilia::UnixMs SessionTime(const std::string& text) {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  int hour = 0, minute = 0, day = 1, year = 2023;
  char ampm[3] = {0}, month[16] = {0};
  std::sscanf(text.c_str(), "%d:%d %2s on %d %15[^,], %d", &hour, &minute, ampm, &day, month, &year);
  int m = 1;
  for (int i = 0; i < 12; ++i)
    if (std::string(month) == kMonths[i]) m = i + 1;
  if (std::string(ampm) == "pm" && hour < 12) hour += 12;
  if (std::string(ampm) == "am" && hour == 12) hour = 0;
  return (cilia::DaysSinceEpoch({year, m, day}) * 86400 + hour * 3600 + minute * 60) * 1000;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string Join(const std::vector<std::string>& words, size_t n, const char* sep = " ") {
  std::string out;
  for (size_t i = 0; i < n && i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

// The new (not context) message texts of an extraction request's user message.
std::vector<std::string> NewTexts(const std::string& user) {
  std::vector<std::string> out;
  size_t at = user.find("\n[");
  while (at != std::string::npos) {
    const size_t header_end = user.find('\n', at + 1);
    const size_t next = user.find("\n\n[", header_end);
    const bool context = user.substr(at, header_end - at).find("(context)") != std::string::npos;
    const std::string text = user.substr(header_end + 1, (next == std::string::npos ? user.size() : next) - header_end - 1);
    if (!context) out.push_back(text);
    at = next == std::string::npos ? next : next + 1;
  }
  return out;
}

std::string Answer(const json& request) {
  const std::string system = request["messages"][0]["content"];
  if (system.find("free of duplicates") != std::string::npos) return R"({"judgements": []})";
  json items = json::array();
  const std::vector<std::string> texts = NewTexts(request["messages"].back()["content"]);
  for (size_t i = 0; i < texts.size() && items.size() < 5; i += 3) {
    std::vector<std::string> words = Words(texts[i]);
    if (words.size() < 3) continue;
    const int n = ++items_returned;
    std::string quote = Join(words, 7);
    if (n % 7 == 0) {
      quote = "I never said anything like this at all";
    } else if (n % 4 == 0) {
      std::swap(words[0], words[1]);
      quote = Join(words, 7);
    } else if (n % 5 == 0) {
      quote = Join(words, 7, "\n");
    }
    items.push_back({{"date", "2023-05-08"}, {"content", "Remember: " + Join(words, 12)}, {"quote", quote},
                     {"type", n % 3 == 0 ? "event" : "fact"}, {"fact_key", nullptr},
                     {"confidence", n % 6 == 0 ? 0.6 : 0.9}});
  }
  return json{{"items", items}}.dump();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string data = argc > 1 ? argv[1] : "../shared/bench/locomo-dev";
  httplib::Server fake;
  fake.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
    const json body = json::parse(req.body);
    const std::string reply = Answer(body);
    std::string prompt;
    for (const json& m : body["messages"]) prompt += m["content"].get<std::string>();
    const int in = cilia::text::EstimateTokens(prompt);
    const int out = cilia::text::EstimateTokens(reply);
    res.set_content(json{{"id", "x"}, {"model", "fake"},
                         {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", reply}}},
                                       {"finish_reason", "stop"}}}},
                         {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}}}}
                        .dump(),
                    "application/json");
  });
  setenv("no_proxy", "127.0.0.1", 1);
  const int port = fake.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { fake.listen_after_bind(); });
  while (!fake.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  const fs::path dir = fs::temp_directory_path() / ("cilia-extraction-bench-" + std::to_string(getpid()));
  cilia::FakeClock clock(1'900'000'000'000);
  cilia::Config config;
  cilia::ProviderConfig provider;
  provider.name = "fake";
  provider.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.providers.push_back(provider);
  config.models.extract = "fake/cheap";
  // The whole corpus in one run: no daily budget, the most batches a run may send.
  config.extraction.daily_token_budget = 0;
  config.extraction.max_batches_per_run = 1000;
  int messages = 0;
  {
    cilia::memory::NamespaceOptions options;
    options.name = "bench";
    options.dir = dir.string();
    auto ns = cilia::memory::Namespace::Open(options, std::make_shared<cilia::embed::HashEmbedder>(),
                                             *cilia::TimeZone::Load("UTC"), clock);
    if (!ns.ok()) return std::fprintf(stderr, "%s\n", ns.status().ToString().c_str()), 1;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(data))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file);
      const json conversation = json::parse(in);
      cilia::ingest::IngestConversation c;
      c.conversation_id = "locomo-" + file.stem().string();
      for (int s = 1; conversation.contains("session_" + std::to_string(s)); ++s) {
        const std::string key = "session_" + std::to_string(s);
        const cilia::UnixMs start = SessionTime(conversation.value(key + "_date_time", ""));
        int i = 0;
        for (const json& turn : conversation[key]) {
          c.messages.push_back({turn["dia_id"], "user", turn["speaker"], turn["text"], start + 60'000 * i++});
        }
      }
      messages += static_cast<int>(c.messages.size());
      auto stored = cilia::memory::Archive(**ns).StoreAndIndex(c);
      if (!stored.ok()) return std::fprintf(stderr, "%s\n", stored.status().ToString().c_str()), 1;
    }
    auto outcome = cilia::memory::RunExtraction(**ns, config, clock);
    if (!outcome.ok()) return std::fprintf(stderr, "%s\n", outcome.status().ToString().c_str()), 1;
    const cilia::memory::ExtractionOutcome& o = *outcome;
    const double per = 1000.0 / messages;
    std::printf("messages %d, conversations %d, batches ok %d failed %d\n", messages, o.conversations, o.batches_ok,
                o.batches_failed + o.batches_skipped);
    std::printf("per 1000 messages: model calls %.1f, tokens in %.0f, tokens out %.0f\n", o.model_calls * per,
                o.tokens_in * per, o.tokens_out * per);
    std::printf("items returned %d: added %d, seen again %d, candidates %d, dropped by the quote check %d (%.1f%%)\n",
                items_returned, o.items_added, o.items_seen, o.items_candidates, o.items_dropped,
                100.0 * o.items_dropped / std::max(1, items_returned));
    std::printf("%s\n", o.ToJson().dump().c_str());
  }
  fake.stop();
  serving.join();
  fs::remove_all(dir);
  return 0;
}
