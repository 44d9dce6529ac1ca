#include "memory/excerpts/extraction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/codec.h"
#include "core/log.h"
#include "core/metrics_sink.h"
#include "text/harness.h"
#include "text/utf8.h"
#include "llm/chat_format.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/candidates.h"
#include "memory/excerpts/excerpt_index.h"
#include "memory/excerpts/excerpts.h"
#include "memory/archive/windowing.h"
#include "store/digest_repo.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "text/tokens.h"

namespace cilia::memory {

using nlohmann::json;

namespace {

// A batch that failed this many runs is marked failed and skipped.
constexpr int kMaxBatchAttempts = 3;
// Old excerpts compared with one new item, at most.
constexpr size_t kMaxComparisons = 5;
constexpr int kExtractMaxTokens = 1500;
constexpr int kJudgeMaxTokens = 600;
// Chat formats spend a few tokens on each message's role and separators.
constexpr int64_t kTokensPerMessage = 4;
// upkeep_state: the highest message id a backfill approved; imported
// messages up to it are extracted like live ones.
constexpr const char* kBackfillThrough = "extract_backfill_through";
constexpr const char* kImportSource = "import";

constexpr const char* kInstructions = R"(You excerpt memories from a conversation; you do not create them.

Read the messages at the end and pick at most {max_items} things worth remembering about the people in it for a long time: facts about them, their preferences, events in their lives, plans, relationships, rules they set, projects. Leave out small talk, greetings, one-off tasks, and anything the messages do not say.

For each item give:
- "content": one short sentence of what to remember, close to the words of the messages, adding nothing they do not say. {language}
- "quote": the evidence, copied exactly, character for character, from the text of ONE message below: at least 8 and at most about 40 characters. Never copy from a header line in square brackets.
- "date": the day it was said or happened, YYYY-MM-DD, from the message headers.
- "type": one of fact, preference, event, plan, relationship, rule, project, other.
- "fact_key": for a fact that can change over time (where someone lives, their job, a standing preference), a short stable lower-case English key such as "home_city" or "favourite_drink"; otherwise null.
- "confidence": from 0 to 1, how sure you are that the messages state it and that it is worth keeping.

Messages marked (context) were excerpted before: take no item from them.
Better no item than a doubtful one; {{"items": []}} is a good answer.

Answer with one JSON object and nothing else:
{{"items": [{{"date": "YYYY-MM-DD", "content": "...", "quote": "...", "type": "fact", "fact_key": null, "confidence": 0.9}}]}})";

constexpr const char* kJudgeInstructions = R"(You keep a memory store free of duplicates and out-of-date facts.

Below are new memory items, each followed by memories already stored that may be about the same thing. For every stored memory listed under an item, say how the item relates to it:
- "same": it says the same thing, perhaps in other words; the item adds nothing new.
- "update": it is about the same thing, but the item changes or contradicts it (someone moved, changed their mind, a plan was carried out or dropped); the item replaces it.
- "unrelated": it is about something else.

Answer with one JSON object and nothing else:
{"judgements": [{"item": 1, "memory": "x_12", "relation": "same"}]})";

struct CallResult {
  std::string text;
  llm::Usage usage;
};

// One call to the cheap model with an OpenAI-shaped body.
class Model {
 public:
  Model(llm::Route route, ExtractionOutcome& outcome, WorkProgress* progress, const Clock& clock)
      : route_(std::move(route)), outcome_(outcome), progress_(progress), clock_(clock) {}

  Result<CallResult> Ask(json body, int max_tokens) {
    body["max_tokens"] = max_tokens;
    body["temperature"] = 0;
    ++outcome_.model_calls;
    Result<llm::AssistantTurn> turn = llm::CompleteOpenAIShaped(route_, std::move(body));
    if (!turn.ok()) {
      ReportExtractionCall({metric_model_, false, 0, 0});
      return turn.status();
    }
    outcome_.tokens_in += turn->usage.input;
    outcome_.tokens_out += turn->usage.output;
    if (progress_) progress_->AddTokens(turn->usage.input + turn->usage.output, clock_.Now());
    ReportExtractionCall({metric_model_, true, turn->usage.input, turn->usage.output});
    return CallResult{turn->text, turn->usage};
  }

 private:
  llm::Route route_;
  std::string metric_model_ = (route_.provider ? route_.provider->name + "/" : "") + route_.model;
  ExtractionOutcome& outcome_;
  WorkProgress* progress_;
  const Clock& clock_;
};

using MessagePtrs = std::vector<const store::MessageRecord*>;

