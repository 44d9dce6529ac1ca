// L1 excerpts (DESIGN.md §2, docs/memory.md): small memories, each resting
// on a verbatim quote that was found mechanically in one stored message. Every
// change writes a history row (who, when, old and new values), so any state
// can be traced and undone; superseding is reversible; pinned and
// owner-written excerpts are never superseded automatically. The in-memory
// indexes follow each committed change.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "memory/public_id.h"

namespace cilia::memory {

// Who changes an excerpt (store/record_values.h): the extractor is the job;
// agents write through a memory:write key (REST, MCP); the owner through an
// admin key.
using Author = store::Author;
using ExcerptStatus = store::ExcerptStatus;

// fact preference event plan relationship rule project other.
const std::vector<std::string>& ExcerptTypes();
bool IsExcerptType(std::string_view type);

// A quote must have at least this many code points besides whitespace.
inline constexpr size_t kMinQuoteChars = 8;

// Where `quote` occurs in `text`, compared with all whitespace removed from
// both (models re-wrap lines and drop spaces): the code-point span [begin,
// end) of `text` from the first to the last matched character. nullopt when
// it does not occur or has fewer than kMinQuoteChars characters besides
// whitespace.
struct QuoteSpan {
  size_t begin = 0;
  size_t end = 0;
};
std::optional<QuoteSpan> FindQuote(std::string_view text, std::string_view quote);

// The normal form in which two contents are the same without asking a model:
// NFKC case-folded, without whitespace and punctuation.
std::string ExcerptContentKey(std::string_view content);

// A new excerpt as a writer gives it. The quote is checked against the
// message (the caller's id, or m_<n>); without a message id, the newest
// message of the conversation that holds the quote is taken.
// What a writer says of a new excerpt besides its words and evidence.
struct ExcerptTraits {
  std::string type = "other";
  std::optional<std::string> fact_key;
  double confidence = 1;
  double importance = 0.5;
  std::optional<int64_t> valid_from;
  std::optional<int64_t> valid_to;
  bool pinned = false;
};

struct NewExcerpt : ExcerptTraits {
  std::string content;
  std::string quote;
  std::string conversation_id;  // external
  std::optional<std::string> message_id;
};

// Reads a body of POST /v1/memories (and MCP memory_upsert); errors name
// the field.
Result<NewExcerpt> ParseNewExcerpt(const nlohmann::json& body);

// The fields a patch may change; absent ones stay. `fact_key` and the
// validity bounds may be set to null.
struct ExcerptPatch {
  std::optional<std::string> content;
  std::optional<std::string> quote;  // re-checked against the same message
  std::optional<std::string> type;
  std::optional<std::optional<std::string>> fact_key;
  std::optional<double> confidence;
  std::optional<double> importance;
  std::optional<std::optional<int64_t>> valid_from;
  std::optional<std::optional<int64_t>> valid_to;
};
Result<ExcerptPatch> ParseExcerptPatch(const nlohmann::json& body);

// The quote's message, found and checked: the source and the verbatim text
// of the span. InvalidArgument (naming `quote`) when the quote is not there.
struct CheckedQuote {
  store::QuoteSource source;
  std::string quote;
  int64_t said_at = 0;
};

class Excerpts {
 public:
  explicit Excerpts(Namespace& ns) : ns_(ns) {}

