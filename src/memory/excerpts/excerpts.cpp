#include "memory/excerpts/excerpts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "core/json_write.h"
#include "text/normalize.h"
#include "core/time.h"
#include "text/utf8.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpt_index.h"
#include "store/message_repo.h"

namespace cilia::memory {

using nlohmann::json;

namespace {

constexpr size_t kMaxContentChars = 2000;
constexpr size_t kMaxFactKeyBytes = 128;

json TimeJson(const std::optional<int64_t>& ms, const TimeZone& tz) {
  return OrNull(ms, [&tz](int64_t at) { return FormatRfc3339(at, tz.OffsetMinutes(at)); });
}

Status NoSuchExcerpt(int64_t id) { return Status::NotFound(fmt::format("no memory \"{}\"", ExcerptPublicId(id))); }

// The fields that differ between two rows, as {"old": {...}, "new": {...}}.
std::pair<json, json> Difference(const json& before, const json& after) {
  json old_values = json::object(), new_values = json::object();
  for (const auto& [key, value] : after.items()) {
    if (key == "updated_at") continue;
    if (before.value(key, json()) != value) {
      old_values[key] = before.value(key, json());
      new_values[key] = value;
    }
  }
  return {old_values, new_values};
}

// Field readers for the request bodies; errors name the field.
Result<std::string> RequiredString(const json& body, const char* field, const char* what) {
  auto it = body.find(field);
  if (it == body.end() || !it->is_string() || it->get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)
    return Status::InvalidArgument(fmt::format("{}: required, {}", field, what));
  return it->get<std::string>();
}

Result<std::string> CheckContent(std::string content) {
  if (!text::IsValidUtf8(content)) return Status::InvalidArgument("content: invalid UTF-8");
  if (text::CodePointCount(content) > kMaxContentChars)
    return Status::InvalidArgument(fmt::format("content: at most {} characters", kMaxContentChars));
  return content;
}

Result<std::string> CheckType(const json& value) {
  if (!value.is_string() || !IsExcerptType(value.get<std::string>()))
    return Status::InvalidArgument("type: one of fact, preference, event, plan, relationship, rule, project, other");
  return value.get<std::string>();
}

Result<std::optional<std::string>> CheckFactKey(const json& value) {
  if (value.is_null()) return std::optional<std::string>();
  if (!value.is_string()) return Status::InvalidArgument("fact_key: must be a string or null");
  std::string key = value.get<std::string>();
  if (key.empty()) return std::optional<std::string>();
  if (key.size() > kMaxFactKeyBytes || !text::IsValidUtf8(key))
    return Status::InvalidArgument(fmt::format("fact_key: at most {} bytes of UTF-8", kMaxFactKeyBytes));
  return std::optional<std::string>(std::move(key));
}

Result<double> CheckUnit(const json& value, const char* field) {
  if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1)
    return Status::InvalidArgument(fmt::format("{}: a number from 0 to 1", field));
  return value.get<double>();
}

Result<std::optional<int64_t>> CheckTime(const json& value, const char* field) {
  if (value.is_null()) return std::optional<int64_t>();
  if (!value.is_string()) return Status::InvalidArgument(fmt::format("{}: an RFC 3339 time or null", field));
  auto t = ParseRfc3339(value.get<std::string>());
  if (!t.ok()) return t.status().With(field);
  return std::optional<int64_t>(*t);
}

}  // namespace

const std::vector<std::string>& ExcerptTypes() {
  static const auto* const types = new std::vector<std::string>{"fact", "preference", "event",   "plan",
                                                                "relationship", "rule", "project", "other"};
  return *types;
}

bool IsExcerptType(std::string_view type) {
  const auto& types = ExcerptTypes();
  return std::find(types.begin(), types.end(), type) != types.end();
}