// The batch the job sends next: the last `overlap` of the messages before the
// cursor as context, then as many of the new ones as fit.
std::vector<BatchMessage> NextBatch(const MessagePtrs& before, const MessagePtrs& fresh, const ExtractionConfig& x) {
  const size_t context = std::min(before.size(), static_cast<size_t>(x.overlap));
  std::vector<BatchMessage> batch;
  for (size_t i = before.size() - context; i < before.size(); ++i) batch.push_back({before[i], true});
  const size_t room = static_cast<size_t>(x.batch_size) - context;
  for (size_t i = 0; i < fresh.size() && i < room; ++i) batch.push_back({fresh[i], false});
  return batch;
}

// Whether a new message of the batch has text. New messages without (a
// tool loop's calls and results) say nothing to excerpt: such a batch is
// read past without asking the model.
bool SaysSomething(const std::vector<BatchMessage>& batch) {
  return std::any_of(batch.begin(), batch.end(),
                     [](const BatchMessage& b) { return !b.context && !b.message->text.empty(); });
}

// Context before the cursor: seqs may have gaps after a forget, so a few
// more than `overlap` are read.
int64_t ContextReach(const ExtractionConfig& x) { return 4 * int64_t{x.overlap} + 4; }

std::string TitleOf(const store::ConversationRecord& conv) { return conv.title.empty() ? conv.external_id : conv.title; }

// Which imported messages wait for the owner's word: all of them unless
// extraction.backfill is on, except those a backfill run approved.
class BackfillGate {
 public:
  BackfillGate(bool all, int64_t approved_through) : all_(all), approved_through_(approved_through) {}
  static Result<BackfillGate> Read(Namespace& ns, const ExtractionConfig& x) {
    CILIA_ASSIGN_OR_RETURN(auto through, ns.store().Read([](store::Database& db) {
      return store::DigestRepo(db).GetState(kBackfillThrough);
    }));
    int64_t approved = 0;
    if (through) approved = std::strtoll(through->c_str(), nullptr, 10);
    return BackfillGate(x.backfill, approved);
  }
  bool Waits(const store::MessageRecord& m) const {
    return !all_ && m.source == kImportSource && m.id > approved_through_;
  }

 private:
  bool all_;
  int64_t approved_through_;
};

// The leading messages of `fresh` that wait alike (all for the owner's word,
// or none): a batch never mixes the two.
size_t LeadingAlike(const MessagePtrs& fresh, const BackfillGate& gate) {
  if (fresh.empty()) return 0;
  const bool waits = gate.Waits(*fresh.front());
  size_t n = 1;
  while (n < fresh.size() && gate.Waits(*fresh[n]) == waits) ++n;
  return n;
}


