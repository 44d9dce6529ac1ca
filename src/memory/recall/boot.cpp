#include "memory/recall/boot.h"

#include <algorithm>
#include <array>

#include "core/json_write.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "store/profile_repo.h"

namespace cilia::memory {

namespace {

using nlohmann::json;

// The gateway's order of L2 documents: the four known names, then the rest.
void SortProfile(std::vector<store::ProfileDocument>& documents) {
  static constexpr std::array<std::string_view, 4> kFixedOrder = {"persona", "user", "relationship", "rules"};
  auto rank = [](const std::string& name) {
    auto it = std::find(kFixedOrder.begin(), kFixedOrder.end(), name);
    return static_cast<size_t>(it - kFixedOrder.begin());
  };
  std::stable_sort(documents.begin(), documents.end(), [&](const auto& a, const auto& b) {
    return std::pair(rank(a.name), a.name) < std::pair(rank(b.name), b.name);
  });
}

}  // namespace

json DailyLogJson(const store::DailyLog& log) {
  json entries = json::array();
  for (const store::LogEntry& e : log.entries) {
    json sources = json::array();
    for (const auto& [conversation, message] : e.sources) {
      sources.push_back({{"conversation_id", conversation}, {"message_id", message}});
    }
    entries.push_back({{"text", e.text}, {"sources", std::move(sources)}});
  }
  return {{"day", log.day}, {"title", log.title}, {"text", log.Text()}, {"entries", std::move(entries)},
          {"messages", log.messages}, {"model", log.model}, {"created_at", FormatRfc3339(log.created_at)},
          {"updated_at", FormatRfc3339(log.updated_at)}};
}

json DigestJson(const store::Digest& digest) {
  return {{"text", digest.text}, {"through_day", digest.through_day}, {"model", digest.model},
          {"created_at", FormatRfc3339(digest.created_at)}};
}

json RollupJson(const store::Rollup& rollup) {
  return {{"kind", rollup.kind}, {"period", rollup.period}, {"first_day", rollup.first_day},
          {"last_day", rollup.last_day}, {"text", rollup.text}, {"source_days", rollup.source_days},
          {"model", rollup.model}, {"created_at", FormatRfc3339(rollup.created_at)}};
}

json PreciousJson(const store::PreciousPassage& p) {
  return {{"id", PreciousPublicId(p.id)}, {"content", p.content}, {"conversation_id", p.conversation_id},
          {"message_ids", p.message_ids}, {"author", p.author}, {"created_at", FormatRfc3339(p.created_at)}};
}

json GlossaryJson(const store::GlossaryEntry& e) {
  return {{"term", e.term}, {"aliases", e.aliases}, {"definition", e.definition},
          {"created_at", FormatRfc3339(e.created_at)}, {"updated_at", FormatRfc3339(e.updated_at)}};
}

Result<json> BootPack(Namespace& ns, UnixMs now) {
  const CivilDate today = ns.tz().LocalDate(now);
  return ns.store().Read([&](store::Database& db) -> Result<json> {
    store::ReadSnapshot snapshot(db);  // the pack is one consistent snapshot
    CILIA_RETURN_IF_ERROR(snapshot.Begin());
    store::DigestRepo digests(db);
    CILIA_ASSIGN_OR_RETURN(auto digest, digests.LatestDigest());
    CILIA_ASSIGN_OR_RETURN(auto yesterday, digests.GetLog(AddDays(today, -1).ToString()));
    CILIA_ASSIGN_OR_RETURN(auto week, digests.LatestRollup(store::RollupKind::kWeek));
    CILIA_ASSIGN_OR_RETURN(auto month, digests.LatestRollup(store::RollupKind::kMonth));
    CILIA_ASSIGN_OR_RETURN(auto precious, store::PreciousRepo(db).List());
    CILIA_ASSIGN_OR_RETURN(auto glossary, store::GlossaryRepo(db).List());
    CILIA_ASSIGN_OR_RETURN(auto profile, store::ProfileRepo(db).List());
    SortProfile(profile);
    json counts = {{"windows", ns.WindowCount()},
                   {"precious", precious.size()},
                   {"glossary", glossary.size()},
                   {"profile_documents", profile.size()}};
    store::MessageRepo messages(db);
    store::ExcerptRepo excerpts(db);
    CILIA_ASSIGN_OR_RETURN(counts["conversations"], messages.CountConversations());
    CILIA_ASSIGN_OR_RETURN(counts["messages"], messages.CountMessages());
    CILIA_ASSIGN_OR_RETURN(counts["excerpts"], excerpts.CountWithStatus(store::ExcerptStatus::kActive));
    CILIA_ASSIGN_OR_RETURN(counts["candidates_pending"], excerpts.CountCandidates(store::CandidateStatus::kPending));
    json out = {{"day", today.ToString()},
                {"digest", OrNull(digest, DigestJson)},
                {"yesterday", OrNull(yesterday, DailyLogJson)},
                {"week", OrNull(week, RollupJson)},
                {"month", OrNull(month, RollupJson)},
                {"precious", json::array()},
                {"glossary", json::array()},
                {"profile", json::array()},
                {"counts", std::move(counts)}};
    for (const auto& p : precious) out["precious"].push_back(PreciousJson(p));
    for (const auto& g : glossary) out["glossary"].push_back(GlossaryJson(g));
    for (const auto& d : profile) {
      out["profile"].push_back({{"name", d.name}, {"content", d.content}, {"updated_at", FormatRfc3339(d.updated_at)}});
    }
    return out;
  });
}

}  // namespace cilia::memory