std::optional<QuoteSpan> FindQuote(std::string_view text, std::string_view quote) {
  std::vector<char32_t> needle;
  for (char32_t cp : text::DecodeUtf8(quote))
    if (!text::IsWhitespace(cp)) needle.push_back(cp);
  if (needle.size() < kMinQuoteChars) return std::nullopt;
  std::vector<char32_t> hay;
  std::vector<size_t> position;  // code-point index in `text` of each hay character
  const std::u32string cps = text::DecodeUtf8(text);
  for (size_t i = 0; i < cps.size(); ++i) {
    if (text::IsWhitespace(cps[i])) continue;
    hay.push_back(cps[i]);
    position.push_back(i);
  }
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end());
  if (it == hay.end()) return std::nullopt;
  const size_t first = static_cast<size_t>(it - hay.begin());
  return QuoteSpan{position[first], position[first + needle.size() - 1] + 1};
}

std::string ExcerptContentKey(std::string_view content) {
  std::string out;
  for (char32_t cp : text::DecodeUtf8(text::NormalizeForMatch(content))) {
    if (text::IsWhitespace(cp) || text::IsCjkPunctuation(cp) || (cp < 128 && std::ispunct(static_cast<int>(cp)))) {
      continue;
    }
    text::AppendUtf8(out, cp);
  }
  return out;
}


Result<NewExcerpt> ParseNewExcerpt(const json& body) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  NewExcerpt item;
  CILIA_ASSIGN_OR_RETURN(std::string content, RequiredString(body, "content", "the memory in a sentence"));
  CILIA_ASSIGN_OR_RETURN(item.content, CheckContent(std::move(content)));
  CILIA_ASSIGN_OR_RETURN(item.quote,
                         RequiredString(body, "quote", "the verbatim words of a stored message the memory rests on"));
  CILIA_ASSIGN_OR_RETURN(item.conversation_id,
                         RequiredString(body, "conversation_id", "the conversation of the quoted message"));
  if (auto it = body.find("message_id"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("message_id: must be a string");
    item.message_id = it->get<std::string>();
  }
  if (auto it = body.find("type"); it != body.end() && !it->is_null()) {
    CILIA_ASSIGN_OR_RETURN(item.type, CheckType(*it));
  }
  if (auto it = body.find("fact_key"); it != body.end()) {
    CILIA_ASSIGN_OR_RETURN(item.fact_key, CheckFactKey(*it));
  }
  if (auto it = body.find("confidence"); it != body.end() && !it->is_null()) {
    CILIA_ASSIGN_OR_RETURN(item.confidence, CheckUnit(*it, "confidence"));
  }
  if (auto it = body.find("importance"); it != body.end() && !it->is_null()) {
    CILIA_ASSIGN_OR_RETURN(item.importance, CheckUnit(*it, "importance"));
  }
  if (auto it = body.find("valid_from"); it != body.end()) {
    CILIA_ASSIGN_OR_RETURN(item.valid_from, CheckTime(*it, "valid_from"));
  }
  if (auto it = body.find("valid_to"); it != body.end()) {
    CILIA_ASSIGN_OR_RETURN(item.valid_to, CheckTime(*it, "valid_to"));
  }
  if (auto it = body.find("pinned"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) return Status::InvalidArgument("pinned: must be true or false");
    item.pinned = it->get<bool>();
  }
  return item;
}

