#include "memory/transfer/excerpt_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/json_write.h"
#include "memory/excerpts/excerpt_index.h"
#include "store/excerpt_repo.h"

namespace cilia::memory {

using nlohmann::json;

namespace {


// Field readers; errors name the line and field.
class Reader {
 public:
  Reader(const json& line, int line_no) : line_(line), line_no_(line_no) {}
  template <typename T>
  T Get(const char* field) {
    if (!status_.ok()) return T{};
    if (!line_.contains(field)) {
      status_ = Status::InvalidArgument(fmt::format("line {}: {}: missing", line_no_, field));
      return T{};
    }
    try {
      return line_.at(field).get<T>();
    } catch (const json::exception&) {
      status_ = Status::InvalidArgument(fmt::format("line {}: {}: wrong type", line_no_, field));
      return T{};
    }
  }
  template <typename T>
  std::optional<T> Optional(const char* field) {
    if (!line_.contains(field) || line_.at(field).is_null()) return std::nullopt;
    return Get<T>(field);
  }
  // One of the store's closed sets of values (store/record_values.h).
  template <store::RecordValue E>
  E Value(const char* field) {
    const std::string text = Get<std::string>(field);
    if (!status_.ok()) return E{};
    auto parsed = store::Parse<E>(text, field);
    if (!parsed.ok()) status_ = parsed.status().With(fmt::format("line {}", line_no_));
    return parsed.ok() ? *parsed : E{};
  }
  // The same, or none for "".
  template <store::RecordValue E>
  std::optional<E> ValueOrEmpty(const char* field) {
    if (line_.contains(field) && line_.at(field) == "") return std::nullopt;
    return Value<E>(field);
  }
  const Status& status() const { return status_; }

