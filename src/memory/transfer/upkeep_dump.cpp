#include "memory/transfer/upkeep_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace cilia::memory {

namespace {

using nlohmann::json;

template <typename T>
Result<T> Field(const json& line, const char* name, int line_no) {
  auto it = line.find(name);
  if (it == line.end()) return Status::InvalidArgument(fmt::format("line {}: {}: missing", line_no, name));
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return Status::InvalidArgument(fmt::format("line {}: {}: wrong type", line_no, name));
  }
}

json EntriesJson(const std::vector<store::LogEntry>& entries) {
  json out = json::array();
  for (const store::LogEntry& e : entries) out.push_back({{"text", e.text}, {"sources", e.sources}});
  return out;
}

void WriteLine(std::ostream& out, const json& line) { out << line.dump() << '\n'; }

}  // namespace

bool IsUpkeepRecord(std::string_view type) {
  static const std::set<std::string_view> kTypes = {"profile", "profile_version", "glossary", "precious",
                                                    "daily_log", "digest", "rollup"};
  return kTypes.count(type) > 0;
}

Status ParseUpkeepRecord(const json& line, int line_no, UpkeepDump& dump) {
  const std::string type = line.value("type", "");
  auto str = [&](const char* name) { return Field<std::string>(line, name, line_no); };
  auto num = [&](const char* name) { return Field<int64_t>(line, name, line_no); };
  auto strings = [&](const char* name) { return Field<std::vector<std::string>>(line, name, line_no); };
  if (type == "profile" || type == "profile_version") {
    store::ProfileVersion v;
    CILIA_ASSIGN_OR_RETURN(v.name, str("name"));
    CILIA_ASSIGN_OR_RETURN(v.content, str("content"));
    CILIA_ASSIGN_OR_RETURN(v.updated_at, num("updated_at"));
    if (Status valid = store::CheckProfileName(v.name); !valid.ok()) return valid.With(fmt::format("line {}", line_no));
    if (type == "profile") dump.profile.push_back({v.name, v.content, v.updated_at});
    else dump.profile_versions.push_back(std::move(v));
  } else if (type == "glossary") {
    store::GlossaryEntry e;
    CILIA_ASSIGN_OR_RETURN(e.term, str("term"));
    CILIA_ASSIGN_OR_RETURN(e.aliases, strings("aliases"));
    CILIA_ASSIGN_OR_RETURN(e.definition, str("definition"));
    CILIA_ASSIGN_OR_RETURN(e.created_at, num("created_at"));
    CILIA_ASSIGN_OR_RETURN(e.updated_at, num("updated_at"));
    if (Status valid = store::CheckGlossaryEntry(e); !valid.ok()) return valid.With(fmt::format("line {}", line_no));
    dump.glossary.push_back(std::move(e));
  } else if (type == "precious") {
    store::PreciousPassage p;
    CILIA_ASSIGN_OR_RETURN(p.id, num("id"));
    CILIA_ASSIGN_OR_RETURN(p.content, str("content"));
    CILIA_ASSIGN_OR_RETURN(p.conversation_id, str("conversation_id"));
    CILIA_ASSIGN_OR_RETURN(p.message_ids, strings("message_ids"));
    CILIA_ASSIGN_OR_RETURN(const std::string author, str("author"));
    CILIA_ASSIGN_OR_RETURN(p.created_at, num("created_at"));
    auto parsed = store::Parse<store::Author>(author, "author");
    if (!parsed.ok() || *parsed == store::Author::kExtractor) {
      return Status::InvalidArgument(fmt::format("line {}: author: \"owner\" or \"agent\"", line_no));
    }
    p.author = *parsed;
    dump.precious.push_back(std::move(p));
  } else if (type == "daily_log") {
    store::DailyLog log;
    CILIA_ASSIGN_OR_RETURN(log.day, str("day"));
    CILIA_ASSIGN_OR_RETURN(log.title, str("title"));
    CILIA_ASSIGN_OR_RETURN(json entries, Field<json>(line, "entries", line_no));
    if (!entries.is_array()) return Status::InvalidArgument(fmt::format("line {}: entries: wrong type", line_no));
    for (const json& e : entries) {
      store::LogEntry entry;
      CILIA_ASSIGN_OR_RETURN(entry.text, Field<std::string>(e, "text", line_no));
      CILIA_ASSIGN_OR_RETURN(entry.sources, Field<std::vector<store::MessageRef>>(e, "sources", line_no));
      log.entries.push_back(std::move(entry));
    }
    CILIA_ASSIGN_OR_RETURN(log.messages, num("messages"));
    CILIA_ASSIGN_OR_RETURN(log.model, str("model"));
    CILIA_ASSIGN_OR_RETURN(log.created_at, num("created_at"));
    CILIA_ASSIGN_OR_RETURN(log.updated_at, num("updated_at"));
    dump.logs.push_back(std::move(log));
  } else if (type == "digest") {
    store::Digest d;
    CILIA_ASSIGN_OR_RETURN(d.id, num("id"));
    CILIA_ASSIGN_OR_RETURN(d.through_day, str("through_day"));
    CILIA_ASSIGN_OR_RETURN(d.text, str("text"));
    CILIA_ASSIGN_OR_RETURN(d.model, str("model"));
    CILIA_ASSIGN_OR_RETURN(d.created_at, num("created_at"));
    dump.digests.push_back(std::move(d));
  } else if (type == "rollup") {
    store::Rollup r;
    CILIA_ASSIGN_OR_RETURN(const std::string kind, str("kind"));
    CILIA_ASSIGN_OR_RETURN(r.period, str("period"));
    CILIA_ASSIGN_OR_RETURN(r.first_day, str("first_day"));
    CILIA_ASSIGN_OR_RETURN(r.last_day, str("last_day"));
    CILIA_ASSIGN_OR_RETURN(r.text, str("text"));
    CILIA_ASSIGN_OR_RETURN(r.source_days, strings("source_days"));
    CILIA_ASSIGN_OR_RETURN(r.model, str("model"));
    CILIA_ASSIGN_OR_RETURN(r.created_at, num("created_at"));
    auto parsed = store::Parse<store::RollupKind>(kind, "kind");
    if (!parsed.ok()) return parsed.status().With(fmt::format("line {}", line_no));
    r.kind = *parsed;
    dump.rollups.push_back(std::move(r));
  } else {
    return Status::InvalidArgument(fmt::format("line {}: unknown record type \"{}\"", line_no, type));
  }
  return Status::Ok();
}