Result<ExcerptPatch> ParseExcerptPatch(const json& body) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  ExcerptPatch patch;
  bool any = false;
  for (const auto& [key, value] : body.items()) {
    any = true;
    if (key == "content") {
      if (!value.is_string()) return Status::InvalidArgument("content: must be a string");
      CILIA_ASSIGN_OR_RETURN(patch.content, CheckContent(value.get<std::string>()));
    } else if (key == "quote") {
      if (!value.is_string()) return Status::InvalidArgument("quote: must be a string");
      patch.quote = value.get<std::string>();
    } else if (key == "type") {
      CILIA_ASSIGN_OR_RETURN(patch.type, CheckType(value));
    } else if (key == "fact_key") {
      CILIA_ASSIGN_OR_RETURN(patch.fact_key, CheckFactKey(value));
    } else if (key == "confidence") {
      CILIA_ASSIGN_OR_RETURN(patch.confidence, CheckUnit(value, "confidence"));
    } else if (key == "importance") {
      CILIA_ASSIGN_OR_RETURN(patch.importance, CheckUnit(value, "importance"));
    } else if (key == "valid_from") {
      CILIA_ASSIGN_OR_RETURN(patch.valid_from, CheckTime(value, "valid_from"));
    } else if (key == "valid_to") {
      CILIA_ASSIGN_OR_RETURN(patch.valid_to, CheckTime(value, "valid_to"));
    } else {
      return Status::InvalidArgument(fmt::format(
          "{}: not a field a patch changes (content, quote, type, fact_key, confidence, importance, valid_from, "
          "valid_to; status and pinned have their own routes)",
          key));
    }
  }
  if (!any) return Status::InvalidArgument("body: names no field to change");
  return patch;
}

json ExcerptRowJson(const store::ExcerptRecord& e) {
  return {{"id", e.id},
          {"content", e.content},
          {"quote", e.quote},
          {"conversation_row", e.source.conversation_row},
          {"message_row", e.source.message_id},
          {"span", {e.source.span_start, e.source.span_end}},
          {"type", e.type},
          {"fact_key", OrNull(e.fact_key)},
          {"confidence", e.confidence},
          {"importance", e.importance},
          {"valid_from", OrNull(e.valid_from)},
          {"valid_to", OrNull(e.valid_to)},
          {"status", e.status},
          {"superseded_by", OrNull(e.superseded_by)},
          {"pinned", e.pinned},
          {"author", e.author},
          {"seen_count", e.seen_count},
          {"access_count", e.access_count},
          {"last_recalled", OrNull(e.last_recalled)},
          {"created_at", e.created_at},
          {"updated_at", e.updated_at}};
}

Result<std::optional<store::ExcerptRecord>> Excerpts::Get(int64_t id) {
  return ns_.store().Read([&](store::Database& db) { return store::ExcerptRepo(db).Get(id); });
}

Result<std::vector<store::ExcerptRecord>> Excerpts::List(std::optional<ExcerptStatus> status, const store::PageRequest& page,
                                                          const std::optional<std::string>& fact_key) {
  return ns_.store().Read([&](store::Database& db) { return store::ExcerptRepo(db).List(status, page, fact_key); });
}

Result<CheckedQuote> Excerpts::CheckQuote(const NewExcerpt& item) {
  return ns_.store().Read([&](store::Database& db) -> Result<CheckedQuote> {
    store::MessageRepo messages(db);
    CILIA_ASSIGN_OR_RETURN(auto conv, messages.FindConversation(item.conversation_id));
    if (!conv) return Status::NotFound(fmt::format("conversation_id: no conversation \"{}\"", item.conversation_id));
    std::vector<store::MessageRecord> candidates;
    if (item.message_id) {
      CILIA_ASSIGN_OR_RETURN(auto m, FindByPublicId(messages, conv->id, *item.message_id));
      if (!m) {
        return Status::NotFound(fmt::format("message_id: no message \"{}\" in conversation \"{}\"", *item.message_id,
                                            item.conversation_id));
      }
      candidates.push_back(std::move(*m));
    } else {
      CILIA_ASSIGN_OR_RETURN(candidates, messages.MessagesFrom(conv->id, 0));
      std::reverse(candidates.begin(), candidates.end());  // the newest message holding it wins
    }
    for (const store::MessageRecord& m : candidates) {
      if (auto span = FindQuote(m.text, item.quote)) {
        CheckedQuote out;
        out.source = {conv->id, m.id, static_cast<int64_t>(span->begin), static_cast<int64_t>(span->end)};
        out.quote = text::SubstrCodePoints(m.text, span->begin, span->end - span->begin);
        out.said_at = m.created_at;
        return out;
      }
    }
    return Status::InvalidArgument(fmt::format(
        "quote: not found verbatim in {} (compared without whitespace; at least {} characters)",
        item.message_id ? fmt::format("message \"{}\"", *item.message_id)
                        : fmt::format("conversation \"{}\"", item.conversation_id),
        kMinQuoteChars));
  });
}