 private:
  const json& line_;
  int line_no_;
  Status status_;
};

constexpr const char* kExcerpt = "excerpt";
constexpr const char* kHistory = "excerpt_history";
constexpr const char* kCandidate = "candidate";
constexpr const char* kCursor = "extraction_cursor";
constexpr const char* kBatch = "extraction_batch";

}  // namespace

Status ExportExcerpts(store::Database& db, const std::function<std::string(int64_t)>& conversation_of,
                      std::ostream& out) {
  store::ExcerptRepo repo(db);
  CILIA_RETURN_IF_ERROR(repo.ForEach([&](const store::ExcerptRecord& e) {
    out << json{{"type", kExcerpt}, {"id", e.id}, {"content", e.content}, {"quote", e.quote},
                {"conversation_id", conversation_of(e.source.conversation_row)}, {"message", e.source.message_id},
                {"span", {e.source.span_start, e.source.span_end}}, {"kind", e.type}, {"fact_key", OrNull(e.fact_key)},
                {"confidence", e.confidence}, {"importance", e.importance}, {"valid_from", OrNull(e.valid_from)},
                {"valid_to", OrNull(e.valid_to)}, {"status", e.status}, {"superseded_by", OrNull(e.superseded_by)},
                {"pinned", e.pinned}, {"author", e.author}, {"seen_count", e.seen_count},
                {"access_count", e.access_count}, {"last_recalled", OrNull(e.last_recalled)},
                {"created_at", e.created_at}, {"updated_at", e.updated_at}}
               .dump()
        << '\n';
  }));
  CILIA_RETURN_IF_ERROR(repo.ForEachHistory([&](const store::HistoryRecord& h) {
    out << json{{"type", kHistory}, {"id", h.id}, {"excerpt_id", h.excerpt_id}, {"at", h.at}, {"who", h.who},
                {"action", h.action}, {"old", OrNull(h.old_values)}, {"new", OrNull(h.new_values)}}
               .dump()
        << '\n';
  }));
  CILIA_RETURN_IF_ERROR(repo.ForEachCandidate([&](const store::CandidateRecord& c) {
    out << json{{"type", kCandidate}, {"id", c.id}, {"content", c.content}, {"quote", c.quote},
                {"conversation_id", conversation_of(c.source.conversation_row)}, {"message", c.source.message_id},
                {"span", {c.source.span_start, c.source.span_end}}, {"kind", c.type}, {"fact_key", OrNull(c.fact_key)},
                {"confidence", c.confidence}, {"date", c.date}, {"reason", c.reason}, {"target_id", OrNull(c.target_id)},
                {"status", c.status}, {"result_id", OrNull(c.result_id)}, {"decided_by", store::NameOrEmpty(c.decided_by)},
                {"created_at", c.created_at}, {"updated_at", c.updated_at}}
               .dump()
        << '\n';
  }));
  CILIA_ASSIGN_OR_RETURN(auto cursors, repo.AllCursors());
  for (const auto& c : cursors) {
    out << json{{"type", kCursor}, {"conversation_id", conversation_of(c.conversation_row)},
                {"through_seq", c.through_seq}, {"updated_at", c.updated_at}}
               .dump()
        << '\n';
  }
  CILIA_ASSIGN_OR_RETURN(auto batches, repo.AllBatches());
  for (const auto& b : batches) {
    out << json{{"type", kBatch}, {"id", b.id}, {"conversation_id", conversation_of(b.conversation_row)},
                {"first_seq", b.first_seq}, {"end_seq", b.end_seq}, {"content_hash", b.content_hash},
                {"attempts", b.attempts}, {"status", b.status}, {"error", b.error}, {"items", b.items},
                {"created_at", b.created_at}, {"updated_at", b.updated_at}}
               .dump()
        << '\n';
  }
  return Status::Ok();
}

bool IsExcerptLineType(std::string_view type) {
  return type == kExcerpt || type == kHistory || type == kCandidate || type == kCursor || type == kBatch;
}

Status ParseExcerptLine(const json& line, int line_no, ExcerptDump& dump) {
  const std::string type = line.value("type", "");
  // Every field is read at import; here the shape of the ones that locate.
  Reader r(line, line_no);
  if (type == kExcerpt || type == kCandidate) {
    r.Get<int64_t>("id");
    r.Get<std::string>("conversation_id");
    r.Get<int64_t>("message");
    auto span = r.Get<std::vector<int64_t>>("span");
    if (r.status().ok() && span.size() != 2)
      return Status::InvalidArgument(fmt::format("line {}: span: must be [start, end]", line_no));
    (type == kExcerpt ? dump.excerpts : dump.candidates).push_back(line);
  } else if (type == kHistory) {
    r.Get<int64_t>("excerpt_id");
    dump.history.push_back(line);
  } else if (type == kCursor) {
    r.Get<std::string>("conversation_id");
    dump.cursors.push_back(line);
  } else if (type == kBatch) {
    r.Get<std::string>("conversation_id");
    dump.batches.push_back(line);
  }
  return r.status();
}

MessageLocator ExcerptMessageLocator(store::MessageRepo& repo,
                                     const std::map<std::string, std::vector<store::MessageRecord>>& dumped,
                                     bool ids_kept) {
  using Found = std::optional<std::pair<int64_t, int64_t>>;
  return [&repo, &dumped, ids_kept](const std::string& conversation, int64_t message) -> Result<Found> {
    CILIA_ASSIGN_OR_RETURN(auto conv, repo.FindConversation(conversation));
    if (!conv) return Found();
    if (message < 0) return Found({conv->id, 0});
    auto list = dumped.find(conversation);
    if (list == dumped.end()) return Found();
    auto it = std::find_if(list->second.begin(), list->second.end(), [&](const auto& m) { return m.id == message; });
    if (it == list->second.end()) return Found();
    std::optional<store::MessageRecord> found;
    if (ids_kept) {
      CILIA_ASSIGN_OR_RETURN(found, repo.GetMessage(message));
    } else {
      CILIA_ASSIGN_OR_RETURN(found, repo.FindByCallerId(conv->id, it->caller_id.value_or("m_" + std::to_string(message))));
    }
    if (!found || found->conversation_row != conv->id) return Found();
    return Found({conv->id, found->id});
  };
}

namespace {

// One import of the excerpt tables, a step a table: the excerpts first, for
// their ids now, then what refers to them.
class ExcerptImport {
 public:
  ExcerptImport(store::Database& db, const MessageLocator& locate, bool keep_ids)
      : repo_(db), locate_(locate), keep_ids_(keep_ids) {}