std::string StringField(const json& item, const char* field) {
  auto it = item.find(field);
  return it != item.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Trimmed(std::string s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

// A kept item: the quote found in a new message of the batch.
struct Kept {
  ExtractedItem item;
  Excerpts::Draft draft;
  std::vector<store::ExcerptRecord> compare;  // active excerpts it may repeat or update
  enum class Relation { kNew, kSame, kUpdate, kUnjudged } relation = Relation::kNew;
  std::vector<int64_t> targets;  // the excerpts it repeats (first) or updates
};

// The quote in the owner's words of `text` (the model saw no others): a quote
// that harness text holds too is placed where the owner said it.
std::optional<QuoteSpan> FindOwnQuote(const std::string& text, const std::string& quote) {
  const std::u32string cps = text::DecodeUtf8(text);
  for (const text::Span& own : text::OwnWordSpans(cps)) {
    const std::optional<QuoteSpan> found =
        FindQuote(text::EncodeUtf8(std::u32string_view(cps).substr(own.begin, own.size())), quote);
    if (found) return QuoteSpan{own.begin + found->begin, own.begin + found->end};
  }
  return std::nullopt;
}

class Run {
 public:
  Run(Namespace& ns, const Config& config, const Clock& clock, llm::Route route, const ExtractionRunOptions& options,
      BackfillGate gate)
      : ns_(ns),
        x_(config.extraction),
        clock_(clock),
        options_(options),
        gate_(gate),
        model_(std::move(route), outcome_, options.progress, clock) {
    outcome_.daily_token_budget = x_.daily_token_budget;
    outcome_.spent_today = options.spent_today;
    outcome_.backfill = options.backfill;
  }

  Result<ExtractionOutcome> Go() {
    CILIA_ASSIGN_OR_RETURN(auto conversations, ns_.store().Read([](store::Database& db) {
      return store::MessageRepo(db).AllConversations();
    }));
    std::sort(conversations.begin(), conversations.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    CILIA_ASSIGN_OR_RETURN(std::vector<Pending> pending, Survey(conversations));
    for (const Pending& p : pending) {
      CILIA_RETURN_IF_ERROR(Conversation(p.conv, p.through));
      if (!outcome_.upstream_error.empty() || !outcome_.stopped.empty()) break;
    }
    outcome_.spent_today = options_.spent_today + outcome_.tokens_in + outcome_.tokens_out;
    return outcome_;
  }

 private:
  using Messages = std::vector<store::MessageRecord>;

  // A conversation with messages the job has not read, from `through`.
  struct Pending {
    const store::ConversationRecord& conv;
    int64_t through;
  };

  bool Idle(const store::ConversationRecord& conv) const {
    return clock_.Now() - conv.updated_at >= int64_t{x_.idle_minutes} * 60'000;
  }

  // The conversations with messages to read, and how many of those there
  // are for the progress count; imported history that waits is counted
  // apart, and its conversations left out.
  Result<std::vector<Pending>> Survey(const std::vector<store::ConversationRecord>& conversations) {
    std::vector<Pending> out;
    int64_t total = 0;
    for (const store::ConversationRecord& conv : conversations) {
      CILIA_ASSIGN_OR_RETURN(auto cursor, ns_.store().Read([&](store::Database& db) {
        return store::ExcerptRepo(db).GetCursor(conv.id);
      }));
      const int64_t through = cursor ? cursor->through_seq : 0;
      if (conv.next_seq <= through) continue;  // read to the end
      CILIA_ASSIGN_OR_RETURN(auto first, ns_.store().Read([&](store::Database& db) {
        return store::MessageRepo(db).MessagesFrom(conv.id, through, 1);
      }));
      if (first.empty()) continue;
      CILIA_ASSIGN_OR_RETURN(const int64_t count, ns_.store().Read([&](store::Database& db) {
        return store::MessageRepo(db).CountMessagesFrom(conv.id, through);
      }));
      if (gate_.Waits(first.front())) {
        ++outcome_.waiting_conversations;
        outcome_.waiting_messages += count;
        continue;
      }
      if (count < x_.min_messages && !Idle(conv)) continue;
      total += count;
      out.push_back({conv, through});
    }
    if (options_.progress) options_.progress->Begin(total, "messages", clock_.Now());
    return out;
  }

  Status Conversation(const store::ConversationRecord& conv, int64_t through) {
    bool counted = false;
    while (true) {
      // Context before the cursor and the new messages from it.
      CILIA_ASSIGN_OR_RETURN(Messages messages, ns_.store().Read([&](store::Database& db) {
        return store::MessageRepo(db).MessagesFrom(conv.id, std::max<int64_t>(0, through - ContextReach(x_)),
                                                   static_cast<int>(ContextReach(x_)) + x_.batch_size);
      }));
      MessagePtrs before, fresh;
      for (const auto& m : messages) (m.seq < through ? before : fresh).push_back(&m);
      // Imported history after live messages waits for the owner's word.
      if (!fresh.empty() && gate_.Waits(*fresh.front())) {
        CILIA_ASSIGN_OR_RETURN(const int64_t waiting, ns_.store().Read([&](store::Database& db) {
          return store::MessageRepo(db).CountMessagesFrom(conv.id, through);
        }));
        ++outcome_.waiting_conversations;
        outcome_.waiting_messages += waiting;
        return Status::Ok();
      }
      fresh.resize(LeadingAlike(fresh, gate_));
      if (fresh.empty()) return Status::Ok();
      if (static_cast<int>(fresh.size()) < x_.min_messages && !Idle(conv)) return Status::Ok();
      if (!counted) {
        ++outcome_.conversations;
        counted = true;
      }

      CILIA_ASSIGN_OR_RETURN(std::optional<int64_t> next, Batch(conv, NextBatch(before, fresh, x_)));
      if (!next) return Status::Ok();  // failed this run, stopped at a limit, or the upstream is away
      through = *next;
      CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
        return store::ExcerptRepo(db).PutCursor({conv.id, through, clock_.Now()});
      }));
      if (options_.progress) {
        const auto done = std::count_if(fresh.begin(), fresh.end(), [&](const auto* m) { return m->seq < through; });
        options_.progress->Advance(done, clock_.Now());
      }
    }
  }

  // Whether the run may send `request`: at most max_batches_per_run batches,
  // and none whose prompt (estimated) would pass what is left of the day's
  // budget. Otherwise says why the run stops.
  bool MaySend(const json& request) {
    if (sent_ >= x_.max_batches_per_run) {
      outcome_.stopped = "max_batches_per_run";
      outcome_.resumes = "next run";
      return false;
    }
    if (x_.daily_token_budget > 0) {
      const int64_t spent = options_.spent_today + outcome_.tokens_in + outcome_.tokens_out;
      if (spent + EstimateRequestTokens(request) > x_.daily_token_budget) {
        outcome_.stopped = "daily_token_budget";
        outcome_.resumes = AddDays(ns_.tz().LocalDate(clock_.Now()), 1).ToString();
        return false;
      }
    }
    ++sent_;
    return true;
  }

  void Checkpoint() {
    if (!options_.checkpoint) return;
    outcome_.spent_today = options_.spent_today + outcome_.tokens_in + outcome_.tokens_out;
    options_.checkpoint(outcome_);
  }

  static std::string HashOf(const json& request) { return Sha256Hex(request["messages"].dump()); }

  // Tries one batch. The seq the cursor moves to, or nullopt when it stays.
  Result<std::optional<int64_t>> Batch(const store::ConversationRecord& conv, std::vector<BatchMessage> batch) {
    const int64_t end_seq = batch.back().message->seq + 1;
    if (!SaysSomething(batch)) return std::optional<int64_t>(end_seq);  // read past, nothing to ask
    const int64_t first_seq = std::find_if(batch.begin(), batch.end(), [](const BatchMessage& b) {
                                return !b.context;
                              })->message->seq;
    const std::string title = TitleOf(conv);
    json request = ExtractionRequest(batch, title, ns_.tz(), x_.max_items);
    const std::string hash = HashOf(request);
    CILIA_ASSIGN_OR_RETURN(bool done, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).SucceededBefore(hash);
    }));
    if (done) {
      ++outcome_.batches_cached;
      return std::optional<int64_t>(end_seq);
    }
    if (!MaySend(request)) return std::optional<int64_t>();
    struct CheckpointAfter {
      Run& run;
      ~CheckpointAfter() { run.Checkpoint(); }
    } checkpoint_after{*this};
    CILIA_ASSIGN_OR_RETURN(auto record, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).GetBatch(conv.id, first_seq);
    }));
    store::ExtractionBatch b = record.value_or(store::ExtractionBatch{});
    if (!record) b.created_at = clock_.Now();
    b.conversation_row = conv.id;
    b.first_seq = first_seq;

    auto reply = Extract(request);
    if (!reply.ok()) return UpstreamDown(reply.status());
    std::optional<std::vector<ExtractedItem>> items = *reply;
    if (!items) {
      // The reply had no items object: once more at once, with half the new messages.
      const size_t context = batch.size() - static_cast<size_t>(std::count_if(batch.begin(), batch.end(), [](const auto& m) {
                               return !m.context;
                             }));
      const size_t fresh = batch.size() - context;
      if (fresh > 1) {
        batch.resize(context + (fresh + 1) / 2);
        request = ExtractionRequest(batch, title, ns_.tz(), x_.max_items);
        auto half = Extract(request);
        if (!half.ok()) return UpstreamDown(half.status());
        items = *half;
      }
    }
    if (!items) {
      b.end_seq = end_seq;
      b.content_hash = hash;
      b.attempts += 1;
      b.status = b.attempts >= kMaxBatchAttempts ? store::BatchStatus::kFailed : store::BatchStatus::kPending;
      b.error = "the model's reply had no {\"items\": [...]} object, also for half the batch";
      b.updated_at = clock_.Now();
      CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) { return store::ExcerptRepo(db).PutBatch(b); }));
      const std::string where = fmt::format("conversation \"{}\" messages from seq {}", conv.external_id, first_seq);
      if (b.status == store::BatchStatus::kFailed) {
        ++outcome_.batches_skipped;
        outcome_.errors.push_back(fmt::format("{}: failed {} runs, marked failed and skipped: {}", where, b.attempts, b.error));
        return std::optional<int64_t>(end_seq);
      }
      ++outcome_.batches_failed;
      outcome_.errors.push_back(fmt::format("{}: failed (run {} of {}), tried again next run: {}", where, b.attempts,
                                            kMaxBatchAttempts, b.error));
      return std::optional<int64_t>();
    }
    CILIA_ASSIGN_OR_RETURN(int kept, Apply(batch, *items));
    b.end_seq = batch.back().message->seq + 1;
    b.content_hash = HashOf(request);
    b.attempts += 1;
    b.status = store::BatchStatus::kOk;
    b.error.clear();
    b.items = kept;
    b.updated_at = clock_.Now();
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) { return store::ExcerptRepo(db).PutBatch(b); }));
    ++outcome_.batches_ok;
    return std::optional<int64_t>(b.end_seq);
  }

  Result<std::optional<int64_t>> UpstreamDown(const Status& status) {
    outcome_.upstream_error = status.ToString();
    return std::optional<int64_t>();
  }

  // The items of the model's reply; nullopt when it had no items object.
  // An error only when the model could not be asked.
  Result<std::optional<std::vector<ExtractedItem>>> Extract(const json& request) {
    CILIA_ASSIGN_OR_RETURN(CallResult reply, model_.Ask(request, kExtractMaxTokens));
    auto items = ParseExtractionReply(reply.text, x_.max_items);
    if (!items.ok()) return std::optional<std::vector<ExtractedItem>>();
    return std::optional<std::vector<ExtractedItem>>(std::move(*items));
  }

  // Checks the quotes, meets the old excerpts, and stores. Returns how many
  // items were kept.
  Result<int> Apply(const std::vector<BatchMessage>& batch, const std::vector<ExtractedItem>& items) {
    std::vector<Kept> kept;
    std::set<std::string> keys_in_batch;
    for (const ExtractedItem& item : items) {
      std::optional<Kept> k = CheckItem(batch, item);
      if (!k) {
        ++outcome_.items_dropped;
        continue;
      }
      if (!keys_in_batch.insert(ExcerptContentKey(item.content)).second) {  // the same item twice in one reply
        ++outcome_.items_seen;
        continue;
      }
      kept.push_back(std::move(*k));
    }
    for (Kept& k : kept) CILIA_RETURN_IF_ERROR(FindComparisons(k));
    CILIA_RETURN_IF_ERROR(Judge(kept));
    for (Kept& k : kept) CILIA_RETURN_IF_ERROR(Store(k));
    return static_cast<int>(kept.size());
  }

  std::optional<Kept> CheckItem(const std::vector<BatchMessage>& batch, const ExtractedItem& item) {
    for (const BatchMessage& b : batch) {
      if (b.context) continue;
      const store::MessageRecord& m = *b.message;
      auto span = FindOwnQuote(m.text, item.quote);
      if (!span) continue;
      Kept k;
      k.item = item;
      k.draft.content = item.content;
      k.draft.quote.source = {m.conversation_row, m.id, static_cast<int64_t>(span->begin), static_cast<int64_t>(span->end)};
      k.draft.quote.quote = text::SubstrCodePoints(m.text, span->begin, span->end - span->begin);
      k.draft.quote.said_at = m.created_at;
      k.draft.type = item.type;
      k.draft.fact_key = item.fact_key;
      k.draft.confidence = item.confidence;
      return k;
    }
    return std::nullopt;
  }

  // The active excerpts sharing the item's fact_key, and those near it in
  // vector space; a mechanical "same" (equal content, or the same quote)
  // needs no model.
  Status FindComparisons(Kept& k) {
    std::vector<int64_t> ids;
    if (k.draft.fact_key) {
      CILIA_ASSIGN_OR_RETURN(auto holders, ns_.store().Read([&](store::Database& db) {
        return store::ExcerptRepo(db).ActiveWithFactKey(*k.draft.fact_key);
      }));
      for (const auto& h : holders) ids.push_back(h.id);
    }
    store::ExcerptRecord probe;
    probe.content = k.draft.content;
    probe.quote = k.draft.quote.quote;
    auto vec = ns_.embedder().Embed({ExcerptEmbeddingText(probe)}, embed::Purpose::kPassage);
    if (vec.ok() && !vec->empty()) {
      const ExcerptIndex& index = ns_.excerpts();
      auto near = index.vectors().Search(vec->front(), kMaxComparisons, [&index](int64_t id) {
        auto meta = index.Meta(id);
        return meta && meta->active;
      });
      for (const auto& [id, similarity] : near) {
        if (similarity >= x_.similarity_threshold && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
      }
    }
    if (ids.size() > kMaxComparisons) ids.resize(kMaxComparisons);
    CILIA_ASSIGN_OR_RETURN(k.compare, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).GetMany(ids);
    }));
    std::erase_if(k.compare, [](const store::ExcerptRecord& e) { return e.status != ExcerptStatus::kActive; });
    const std::string key = ExcerptContentKey(k.draft.content);
    for (const auto& e : k.compare) {
      if (ExcerptContentKey(e.content) == key || (e.source.message_id == k.draft.quote.source.message_id &&
                                           e.source.span_start == k.draft.quote.source.span_start)) {
        k.relation = Kept::Relation::kSame;
        k.targets = {e.id};
        break;
      }
    }
    return Status::Ok();
  }

  // One call for every item that has old excerpts to compare with.
  Status Judge(std::vector<Kept>& kept) {
    std::string listing;
    std::map<int, Kept*> asked;
    for (size_t i = 0; i < kept.size(); ++i) {
      Kept& k = kept[i];
      if (k.compare.empty() || k.relation == Kept::Relation::kSame) continue;
      const int number = static_cast<int>(asked.size()) + 1;
      asked[number] = &k;
      listing += fmt::format("New item {}: {} (said {})\n", number, k.draft.content,
                             ns_.tz().FormatLocal(k.draft.quote.said_at, false));
      for (const auto& e : k.compare) {
        listing += fmt::format("  {}: {} (written {})\n", ExcerptPublicId(e.id), e.content,
                               ns_.tz().FormatLocal(e.created_at, false));
      }
      listing += '\n';
    }
    if (asked.empty()) return Status::Ok();
    for (auto& [number, k] : asked) k->relation = Kept::Relation::kUnjudged;
    json request = {{"messages", json::array({{{"role", "system"}, {"content", kJudgeInstructions}},
                                              {{"role", "user"}, {"content", listing}}})}};
    auto reply = model_.Ask(request, kJudgeMaxTokens);
    if (!reply.ok()) return Status::Ok();  // unjudged items wait for review
    auto object = llm::JsonObjectIn(reply->text);
    if (!object || !object->contains("judgements") || !(*object)["judgements"].is_array()) return Status::Ok();
    for (auto& [number, k] : asked) k->relation = Kept::Relation::kNew;  // unless a verdict says otherwise
    std::map<Kept*, std::pair<std::vector<int64_t>, std::vector<int64_t>>> verdicts;  // same, update
    for (const json& j : (*object)["judgements"]) {
      if (!j.is_object() || !j.contains("item") || !j["item"].is_number_integer()) continue;
      auto it = asked.find(j["item"].get<int>());
      auto id = ParseExcerptId(StringField(j, "memory"));
      if (it == asked.end() || !id) continue;
      Kept* k = it->second;
      if (std::none_of(k->compare.begin(), k->compare.end(), [&](const auto& e) { return e.id == *id; })) continue;
      const std::string relation = StringField(j, "relation");
      if (relation == "same") verdicts[k].first.push_back(*id);
      if (relation == "update") verdicts[k].second.push_back(*id);
    }
    for (auto& [k, v] : verdicts) {
      if (!v.first.empty()) {
        k->relation = Kept::Relation::kSame;
        k->targets = v.first;
      } else if (!v.second.empty()) {
        k->relation = Kept::Relation::kUpdate;
        k->targets = v.second;
      }
    }
    return Status::Ok();
  }

  Status Store(Kept& k) {
    Excerpts excerpts(ns_);
    Candidates candidates(ns_);
    auto queue = [&](const std::string& reason, std::optional<int64_t> target) -> Status {
      CILIA_RETURN_IF_ERROR(candidates.Queue(k.draft, k.item.date, reason, target).status());
      ++outcome_.items_candidates;
      return Status::Ok();
    };
    switch (k.relation) {
      case Kept::Relation::kSame:
        CILIA_RETURN_IF_ERROR(excerpts.SeenAgain(k.targets.front(), k.draft.confidence, Author::kExtractor).status());
        ++outcome_.items_seen;
        return Status::Ok();
      case Kept::Relation::kUnjudged:
        return queue("unjudged", k.compare.front().id);
      case Kept::Relation::kUpdate: {
        if (k.draft.confidence < x_.review_threshold) return queue("low_confidence", k.targets.front());
        for (int64_t target : k.targets) {
          auto old = std::find_if(k.compare.begin(), k.compare.end(), [&](const auto& e) { return e.id == target; });
          if (old->pinned || old->author != Author::kExtractor) return queue("protected_target", target);
        }
        CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord created, excerpts.CreateChecked(k.draft, Author::kExtractor));
        ++outcome_.items_added;
        for (int64_t target : k.targets) {
          auto superseded = excerpts.Supersede(target, created.id, Author::kExtractor);
          if (superseded.ok()) ++outcome_.items_superseded;
          else if (superseded.status().code() != Code::kConflict) return superseded.status();
        }
        return Status::Ok();
      }
      case Kept::Relation::kNew:
        if (k.draft.confidence < x_.review_threshold) return queue("low_confidence", std::nullopt);
        CILIA_RETURN_IF_ERROR(excerpts.CreateChecked(k.draft, Author::kExtractor).status());
        ++outcome_.items_added;
        return Status::Ok();
    }
    return Status::Ok();
  }

  Namespace& ns_;
  const ExtractionConfig& x_;
  const Clock& clock_;
  const ExtractionRunOptions& options_;
  const BackfillGate gate_;
  ExtractionOutcome outcome_;
  Model model_;
  int sent_ = 0;  // batches sent to the model in this run
};