Result<int64_t> Excerpts::SaidAt(store::Database& db, int64_t message_id) {
  CILIA_ASSIGN_OR_RETURN(auto m, store::MessageRepo(db).GetMessage(message_id));
  return m ? m->created_at : 0;
}

void Excerpts::Publish(const store::ExcerptRecord& e, bool text_changed) {
  auto said_at = ns_.store().Read([&](store::Database& db) { return SaidAt(db, e.source.message_id); });
  const store::ExcerptIndexEntry entry{e.id,           e.source.conversation_row, said_at.ok() ? *said_at : 0,
                                       e.status,       e.access_count,           e.valid_from,
                                       e.valid_to,     e.words};
  if (!text_changed) return ns_.excerpts().Put(entry, nullptr);
  // A remote embedder that fails leaves the excerpt to the lexical lane.
  auto vecs = ns_.embedder().Embed({ExcerptEmbeddingText(e)}, embed::Purpose::kPassage);
  if (!vecs.ok() || vecs->empty()) return ns_.excerpts().Put(entry, nullptr);
  const std::vector<float>& vec = vecs->front();
  Status stored = ns_.store().Write([&](store::Database& db) -> Status {
    store::ExcerptRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto still, repo.Get(e.id));
    return still ? repo.PutVector(e.id, ns_.embedder().id(), vec) : Status::Ok();
  });
  ns_.excerpts().Put(entry, stored.ok() ? &vec : nullptr);
}

Result<store::ExcerptRecord> Excerpts::CreateChecked(const Draft& draft, Author who) {
  store::ExcerptRecord e;
  e.content = draft.content;
  e.quote = draft.quote.quote;
  e.source = draft.quote.source;
  e.type = IsExcerptType(draft.type) ? draft.type : "other";
  e.fact_key = draft.fact_key;
  e.confidence = draft.confidence;
  e.importance = draft.importance;
  e.valid_from = draft.valid_from;
  e.valid_to = draft.valid_to;
  e.pinned = draft.pinned;
  e.author = who;
  e.created_at = e.updated_at = ns_.clock().Now();
  e.words = ExcerptWords(e.content, e.quote);
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::ExcerptRepo repo(db);
    CILIA_RETURN_IF_ERROR(repo.Insert(e));
    store::HistoryRecord h{0, e.id, e.created_at, who, "create", std::nullopt, ExcerptRowJson(e).dump()};
    CILIA_RETURN_IF_ERROR(repo.AddHistory(h));
    return tx.Commit();
  }));
  Publish(e, true);
  return e;
}

Result<store::ExcerptRecord> Excerpts::Create(const NewExcerpt& item, Author who) {
  CILIA_ASSIGN_OR_RETURN(CheckedQuote quote, CheckQuote(item));
  Draft draft;
  static_cast<ExcerptTraits&>(draft) = item;
  draft.content = item.content;
  draft.quote = std::move(quote);
  return CreateChecked(draft, who);
}

Result<store::ExcerptRecord> Excerpts::Store(store::Database& db, const store::ExcerptRecord& before,
                                             store::ExcerptRecord after, Author who,
                                             const std::string& action) {
  after.updated_at = ns_.clock().Now();
  after.words = ExcerptWords(after.content, after.quote);
  store::ExcerptRepo repo(db);
  CILIA_RETURN_IF_ERROR(repo.Update(after));
  auto [old_values, new_values] = Difference(ExcerptRowJson(before), ExcerptRowJson(after));
  store::HistoryRecord h{0, after.id, after.updated_at, who, action, old_values.dump(), new_values.dump()};
  CILIA_RETURN_IF_ERROR(repo.AddHistory(h));
  return after;
}