Status WriteUpkeepRecords(store::Database& db, std::ostream& out) {
  CILIA_ASSIGN_OR_RETURN(auto documents, store::ProfileRepo(db).List());
  for (const auto& d : documents) {
    WriteLine(out, {{"type", "profile"}, {"name", d.name}, {"content", d.content}, {"updated_at", d.updated_at}});
  }
  CILIA_ASSIGN_OR_RETURN(auto versions, store::ProfileVersionRepo(db).All());
  for (const auto& v : versions) {
    WriteLine(out, {{"type", "profile_version"}, {"name", v.name}, {"content", v.content}, {"updated_at", v.updated_at}});
  }
  CILIA_ASSIGN_OR_RETURN(auto glossary, store::GlossaryRepo(db).List());
  for (const auto& e : glossary) {
    WriteLine(out, {{"type", "glossary"}, {"term", e.term}, {"aliases", e.aliases}, {"definition", e.definition},
                    {"created_at", e.created_at}, {"updated_at", e.updated_at}});
  }
  CILIA_ASSIGN_OR_RETURN(auto precious, store::PreciousRepo(db).List());
  for (const auto& p : precious) {
    WriteLine(out, {{"type", "precious"}, {"id", p.id}, {"content", p.content}, {"conversation_id", p.conversation_id},
                    {"message_ids", p.message_ids}, {"author", p.author}, {"created_at", p.created_at}});
  }
  store::DigestRepo digests(db);
  CILIA_ASSIGN_OR_RETURN(auto logs, digests.Logs("", ""));
  for (const auto& log : logs) {
    WriteLine(out, {{"type", "daily_log"}, {"day", log.day}, {"title", log.title}, {"entries", EntriesJson(log.entries)},
                    {"messages", log.messages}, {"model", log.model}, {"created_at", log.created_at},
                    {"updated_at", log.updated_at}});
  }
  CILIA_ASSIGN_OR_RETURN(auto revisions, digests.AllDigests());
  for (const auto& d : revisions) {
    WriteLine(out, {{"type", "digest"}, {"id", d.id}, {"through_day", d.through_day}, {"text", d.text},
                    {"model", d.model}, {"created_at", d.created_at}});
  }
  CILIA_ASSIGN_OR_RETURN(auto rollups, digests.AllRollups());
  for (const auto& r : rollups) {
    WriteLine(out, {{"type", "rollup"}, {"kind", r.kind}, {"period", r.period}, {"first_day", r.first_day},
                    {"last_day", r.last_day}, {"text", r.text}, {"source_days", r.source_days}, {"model", r.model},
                    {"created_at", r.created_at}});
  }
  return Status::Ok();
}