// The batches of one conversation from `through` to its end, each assumed to
// succeed, added to `out`.
Status EstimateConversation(Namespace& ns, const ExtractionConfig& x, const BackfillGate& gate,
                            const store::ConversationRecord& conv, int64_t through, ExtractionEstimate& out) {
  CILIA_ASSIGN_OR_RETURN(std::vector<store::MessageRecord> messages, ns.store().Read([&](store::Database& db) {
    return store::MessageRepo(db).MessagesFrom(conv.id, std::max<int64_t>(0, through - ContextReach(x)));
  }));
  MessagePtrs all;
  for (const auto& m : messages) all.push_back(&m);
  const auto first_fresh = std::find_if(all.begin(), all.end(), [&](const auto* m) { return m->seq >= through; });
  const auto reach = static_cast<size_t>(ContextReach(x));
  size_t at = static_cast<size_t>(first_fresh - all.begin());
  while (at < all.size()) {
    const MessagePtrs before(all.begin() + static_cast<std::ptrdiff_t>(at > reach ? at - reach : 0),
                             all.begin() + static_cast<std::ptrdiff_t>(at));
    MessagePtrs fresh(all.begin() + static_cast<std::ptrdiff_t>(at), all.end());
    fresh.resize(LeadingAlike(fresh, gate));
    const std::vector<BatchMessage> batch = NextBatch(before, fresh, x);
    const auto taken = static_cast<int64_t>(batch.size() - static_cast<size_t>(std::count_if(
                                                               batch.begin(), batch.end(), [](const auto& b) { return b.context; })));
    const json request = ExtractionRequest(batch, TitleOf(conv), ns.tz(), x.max_items);
    CILIA_ASSIGN_OR_RETURN(bool cached, ns.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).SucceededBefore(Sha256Hex(request["messages"].dump()));
    }));
    const bool waits = gate.Waits(*fresh.front());
    const bool sent = !cached && SaysSomething(batch);
    const int64_t tokens = sent ? EstimateRequestTokens(request) : 0;
    const int64_t batches = sent ? 1 : 0;
    out.messages += taken;
    out.batches += batches;
    out.prompt_tokens += tokens;
    if (waits) {
      out.waiting_messages += taken;
      out.waiting_batches += batches;
      out.waiting_prompt_tokens += tokens;
    }
    at += static_cast<size_t>(taken);
  }
  return Status::Ok();
}

}  // namespace