template <typename F>
Result<store::ExcerptRecord> Excerpts::Change(int64_t id, Author who, const std::string& action,
                                              F&& change) {
  store::ExcerptRecord before;
  bool changed_any = false;
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord after, ns_.store().Write([&](store::Database& db)
                                                                           -> Result<store::ExcerptRecord> {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_ASSIGN_OR_RETURN(auto found, store::ExcerptRepo(db).Get(id));
    if (!found) return NoSuchExcerpt(id);
    before = *found;
    store::ExcerptRecord changed = before;
    CILIA_RETURN_IF_ERROR(change(db, changed));
    if (Difference(ExcerptRowJson(before), ExcerptRowJson(changed)).first.empty()) return before;  // nothing to do
    CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord stored, Store(db, before, std::move(changed), who, action));
    CILIA_RETURN_IF_ERROR(tx.Commit());
    changed_any = true;
    return stored;
  }));
  if (changed_any) {
    Publish(after, after.content != before.content || after.quote != before.quote);
  }
  return after;
}

Result<Excerpts::Upserted> Excerpts::Upsert(const NewExcerpt& item, Author who) {
  if (!item.fact_key) {
    CILIA_ASSIGN_OR_RETURN(auto created, Create(item, who));
    return Upserted{std::move(created), true};
  }
  CILIA_ASSIGN_OR_RETURN(auto holders, ns_.store().Read([&](store::Database& db) {
    return store::ExcerptRepo(db).ActiveWithFactKey(*item.fact_key);
  }));
  if (holders.empty()) {
    CILIA_ASSIGN_OR_RETURN(auto created, Create(item, who));
    return Upserted{std::move(created), true};
  }
  const store::ExcerptRecord& holder = holders.front();
  if (holder.author == Author::kOwner && who != Author::kOwner) {
    return Status::Conflict(fmt::format(
        "fact_key \"{}\" is held by {}, which the owner wrote; only the owner may change it", *item.fact_key,
        ExcerptPublicId(holder.id)));
  }
  CILIA_ASSIGN_OR_RETURN(CheckedQuote quote, CheckQuote(item));
  CILIA_ASSIGN_OR_RETURN(auto updated, Change(holder.id, who, "update", [&](store::Database&, store::ExcerptRecord& e) {
    e.content = item.content;
    e.quote = quote.quote;
    e.source = quote.source;
    e.type = item.type;
    e.confidence = item.confidence;
    e.importance = item.importance;
    e.valid_from = item.valid_from;
    e.valid_to = item.valid_to;
    e.pinned = e.pinned || item.pinned;
    e.author = who;
    return Status::Ok();
  }));
  return Upserted{std::move(updated), false};
}

Result<store::ExcerptRecord> Excerpts::Patch(int64_t id, const ExcerptPatch& patch, Author who) {
  return Change(id, who, "update", [&](store::Database& db, store::ExcerptRecord& e) -> Status {
    if (e.author == Author::kOwner && who != Author::kOwner) {
      return Status::Conflict(
          fmt::format("{} was written by the owner; only the owner may change it", ExcerptPublicId(e.id)));
    }
    if (patch.content) e.content = *patch.content;
    if (patch.type) e.type = *patch.type;
    if (patch.fact_key) e.fact_key = *patch.fact_key;
    if (patch.confidence) e.confidence = *patch.confidence;
    if (patch.importance) e.importance = *patch.importance;
    if (patch.valid_from) e.valid_from = *patch.valid_from;
    if (patch.valid_to) e.valid_to = *patch.valid_to;
    if (patch.quote) {
      CILIA_ASSIGN_OR_RETURN(auto m, store::MessageRepo(db).GetMessage(e.source.message_id));
      auto span = m ? FindQuote(m->text, *patch.quote) : std::nullopt;
      if (!span) return Status::InvalidArgument("quote: not found verbatim in the excerpt's message");
      e.quote = text::SubstrCodePoints(m->text, span->begin, span->end - span->begin);
      e.source.span_start = static_cast<int64_t>(span->begin);
      e.source.span_end = static_cast<int64_t>(span->end);
    }
    return Status::Ok();
  });
}