  Result<std::optional<store::ExcerptRecord>> Get(int64_t id);
  // A page, newest first; without a status all, `fact_key` to keep one key's.
  Result<std::vector<store::ExcerptRecord>> List(std::optional<ExcerptStatus> status, const store::PageRequest& page,
                                                 const std::optional<std::string>& fact_key);
  Result<store::ExcerptRecord> Create(const NewExcerpt& item, Author who);
  // With a fact_key held by an active excerpt: that excerpt takes the new
  // values (one "update" in its history), else a new one is created. An
  // agent may not overwrite an owner-written excerpt (Conflict).
  struct Upserted {
    store::ExcerptRecord excerpt;
    bool created = false;
  };
  Result<Upserted> Upsert(const NewExcerpt& item, Author who);
  Result<store::ExcerptRecord> Patch(int64_t id, const ExcerptPatch& patch, Author who);
  // `old_id` becomes superseded by `new_id` (both must exist and differ; the
  // new one active). Revive undoes it.
  Result<store::ExcerptRecord> Supersede(int64_t old_id, int64_t new_id, Author who);
  Result<store::ExcerptRecord> Revive(int64_t id, Author who);
  Result<store::ExcerptRecord> Archive(int64_t id, Author who);
  Result<store::ExcerptRecord> SetPinned(int64_t id, bool pinned, Author who);
  // Removes the row and its vector; the history keeps the whole row.
  Status Delete(int64_t id, Author who);
  // The extractor met the same fact again: seen_count + `times`, confidence
  // the higher of the two.
  Result<store::ExcerptRecord> SeenAgain(int64_t id, double confidence, Author who, int64_t times = 1);
  // `duplicate` says what `kept` says: it is superseded by `kept` (action
  // "merge", undone by Revive) and `kept` counts its sightings. The rules of
  // Supersede apply to `duplicate`.
  Result<store::ExcerptRecord> MergeInto(int64_t duplicate_id, int64_t kept_id, Author who);
  Result<std::vector<store::HistoryRecord>> History(int64_t id);

  // Finds and checks the quote of `item` (see NewExcerpt).
  Result<CheckedQuote> CheckQuote(const NewExcerpt& item);
  // A new excerpt from an already checked quote (the extractor, candidates).
  struct Draft : ExcerptTraits {
    std::string content;
    CheckedQuote quote;
  };
  Result<store::ExcerptRecord> CreateChecked(const Draft& draft, Author who);

 private:
  // Loads the row, applies `change`, and writes it with a history row of
  // the fields that changed, in one transaction; then updates the indexes.
  template <typename F>
  Result<store::ExcerptRecord> Change(int64_t id, Author who, const std::string& action, F&& change);
  // Supersede, written in the history as `action`.
  Result<store::ExcerptRecord> SupersedeAs(int64_t old_id, int64_t new_id, Author who,
                                           const std::string& action);
  Result<store::ExcerptRecord> Store(store::Database& db, const store::ExcerptRecord& before,
                                     store::ExcerptRecord after, Author who, const std::string& action);
  // After a commit: the index entry (and the vector when the text changed).
  void Publish(const store::ExcerptRecord& e, bool text_changed);
  Result<int64_t> SaidAt(store::Database& db, int64_t message_id);

  Namespace& ns_;
};

// The contract's memory object (CONTRACT.md "Memories"), with the extra
// fields: importance, valid_from/valid_to, superseded_by, seen_count,
// access_count, last_recalled, updated_at and the quote's span.
Result<nlohmann::json> ExcerptJson(Namespace& ns, const store::ExcerptRecord& e);
Result<nlohmann::json> ExcerptListJson(Namespace& ns, const std::vector<store::ExcerptRecord>& list);
nlohmann::json HistoryJson(const std::vector<store::HistoryRecord>& history);

// The fields an excerpt and a candidate show alike: content, quote,
// conversation_id, message_ids, type, fact_key, confidence. Reads the quoted
// message into `message` (nullopt when it is gone) and the conversation,
// whose external id `conversations` keeps for the rest of a list.
Result<nlohmann::json> QuotedItemJson(store::MessageRepo& messages,
                                      std::unordered_map<int64_t, std::string>& conversations,
                                      const store::QuotedItem& item, std::optional<store::MessageRecord>& message);

// Every field of a row as JSON (history values, export).
nlohmann::json ExcerptRowJson(const store::ExcerptRecord& e);

}  // namespace cilia::memory