json ExtractionOutcome::ToJson() const {
  json out = {{"conversations", conversations},       {"batches_ok", batches_ok},
              {"batches_failed", batches_failed},     {"batches_skipped", batches_skipped},
              {"batches_cached", batches_cached},     {"items_added", items_added},
              {"items_seen", items_seen},             {"items_superseded", items_superseded},
              {"items_candidates", items_candidates}, {"items_dropped", items_dropped},
              {"model_calls", model_calls},           {"tokens_in", tokens_in},
              {"tokens_out", tokens_out},             {"errors", errors},
              {"upstream_error", upstream_error.empty() ? json(nullptr) : json(upstream_error)},
              {"stopped", stopped.empty() ? json(nullptr) : json(stopped)},
              {"resumes", resumes.empty() ? json(nullptr) : json(resumes)},
              {"backfill", backfill}};
  out["budget"] = daily_token_budget > 0
                      ? json{{"daily_tokens", daily_token_budget},
                             {"spent_today", spent_today},
                             {"remaining", std::max<int64_t>(0, daily_token_budget - spent_today)}}
                      : json(nullptr);
  out["waiting_for_backfill"] = {{"conversations", waiting_conversations}, {"messages", waiting_messages}};
  return out;
}

json ExtractionEstimate::ToJson(const ExtractionConfig& x) const {
  json out = {{"messages", messages},
              {"batches", batches},
              {"estimated_prompt_tokens", prompt_tokens},
              {"automatic", waiting_batches == 0},
              {"waiting_messages", waiting_messages},
              {"waiting_batches", waiting_batches},
              {"daily_token_budget", x.daily_token_budget},
              {"max_batches_per_run", x.max_batches_per_run}};
  out["days_at_budget"] = x.daily_token_budget > 0
                              ? json((prompt_tokens + x.daily_token_budget - 1) / x.daily_token_budget)
                              : json(nullptr);
  return out;
}