Result<store::ExcerptRecord> Excerpts::Supersede(int64_t old_id, int64_t new_id, Author who) {
  return SupersedeAs(old_id, new_id, who, "supersede");
}

Result<store::ExcerptRecord> Excerpts::MergeInto(int64_t duplicate_id, int64_t kept_id, Author who) {
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord merged, SupersedeAs(duplicate_id, kept_id, who, "merge"));
  CILIA_RETURN_IF_ERROR(SeenAgain(kept_id, merged.confidence, who, merged.seen_count).status());
  return merged;
}

Result<store::ExcerptRecord> Excerpts::SupersedeAs(int64_t old_id, int64_t new_id, Author who,
                                                   const std::string& action) {
  if (old_id == new_id) return Status::InvalidArgument("an excerpt cannot supersede itself");
  return Change(old_id, who, action, [&](store::Database& db, store::ExcerptRecord& e) -> Status {
    CILIA_ASSIGN_OR_RETURN(auto by, store::ExcerptRepo(db).Get(new_id));
    if (!by) return NoSuchExcerpt(new_id);
    if (by->status != ExcerptStatus::kActive) {
      return Status::Conflict(fmt::format("{} is {}, not active: it cannot supersede", ExcerptPublicId(new_id), by->status));
    }
    if (e.status == ExcerptStatus::kSuperseded && e.superseded_by) {
      return Status::Conflict(fmt::format("{} is already superseded by {}; revive it first", ExcerptPublicId(e.id),
                                          ExcerptPublicId(*e.superseded_by)));
    }
    if (who == Author::kExtractor && (e.pinned || e.author != Author::kExtractor)) {
      return Status::Conflict(fmt::format("{} is {}; it is never superseded automatically", ExcerptPublicId(e.id),
                                          e.pinned ? "pinned" : fmt::format("written by the {}", e.author)));
    }
    if (e.author == Author::kOwner && who == Author::kAgent) {
      return Status::Conflict(
          fmt::format("{} was written by the owner; only the owner may supersede it", ExcerptPublicId(e.id)));
    }
    e.status = ExcerptStatus::kSuperseded;
    e.superseded_by = new_id;
    return Status::Ok();
  });
}

Result<store::ExcerptRecord> Excerpts::Revive(int64_t id, Author who) {
  return Change(id, who, "revive", [](store::Database&, store::ExcerptRecord& e) {
    e.status = ExcerptStatus::kActive;
    e.superseded_by.reset();
    return Status::Ok();
  });
}

Result<store::ExcerptRecord> Excerpts::Archive(int64_t id, Author who) {
  return Change(id, who, "archive", [&](store::Database&, store::ExcerptRecord& e) -> Status {
    if (e.author == Author::kOwner && who == Author::kAgent) {
      return Status::Conflict(fmt::format("{} was written by the owner; only the owner may archive it", ExcerptPublicId(e.id)));
    }
    e.status = ExcerptStatus::kArchived;
    e.superseded_by.reset();
    return Status::Ok();
  });
}

Result<store::ExcerptRecord> Excerpts::SetPinned(int64_t id, bool pinned, Author who) {
  return Change(id, who, pinned ? "pin" : "unpin", [pinned](store::Database&, store::ExcerptRecord& e) {
    e.pinned = pinned;
    return Status::Ok();
  });
}

Result<store::ExcerptRecord> Excerpts::SeenAgain(int64_t id, double confidence, Author who,
                                                 int64_t times) {
  return Change(id, who, "seen", [confidence, times](store::Database&, store::ExcerptRecord& e) {
    e.seen_count += times;
    e.confidence = std::max(e.confidence, confidence);
    return Status::Ok();
  });
}