  // The excerpts, their links and words left for Links.
  Status Excerpts(const std::vector<json>& lines) {
    for (const json& line : lines) {
      Reader r(line, 0);
      CILIA_ASSIGN_OR_RETURN(auto source, SourceOf(r));
      if (!source) continue;  // its message is not in the dump: nothing to quote
      store::ExcerptRecord e;
      const int64_t dumped = r.Get<int64_t>("id");
      e.id = keep_ids_ ? dumped : 0;
      e.content = r.Get<std::string>("content");
      e.quote = r.Get<std::string>("quote");
      e.source = *source;
      e.type = r.Get<std::string>("kind");
      e.fact_key = r.Optional<std::string>("fact_key");
      e.confidence = r.Get<double>("confidence");
      e.importance = r.Get<double>("importance");
      e.valid_from = r.Optional<int64_t>("valid_from");
      e.valid_to = r.Optional<int64_t>("valid_to");
      e.status = r.Value<store::ExcerptStatus>("status");
      e.pinned = r.Get<bool>("pinned");
      e.author = r.Value<store::Author>("author");
      e.seen_count = r.Get<int64_t>("seen_count");
      e.access_count = r.Get<int64_t>("access_count");
      e.last_recalled = r.Optional<int64_t>("last_recalled");
      e.created_at = r.Get<int64_t>("created_at");
      e.updated_at = r.Get<int64_t>("updated_at");
      CILIA_RETURN_IF_ERROR(r.status().With("excerpt " + std::to_string(dumped)));
      e.words = "";
      if (!keep_ids_) {
        CILIA_ASSIGN_OR_RETURN(auto there, repo_.Quoting(e.source.message_id));
        auto same = std::find_if(there.begin(), there.end(), [&](const store::ExcerptRecord& x) {
          return x.source == e.source && x.content == e.content;
        });
        if (same != there.end()) {
          excerpt_ids_[dumped] = same->id;
          continue;
        }
      }
      superseded_by_.emplace_back(0, r.Optional<int64_t>("superseded_by"));
      CILIA_RETURN_IF_ERROR(repo_.Insert(e));
      superseded_by_.back().first = e.id;
      excerpt_ids_[dumped] = e.id;
      ++summary_.excerpts;
    }
    return Status::Ok();
  }

  // Links among excerpts, once every one has its id; words for the index.
  Status Links() {
    for (const auto& [id, target] : superseded_by_) {
      CILIA_ASSIGN_OR_RETURN(auto e, repo_.Get(id));
      e->superseded_by = Mapped(target);
      e->words = ExcerptWords(e->content, e->quote);
      CILIA_RETURN_IF_ERROR(repo_.Update(*e));
    }
    return Status::Ok();
  }

  Status History(const std::vector<json>& lines) {
    for (const json& line : lines) {
      Reader r(line, 0);
      auto excerpt = Mapped(r.Get<int64_t>("excerpt_id"));
      const int64_t dumped = r.Get<int64_t>("id");
      if (!excerpt) {
        // The history of a deleted excerpt: kept under its old id when ids are kept.
        if (!keep_ids_) continue;
        excerpt = r.Get<int64_t>("excerpt_id");
      }
      store::HistoryRecord h{keep_ids_ ? dumped : 0,         *excerpt,
                             r.Get<int64_t>("at"),            r.Value<store::Author>("who"),
                             r.Get<std::string>("action"),    r.Optional<std::string>("old"),
                             r.Optional<std::string>("new")};
      CILIA_RETURN_IF_ERROR(r.status().With("history " + std::to_string(dumped)));
      CILIA_RETURN_IF_ERROR(repo_.AddHistory(h));
    }
    return Status::Ok();
  }

  Status Candidates(const std::vector<json>& lines) {
    for (const json& line : lines) {
      Reader r(line, 0);
      CILIA_ASSIGN_OR_RETURN(auto source, SourceOf(r));
      if (!source) continue;
      store::CandidateRecord c;
      const int64_t dumped = r.Get<int64_t>("id");
      c.id = keep_ids_ ? dumped : 0;
      c.content = r.Get<std::string>("content");
      c.quote = r.Get<std::string>("quote");
      c.source = *source;
      c.type = r.Get<std::string>("kind");
      c.fact_key = r.Optional<std::string>("fact_key");
      c.confidence = r.Get<double>("confidence");
      c.date = r.Get<std::string>("date");
      c.reason = r.Get<std::string>("reason");
      c.target_id = Mapped(r.Optional<int64_t>("target_id"));
      c.status = r.Value<store::CandidateStatus>("status");
      c.result_id = Mapped(r.Optional<int64_t>("result_id"));
      c.decided_by = r.ValueOrEmpty<store::Author>("decided_by");
      c.created_at = r.Get<int64_t>("created_at");
      c.updated_at = r.Get<int64_t>("updated_at");
      CILIA_RETURN_IF_ERROR(r.status().With("candidate " + std::to_string(dumped)));
      if (!keep_ids_) {
        CILIA_ASSIGN_OR_RETURN(auto pending, repo_.FindPendingCandidate(c.source, c.content));
        if (pending) continue;
      }
      CILIA_RETURN_IF_ERROR(repo_.InsertCandidate(c));
      ++summary_.candidates;
    }
    return Status::Ok();
  }