int64_t EstimateRequestTokens(const json& request) {
  int64_t tokens = 0;
  for (const json& m : request.value("messages", json::array())) {
    if (m.contains("content") && m["content"].is_string()) tokens += text::EstimateTokens(m["content"].get<std::string>());
    tokens += kTokensPerMessage;
  }
  return tokens;
}

std::string DominantLanguage(const std::vector<BatchMessage>& batch) {
  size_t han = 0, kana = 0, hangul = 0, other = 0;
  for (const BatchMessage& b : batch) {
    for (char32_t cp : text::DecodeUtf8(text::OwnWords(b.message->text))) {
      if ((cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF)) {
        ++kana;
      } else if ((cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1100 && cp <= 0x11FF)) {
        ++hangul;
      } else if (text::IsHan(cp)) {
        ++han;
      } else if (cp < 0x3000 && ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp >= 0xC0)) {
        other += 1;
      }
    }
  }
  // A word of a Latin script is ~5 letters; a Han character is a word.
  const size_t latin_words = other / 5;
  if (hangul > latin_words && hangul >= han) return "Korean";
  if (kana > 0 && kana + han > latin_words) return "Japanese";
  if (han > latin_words) return "Chinese";
  return "";
}

json ExtractionRequest(const std::vector<BatchMessage>& batch, const std::string& conversation_title,
                       const TimeZone& tz, int max_items) {
  const std::string language = DominantLanguage(batch);
  const std::string language_rule =
      language.empty() ? "Write it in the language the messages are written in."
                       : fmt::format("The conversation is in {0}: write it in {0}.", language);
  std::string messages = fmt::format("Conversation: {}\n\nMessages:\n", conversation_title);
  for (const BatchMessage& b : batch) {
    const store::MessageRecord& m = *b.message;
    // The owner's words: a client's harness blocks are nothing to excerpt,
    // nor a message without text (tool calls and results, a system prompt).
    const std::string own = text::OwnWords(m.text);
    if (own.empty()) continue;
    messages += fmt::format("\n[{} · {} · {}]{}\n{}\n", MessagePublicId(m), tz.FormatLocal(m.created_at, true),
                            SpeakerLabel(m.name, m.role), b.context ? " (context)" : "", own);
  }
  return {{"messages", json::array({{{"role", "system"},
                                     {"content", fmt::format(fmt::runtime(kInstructions),
                                                             fmt::arg("max_items", max_items),
                                                             fmt::arg("language", language_rule))}},
                                    {{"role", "user"}, {"content", messages}}})}};
}