Status Excerpts::Delete(int64_t id, Author who) {
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::ExcerptRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto found, repo.Get(id));
    if (!found) return NoSuchExcerpt(id);
    if (found->author == Author::kOwner && who == Author::kAgent) {
      return Status::Conflict(fmt::format("{} was written by the owner; only the owner may delete it", ExcerptPublicId(id)));
    }
    store::HistoryRecord h{0, id, ns_.clock().Now(), who, "delete", ExcerptRowJson(*found).dump(), std::nullopt};
    CILIA_RETURN_IF_ERROR(repo.AddHistory(h));
    CILIA_RETURN_IF_ERROR(repo.Delete(id));
    return tx.Commit();
  }));
  ns_.excerpts().Remove(id);
  return Status::Ok();
}

Result<std::vector<store::HistoryRecord>> Excerpts::History(int64_t id) {
  return ns_.store().Read([&](store::Database& db) { return store::ExcerptRepo(db).History(id); });
}

Result<json> QuotedItemJson(store::MessageRepo& messages, std::unordered_map<int64_t, std::string>& conversations,
                            const store::QuotedItem& item, std::optional<store::MessageRecord>& message) {
  auto conv = conversations.find(item.source.conversation_row);
  if (conv == conversations.end()) {
    CILIA_ASSIGN_OR_RETURN(auto found, messages.GetConversation(item.source.conversation_row));
    conv = conversations.emplace(item.source.conversation_row, found ? found->external_id : "").first;
  }
  CILIA_ASSIGN_OR_RETURN(message, messages.GetMessage(item.source.message_id));
  return json{{"content", item.content},
              {"quote", item.quote},
              {"conversation_id", conv->second},
              {"message_ids", message ? json::array({MessagePublicId(*message)}) : json::array()},
              {"type", item.type},
              {"fact_key", OrNull(item.fact_key)},
              {"confidence", item.confidence}};
}

Result<json> ExcerptListJson(Namespace& ns, const std::vector<store::ExcerptRecord>& list) {
  const TimeZone& tz = ns.tz();
  return ns.store().Read([&](store::Database& db) -> Result<json> {
    store::MessageRepo messages(db);
    std::unordered_map<int64_t, std::string> conversation_ids;
    json out = json::array();
    for (const store::ExcerptRecord& e : list) {
      std::optional<store::MessageRecord> m;
      CILIA_ASSIGN_OR_RETURN(json one, QuotedItemJson(messages, conversation_ids, e, m));
      one.update({{"id", ExcerptPublicId(e.id)},
                  {"span", {e.source.span_start, e.source.span_end}},
                  {"said_at", m ? TimeJson(m->created_at, tz) : json(nullptr)},
                  {"status", e.status},
                  {"superseded_by", e.superseded_by ? json(ExcerptPublicId(*e.superseded_by)) : json(nullptr)},
                  {"importance", e.importance},
                  {"valid_from", TimeJson(e.valid_from, tz)},
                  {"valid_to", TimeJson(e.valid_to, tz)},
                  {"pinned", e.pinned},
                  {"author", e.author},
                  {"seen_count", e.seen_count},
                  {"access_count", e.access_count},
                  {"last_recalled", TimeJson(e.last_recalled, tz)},
                  {"created_at", TimeJson(e.created_at, tz)},
                  {"updated_at", TimeJson(e.updated_at, tz)}});
      out.push_back(std::move(one));
    }
    return out;
  });
}

Result<json> ExcerptJson(Namespace& ns, const store::ExcerptRecord& e) {
  CILIA_ASSIGN_OR_RETURN(json list, ExcerptListJson(ns, {e}));
  return list.front();
}

json HistoryJson(const std::vector<store::HistoryRecord>& history) {
  json out = json::array();
  for (const store::HistoryRecord& h : history) {
    out.push_back({{"at", FormatRfc3339(h.at)},
                   {"who", h.who},
                   {"action", h.action},
                   {"old", h.old_values ? json::parse(*h.old_values, nullptr, false) : json(nullptr)},
                   {"new", h.new_values ? json::parse(*h.new_values, nullptr, false) : json(nullptr)}});
  }
  return out;
}

}  // namespace cilia::memory