Status RestoreUpkeep(store::Database& db, const UpkeepDump& dump) {
  store::ProfileVersionRepo versions(db);
  for (const auto& v : dump.profile_versions) CILIA_RETURN_IF_ERROR(versions.Restore(v));
  store::ProfileRepo profile(db);
  for (const auto& d : dump.profile) {
    CILIA_ASSIGN_OR_RETURN(auto local, profile.Get(d.name));
    if (local && local->content == d.content) continue;
    CILIA_RETURN_IF_ERROR(profile.Put(d.name, d.content, d.updated_at));
  }
  store::GlossaryRepo glossary(db);
  for (const auto& e : dump.glossary) {
    CILIA_ASSIGN_OR_RETURN(auto local, glossary.Get(e.term));
    if (!local || local->updated_at <= e.updated_at) CILIA_RETURN_IF_ERROR(glossary.Restore(e));
  }
  store::PreciousRepo precious(db);
  for (store::PreciousPassage p : dump.precious) {
    CILIA_ASSIGN_OR_RETURN(bool there, precious.Contains(p));
    if (there) continue;
    CILIA_ASSIGN_OR_RETURN(auto taken, precious.Get(p.id));
    if (taken) p.id = 0;
    CILIA_RETURN_IF_ERROR(precious.Append(p).status());
  }
  store::DigestRepo digests(db);
  for (const auto& log : dump.logs) {
    CILIA_ASSIGN_OR_RETURN(auto local, digests.GetLog(log.day));
    if (!local) CILIA_RETURN_IF_ERROR(digests.PutLog(log));
  }
  CILIA_ASSIGN_OR_RETURN(auto revisions, digests.AllDigests());
  auto key = [](const store::Digest& d) { return std::tie(d.created_at, d.through_day, d.text); };
  std::set<std::tuple<int64_t, std::string, std::string>> known;
  for (const auto& d : revisions) known.insert(key(d));
  for (const auto& d : dump.digests) {
    if (known.count(key(d))) continue;
    store::Digest restored = d;
    // Ids order the revisions: an imported one keeps its id only where it
    // still comes after every local one.
    if (!revisions.empty() && restored.id <= revisions.back().id) restored.id = 0;
    CILIA_ASSIGN_OR_RETURN(int64_t id, digests.AddDigest(restored));
    restored.id = id;
    revisions.push_back(restored);
  }
  for (const auto& r : dump.rollups) {
    CILIA_ASSIGN_OR_RETURN(auto local, digests.GetRollup(r.kind, r.period));
    if (!local) CILIA_RETURN_IF_ERROR(digests.PutRollup(r));
  }
  return Status::Ok();
}

}  // namespace cilia::memory