Result<std::vector<ExtractedItem>> ParseExtractionReply(const std::string& reply, int max_items) {
  auto object = llm::JsonObjectIn(reply);
  if (!object || !object->contains("items") || !(*object)["items"].is_array()) {
    return Status::InvalidArgument("the reply holds no {\"items\": [...]} object");
  }
  std::vector<ExtractedItem> out;
  for (const json& raw : (*object)["items"]) {
    if (static_cast<int>(out.size()) >= max_items) break;
    if (!raw.is_object()) continue;
    ExtractedItem item;
    item.content = Trimmed(StringField(raw, "content"));
    item.quote = StringField(raw, "quote");
    if (item.content.empty() || item.quote.empty() || !text::IsValidUtf8(item.content) ||
        !text::IsValidUtf8(item.quote)) {
      continue;
    }
    item.date = StringField(raw, "date");
    const std::string type = StringField(raw, "type");
    item.type = IsExcerptType(type) ? type : "other";
    const std::string key = Trimmed(StringField(raw, "fact_key"));
    if (!key.empty() && key.size() <= 128) item.fact_key = key;
    if (auto c = raw.find("confidence"); c != raw.end() && c->is_number()) {
      item.confidence = std::clamp(c->get<double>(), 0.0, 1.0);
    }
    out.push_back(std::move(item));
  }
  return out;
}

