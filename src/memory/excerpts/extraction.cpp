#include "memory/excerpts/extraction.h"

#include <fmt/format.h>

#include <algorithm>
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
#include "store/excerpt_repo.h"
#include "store/message_repo.h"

namespace cilia::memory {

using nlohmann::json;

namespace {

// A batch that failed this many runs is marked failed and skipped.
constexpr int kMaxBatchAttempts = 3;
// Old excerpts compared with one new item, at most.
constexpr size_t kMaxComparisons = 5;
constexpr int kExtractMaxTokens = 1500;
constexpr int kJudgeMaxTokens = 600;

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
  Model(llm::Route route, ExtractionOutcome& outcome) : route_(std::move(route)), outcome_(outcome) {}

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
    ReportExtractionCall({metric_model_, true, turn->usage.input, turn->usage.output});
    return CallResult{turn->text, turn->usage};
  }

 private:
  llm::Route route_;
  std::string metric_model_ = (route_.provider ? route_.provider->name + "/" : "") + route_.model;
  ExtractionOutcome& outcome_;
};


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
  Run(Namespace& ns, const Config& config, const Clock& clock, llm::Route route)
      : ns_(ns), x_(config.extraction), clock_(clock), model_(std::move(route), outcome_) {}

  Result<ExtractionOutcome> Go() {
    CILIA_ASSIGN_OR_RETURN(auto conversations, ns_.store().Read([](store::Database& db) {
      return store::MessageRepo(db).AllConversations();
    }));
    std::sort(conversations.begin(), conversations.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (const store::ConversationRecord& conv : conversations) {
      CILIA_RETURN_IF_ERROR(Conversation(conv));
      if (!outcome_.upstream_error.empty()) break;
    }
    return outcome_;
  }

 private:
  using Messages = std::vector<store::MessageRecord>;

  Status Conversation(const store::ConversationRecord& conv) {
    CILIA_ASSIGN_OR_RETURN(auto cursor, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).GetCursor(conv.id);
    }));
    int64_t through = cursor ? cursor->through_seq : 0;
    bool counted = false;
    while (true) {
      // Context before the cursor (seqs may have gaps after a forget) and
      // the new messages from it.
      CILIA_ASSIGN_OR_RETURN(Messages messages, ns_.store().Read([&](store::Database& db) {
        return store::MessageRepo(db).MessagesFrom(conv.id, std::max<int64_t>(0, through - 4 * x_.overlap - 4),
                                                   4 * x_.overlap + 4 + x_.batch_size);
      }));
      std::vector<const store::MessageRecord*> before, fresh;
      for (const auto& m : messages) (m.seq < through ? before : fresh).push_back(&m);
      if (fresh.empty()) return Status::Ok();
      const bool idle = clock_.Now() - conv.updated_at >= int64_t{x_.idle_minutes} * 60'000;
      if (static_cast<int>(fresh.size()) < x_.min_messages && !idle) return Status::Ok();
      if (!counted) {
        ++outcome_.conversations;
        counted = true;
      }

      const size_t context = std::min(before.size(), static_cast<size_t>(x_.overlap));
      std::vector<BatchMessage> batch;
      for (size_t i = before.size() - context; i < before.size(); ++i) batch.push_back({before[i], true});
      const size_t room = static_cast<size_t>(x_.batch_size) - context;
      for (size_t i = 0; i < fresh.size() && i < room; ++i) batch.push_back({fresh[i], false});

      CILIA_ASSIGN_OR_RETURN(std::optional<int64_t> next, Batch(conv, batch));
      if (!next) return Status::Ok();  // failed this run, or the upstream is away
      through = *next;
      CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
        return store::ExcerptRepo(db).PutCursor({conv.id, through, clock_.Now()});
      }));
    }
  }

  static std::string HashOf(const json& request) { return Sha256Hex(request["messages"].dump()); }

  // Tries one batch. The seq the cursor moves to, or nullopt when it stays.
  Result<std::optional<int64_t>> Batch(const store::ConversationRecord& conv, std::vector<BatchMessage> batch) {
    const int64_t first_seq = std::find_if(batch.begin(), batch.end(), [](const BatchMessage& b) {
                                return !b.context;
                              })->message->seq;
    const int64_t end_seq = batch.back().message->seq + 1;
    const std::string title = conv.title.empty() ? conv.external_id : conv.title;
    json request = ExtractionRequest(batch, title, ns_.tz(), x_.max_items);
    const std::string hash = HashOf(request);
    CILIA_ASSIGN_OR_RETURN(bool done, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).SucceededBefore(hash);
    }));
    if (done) {
      ++outcome_.batches_cached;
      return std::optional<int64_t>(end_seq);
    }
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
    auto vec = ns_.embedder().Embed({ExcerptEmbeddingText(probe)});
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
  ExtractionOutcome outcome_;
  Model model_;
};

}  // namespace

json ExtractionOutcome::ToJson() const {
  return {{"conversations", conversations},       {"batches_ok", batches_ok},
          {"batches_failed", batches_failed},     {"batches_skipped", batches_skipped},
          {"batches_cached", batches_cached},     {"items_added", items_added},
          {"items_seen", items_seen},             {"items_superseded", items_superseded},
          {"items_candidates", items_candidates}, {"items_dropped", items_dropped},
          {"model_calls", model_calls},           {"tokens_in", tokens_in},
          {"tokens_out", tokens_out},             {"errors", errors},
          {"upstream_error", upstream_error.empty() ? json(nullptr) : json(upstream_error)}};
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
    // The owner's words: a client's harness blocks are nothing to excerpt.
    const std::string own = text::OwnWords(m.text);
    if (own.empty() && !m.text.empty()) continue;
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

Result<ExtractionOutcome> RunExtraction(Namespace& ns, const Config& config, const Clock& clock) {
  if (config.models.extract.empty()) {
    return Status::InvalidArgument("models.extract: no model for extraction (set models.extract or models.chat)");
  }
  CILIA_ASSIGN_OR_RETURN(llm::Route route, llm::ResolveModel(config, config.models.extract));
  return Run(ns, config, clock, std::move(route)).Go();
}

}  // namespace cilia::memory