  // The job's bookkeeping: only into a namespace that had none of it, where
  // the conversations and their positions are the dump's.
  Status Bookkeeping(const ExcerptDump& dump) {
    if (!keep_ids_) return Status::Ok();
    CILIA_ASSIGN_OR_RETURN(auto cursors, repo_.AllCursors());
    if (!cursors.empty()) return Status::Ok();
    for (const json& line : dump.cursors) {
      Reader r(line, 0);
      CILIA_ASSIGN_OR_RETURN(auto at, locate_(r.Get<std::string>("conversation_id"), -1));
      if (!at) continue;
      CILIA_RETURN_IF_ERROR(repo_.PutCursor({at->first, r.Get<int64_t>("through_seq"), r.Get<int64_t>("updated_at")}));
      CILIA_RETURN_IF_ERROR(r.status());
    }
    for (const json& line : dump.batches) {
      Reader r(line, 0);
      CILIA_ASSIGN_OR_RETURN(auto at, locate_(r.Get<std::string>("conversation_id"), -1));
      if (!at) continue;
      store::ExtractionBatch b{r.Get<int64_t>("id"),          at->first,
                               r.Get<int64_t>("first_seq"),   r.Get<int64_t>("end_seq"),
                               r.Get<std::string>("content_hash"), r.Get<int64_t>("attempts"),
                               r.Value<store::BatchStatus>("status"), r.Get<std::string>("error"),
                               r.Get<int64_t>("items"),       r.Get<int64_t>("created_at"),
                               r.Get<int64_t>("updated_at")};
      CILIA_RETURN_IF_ERROR(r.status());
      CILIA_RETURN_IF_ERROR(repo_.PutBatch(b));
    }
    return Status::Ok();
  }

  const ExcerptImportSummary& summary() const { return summary_; }

 private:
  // A dumped excerpt id's id now; nullopt when that excerpt was not imported.
  std::optional<int64_t> Mapped(const std::optional<int64_t>& id) const {
    if (!id) return std::nullopt;
    auto it = excerpt_ids_.find(*id);
    return it == excerpt_ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  Result<std::optional<store::QuoteSource>> SourceOf(Reader& r) {
    const auto span = r.Get<std::vector<int64_t>>("span");
    CILIA_ASSIGN_OR_RETURN(auto at, locate_(r.Get<std::string>("conversation_id"), r.Get<int64_t>("message")));
    CILIA_RETURN_IF_ERROR(r.status());
    if (!at) return std::optional<store::QuoteSource>();
    return std::optional<store::QuoteSource>(store::QuoteSource{at->first, at->second, span[0], span[1]});
  }

  store::ExcerptRepo repo_;
  const MessageLocator& locate_;
  const bool keep_ids_;
  ExcerptImportSummary summary_;
  std::map<int64_t, int64_t> excerpt_ids_;  // dumped id -> id now
  // New id, dumped target: the links Links sets once every excerpt has its id.
  std::vector<std::pair<int64_t, std::optional<int64_t>>> superseded_by_;
};

}  // namespace

Result<ExcerptImportSummary> ImportExcerpts(store::Database& db, const ExcerptDump& dump, const MessageLocator& locate) {
  CILIA_ASSIGN_OR_RETURN(int64_t existing, store::ExcerptRepo(db).Count());
  ExcerptImport import(db, locate, /*keep_ids=*/existing == 0);
  CILIA_RETURN_IF_ERROR(import.Excerpts(dump.excerpts));
  CILIA_RETURN_IF_ERROR(import.Links());
  CILIA_RETURN_IF_ERROR(import.History(dump.history));
  CILIA_RETURN_IF_ERROR(import.Candidates(dump.candidates));
  CILIA_RETURN_IF_ERROR(import.Bookkeeping(dump));
  return import.summary();
}

}  // namespace cilia::memory