Result<ExtractionOutcome> RunExtraction(Namespace& ns, const Config& config, const Clock& clock,
                                        const ExtractionRunOptions& options) {
  if (config.models.extract.empty()) {
    return Status::InvalidArgument("models.extract: no model for extraction (set models.extract or models.chat)");
  }
  CILIA_ASSIGN_OR_RETURN(llm::Route route, llm::ResolveModel(config, config.models.extract));
  if (options.backfill) {
    // The owner's word covers what is stored now; a later import waits for its own.
    CILIA_RETURN_IF_ERROR(ns.store().Write([](store::Database& db) -> Status {
      CILIA_ASSIGN_OR_RETURN(const int64_t last, store::MessageRepo(db).LastMessageId());
      CILIA_ASSIGN_OR_RETURN(auto approved, store::DigestRepo(db).GetState(kBackfillThrough));
      if (approved && std::strtoll(approved->c_str(), nullptr, 10) >= last) return Status::Ok();
      return store::DigestRepo(db).PutState(kBackfillThrough, std::to_string(last));
    }));
  }
  CILIA_ASSIGN_OR_RETURN(BackfillGate gate, BackfillGate::Read(ns, config.extraction));
  return Run(ns, config, clock, std::move(route), options, gate).Go();
}

Result<ExtractionEstimate> EstimateExtraction(Namespace& ns, const Config& config,
                                              const std::optional<std::vector<int64_t>>& conversation_rows) {
  const ExtractionConfig& x = config.extraction;
  CILIA_ASSIGN_OR_RETURN(BackfillGate gate, BackfillGate::Read(ns, x));
  CILIA_ASSIGN_OR_RETURN(auto conversations, ns.store().Read([](store::Database& db) {
    return store::MessageRepo(db).AllConversations();
  }));
  ExtractionEstimate out;
  for (const store::ConversationRecord& conv : conversations) {
    if (conversation_rows &&
        std::find(conversation_rows->begin(), conversation_rows->end(), conv.id) == conversation_rows->end()) {
      continue;
    }
    CILIA_ASSIGN_OR_RETURN(auto cursor, ns.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).GetCursor(conv.id);
    }));
    const int64_t through = cursor ? cursor->through_seq : 0;
    if (conv.next_seq <= through) continue;
    CILIA_RETURN_IF_ERROR(EstimateConversation(ns, x, gate, conv, through, out));
  }
  return out;
}

}  // namespace cilia::memory
