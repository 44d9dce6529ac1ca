#include "memory/excerpts/candidates.h"

#include <fmt/format.h>

#include <unordered_map>

#include "core/time.h"
#include "memory/archive/archive.h"
#include "store/message_repo.h"

namespace cilia::memory {

using nlohmann::json;

namespace {

Status NoSuchCandidate(int64_t id) {
  return Status::NotFound(fmt::format("no candidate \"{}\"", CandidatePublicId(id)));
}

}  // namespace

Result<store::CandidateRecord> Candidates::Queue(const Excerpts::Draft& draft, const std::string& date,
                                                 const std::string& reason, std::optional<int64_t> target_id) {
  return ns_.store().Write([&](store::Database& db) -> Result<store::CandidateRecord> {
    store::ExcerptRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto existing, repo.FindPendingCandidate(draft.quote.source, draft.content));
    if (existing) return *existing;
    store::CandidateRecord c;
    c.content = draft.content;
    c.quote = draft.quote.quote;
    c.source = draft.quote.source;
    c.type = draft.type;
    c.fact_key = draft.fact_key;
    c.confidence = draft.confidence;
    c.date = date;
    c.reason = reason;
    c.target_id = target_id;
    c.created_at = c.updated_at = ns_.clock().Now();
    CILIA_RETURN_IF_ERROR(repo.InsertCandidate(c));
    return c;
  });
}

Result<std::optional<store::CandidateRecord>> Candidates::Get(int64_t id) {
  return ns_.store().Read([&](store::Database& db) { return store::ExcerptRepo(db).GetCandidate(id); });
}

Result<std::vector<store::CandidateRecord>> Candidates::List(std::optional<store::CandidateStatus> status,
                                                            const store::PageRequest& page) {
  return ns_.store().Read([&](store::Database& db) { return store::ExcerptRepo(db).ListCandidates(status, page); });
}

Result<store::CandidateRecord> Candidates::Pending(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(auto c, Get(id));
  if (!c) return NoSuchCandidate(id);
  if (c->status != store::CandidateStatus::kPending) {
    return Status::Conflict(fmt::format("candidate \"{}\" was already {}", CandidatePublicId(id), c->status));
  }
  return *c;
}

Status Candidates::Decide(store::CandidateRecord c, store::CandidateStatus status, std::optional<int64_t> result_id,
                          Author who) {
  c.status = status;
  c.result_id = result_id;
  c.decided_by = who;
  c.updated_at = ns_.clock().Now();
  return ns_.store().Write([&](store::Database& db) { return store::ExcerptRepo(db).UpdateCandidate(c); });
}

Excerpts::Draft Candidates::DraftOf(const store::CandidateRecord& c) {
  Excerpts::Draft d;
  d.content = c.content;
  d.quote.source = c.source;
  d.quote.quote = c.quote;
  d.type = c.type;
  d.fact_key = c.fact_key;
  d.confidence = c.confidence;
  return d;
}

Result<store::ExcerptRecord> Candidates::Approve(int64_t id, Author who) {
  CILIA_ASSIGN_OR_RETURN(store::CandidateRecord c, Pending(id));
  Excerpts excerpts(ns_);
  // What the approval would replace: the named target, else the holder of
  // the fact_key.
  std::optional<store::ExcerptRecord> replaced;
  if (c.target_id) {
    CILIA_ASSIGN_OR_RETURN(replaced, excerpts.Get(*c.target_id));
  } else if (c.fact_key) {
    CILIA_ASSIGN_OR_RETURN(auto holders, ns_.store().Read([&](store::Database& db) {
      return store::ExcerptRepo(db).ActiveWithFactKey(*c.fact_key);
    }));
    if (!holders.empty()) replaced = holders.front();
  }
  if (replaced && replaced->status != ExcerptStatus::kActive) replaced.reset();
  if (replaced && replaced->author == Author::kOwner) {
    return Status::Conflict(fmt::format(
        "approving {} would overwrite {}, which the owner wrote: edit {} by hand, supersede it with this candidate "
        "explicitly (POST /v1/candidates/{}/supersede with its target_id), or discard the candidate",
        CandidatePublicId(id), ExcerptPublicId(replaced->id), ExcerptPublicId(replaced->id), CandidatePublicId(id)));
  }
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord created, excerpts.CreateChecked(DraftOf(c), Author::kExtractor));
  if (replaced) CILIA_RETURN_IF_ERROR(excerpts.Supersede(replaced->id, created.id, who).status());
  CILIA_RETURN_IF_ERROR(Decide(std::move(c), store::CandidateStatus::kApproved, created.id, who));
  return created;
}

Status Candidates::Discard(int64_t id, Author who) {
  CILIA_ASSIGN_OR_RETURN(store::CandidateRecord c, Pending(id));
  return Decide(std::move(c), store::CandidateStatus::kDiscarded, std::nullopt, who);
}

Result<store::ExcerptRecord> Candidates::Merge(int64_t id, int64_t target_id, Author who) {
  CILIA_ASSIGN_OR_RETURN(store::CandidateRecord c, Pending(id));
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord target, Excerpts(ns_).SeenAgain(target_id, c.confidence, who));
  CILIA_RETURN_IF_ERROR(Decide(std::move(c), store::CandidateStatus::kMerged, target.id, who));
  return target;
}

Result<store::ExcerptRecord> Candidates::Supersede(int64_t id, int64_t target_id, Author who) {
  CILIA_ASSIGN_OR_RETURN(store::CandidateRecord c, Pending(id));
  Excerpts excerpts(ns_);
  CILIA_ASSIGN_OR_RETURN(auto target, excerpts.Get(target_id));
  if (!target) return Status::NotFound(fmt::format("target_id: no memory \"{}\"", ExcerptPublicId(target_id)));
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord created, excerpts.CreateChecked(DraftOf(c), Author::kExtractor));
  CILIA_RETURN_IF_ERROR(excerpts.Supersede(target_id, created.id, who).status());
  CILIA_RETURN_IF_ERROR(Decide(std::move(c), store::CandidateStatus::kApproved, created.id, who));
  return created;
}

Result<json> CandidateListJson(Namespace& ns, const std::vector<store::CandidateRecord>& list) {
  const TimeZone& tz = ns.tz();
  return ns.store().Read([&](store::Database& db) -> Result<json> {
    store::MessageRepo messages(db);
    std::unordered_map<int64_t, std::string> conversation_ids;
    json out = json::array();
    auto excerpt_id = [](const std::optional<int64_t>& id) { return id ? json(ExcerptPublicId(*id)) : json(nullptr); };
    for (const store::CandidateRecord& c : list) {
      std::optional<store::MessageRecord> m;
      CILIA_ASSIGN_OR_RETURN(json one, QuotedItemJson(messages, conversation_ids, c, m));
      one.update({{"id", CandidatePublicId(c.id)},
                  {"date", c.date},
                  {"reason", c.reason},
                  {"target_id", excerpt_id(c.target_id)},
                  {"status", c.status},
                  {"result_id", excerpt_id(c.result_id)},
                  {"decided_by", store::NameOrEmpty(c.decided_by)},
                  {"created_at", FormatRfc3339(c.created_at, tz.OffsetMinutes(c.created_at))},
                  {"updated_at", FormatRfc3339(c.updated_at, tz.OffsetMinutes(c.updated_at))}});
      out.push_back(std::move(one));
    }
    return out;
  });
}

}  // namespace cilia::memory
