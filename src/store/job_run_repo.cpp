#include "store/job_run_repo.h"

#include <fmt/format.h>

namespace cilia::store {

namespace {

using nlohmann::json;

constexpr const char* kSelect =
    "SELECT id, job, namespace, started_by, started_at, ended_at, outcome, error, items, detail FROM job_runs";

JobRun ReadRun(const Statement& s) {
  JobRun r;
  r.id = s.Int(0);
  r.job = s.Text(1);
  r.name_space = s.Text(2);
  r.started_by = s.Text(3);
  r.started_at = s.Int(4);
  r.ended_at = s.OptionalInt(5);
  r.outcome = StoredValue<JobOutcome>(s.TextView(6));
  r.error = s.Text(7);
  r.items = s.Int(8);
  json detail = json::parse(s.TextView(9), nullptr, /*allow_exceptions=*/false);
  if (detail.is_object()) r.detail = std::move(detail);
  return r;
}

}  // namespace

Result<int64_t> JobRunRepo::Start(std::string_view job, std::string_view name_space, std::string_view started_by,
                                  UnixMs now) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO job_runs(job, namespace, started_by, started_at, "
                                                    "outcome) VALUES (?, ?, ?, ?, 'running') RETURNING id"));
  s->Bind(1, job).Bind(2, name_space).Bind(3, started_by).Bind(4, now);
  return s->OneInt();
}

Status JobRunRepo::Finish(int64_t id, JobOutcome outcome, std::string_view error, int64_t items,
                          const json& detail, UnixMs now) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE job_runs SET ended_at = ?, outcome = ?, error = ?, "
                                                    "items = ?, detail = ? WHERE id = ?"));
  s->Bind(1, now).Bind(2, Name(outcome)).Bind(3, error).Bind(4, items).Bind(5, detail.dump()).Bind(6, id);
  CILIA_RETURN_IF_ERROR(s->Run());
  if (db_.Changes() == 0) return Status::NotFound(fmt::format("no job run {}", id));
  return Status::Ok();
}

Status JobRunRepo::Checkpoint(int64_t id, int64_t items, const json& detail) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE job_runs SET items = ?, detail = ? WHERE id = ? AND "
                                                    "outcome = 'running'"));
  s->Bind(1, items).Bind(2, detail.dump()).Bind(3, id);
  return s->Run();
}

Result<int64_t> JobRunRepo::TokensSince(std::string_view job, UnixMs since) {
  // job_runs_started finds the day's runs; the few rows' JSON is read here
  // rather than kept in columns of their own, as every job shapes its detail
  // (and in C++, so that one SQL text serves both backends).
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT detail FROM job_runs WHERE started_at >= ? AND job = ?"));
  s->Bind(1, since).Bind(2, job);
  CILIA_ASSIGN_OR_RETURN(auto details, s->All([](const Statement& r) { return r.Text(0); }));
  int64_t tokens = 0;
  for (const std::string& text : details) {
    const json detail = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!detail.is_object()) continue;
    for (const char* key : {"tokens_in", "tokens_out"}) {
      auto it = detail.find(key);
      if (it != detail.end() && it->is_number()) tokens += it->get<int64_t>();
    }
  }
  return tokens;
}

Result<std::vector<JobRun>> JobRunRepo::List(std::optional<std::string> job, std::optional<int64_t> before_id,
                                             int limit) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(
          std::string(kSelect) +
          " WHERE (CAST(?1 AS text) IS NULL OR job = ?1) AND (CAST(?2 AS bigint) IS NULL OR id < ?2) ORDER BY id DESC "
          "LIMIT ?3"));
  if (job)
    s->Bind(1, *job);
  else
    s->BindNull(1);
  s->Bind(2, before_id).Bind(3, limit);
  return s->All(ReadRun);
}

Result<std::optional<JobRun>> JobRunRepo::Latest(std::string_view job) {
  CILIA_ASSIGN_OR_RETURN(auto runs, List(std::string(job), std::nullopt, 1));
  if (runs.empty()) return std::optional<JobRun>();
  return std::optional<JobRun>(std::move(runs.front()));
}

Result<int64_t> JobRunRepo::MarkInterrupted(UnixMs now, std::string_view self) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE job_runs SET ended_at = ?1, outcome = 'failed', "
                                                    "error = 'interrupted: the process ended during the run' "
                                                    "WHERE outcome = 'running' AND NOT EXISTS (SELECT 1 FROM "
                                                    "job_claims c WHERE c.job = job_runs.job AND c.run_id = "
                                                    "job_runs.id AND c.expires_at >= ?1 AND "
                                                    "(CAST(?2 AS text) IS NULL OR c.holder = ?2))"));
  s->Bind(1, now);
  if (db_.dialect() == Dialect::kSqlite)
    s->Bind(2, self);
  else
    s->BindNull(2);
  CILIA_RETURN_IF_ERROR(s->Run());
  return int64_t{db_.Changes()};
}

Result<int64_t> JobRunRepo::DeleteBefore(UnixMs before) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("DELETE FROM job_runs WHERE started_at < ? AND outcome <> 'running'"));
  s->Bind(1, before);
  CILIA_RETURN_IF_ERROR(s->Run());
  return int64_t{db_.Changes()};
}

}  // namespace cilia::store
