// The data commands: ingest, import, recall, search, export, jobs. Beside a
// running `cilia serve` each one works through the server (server_link.h);
// otherwise on the data dir directly.
#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>

#include "api/import_routes.h"
#include "api/job_routes.h"
#include "app/commands.h"
#include "app/progress.h"
#include "app/server_link.h"
#include "core/data_dir.h"
#include "core/data_dir_lock.h"
#include "ingest/importers.h"
#include "memory/recall/recall.h"
#include "memory/registry.h"
#include "memory/transfer/export.h"
#include "memory/upkeep/jobs.h"

namespace cilia::app {

namespace {

using nlohmann::json;

struct Opened {
  std::unique_ptr<memory::Registry> registry;
  std::shared_ptr<memory::Namespace> ns;
};

// Opens the command's namespace; a writing command also takes the data dir
// lock, so it never runs beside `cilia serve`.
Result<Opened> OpenNamespace(const Config& config, const CommandLine& cl, std::optional<DataDirLock>* lock,
                             std::string_view holder) {
  Opened o;
  CILIA_RETURN_IF_ERROR(PrepareDataDir(config.server.data_dir));
  if (lock) {
    CILIA_ASSIGN_OR_RETURN(DataDirLock l, DataDirLock::Acquire(config.server.data_dir, holder));
    lock->emplace(std::move(l));
  }
  CILIA_ASSIGN_OR_RETURN(o.registry, memory::Registry::Open(config));
  CILIA_ASSIGN_OR_RETURN(o.ns, o.registry->Get(cl.Get("namespace", "default")));
  return o;
}

std::string NamespaceOf(const CommandLine& cl) { return cl.Get("namespace", "default"); }

// A reading command uses the server when it can, and reads the data dir
// itself when it cannot (reading beside a server is always allowed).
std::optional<ServerLink> ServerForReading(const Config& config, const CommandLine& cl, std::string_view doing) {
  auto link = FindServerLink(config, NamespaceOf(cl), doing);
  if (link.ok()) return *link;
  std::fprintf(stderr, "cilia: %s; reading the data dir directly\n", link.status().message().c_str());
  return std::nullopt;
}

// Counts what goes through to `target`, for export's progress.
class CountingBuffer : public std::streambuf {
 public:
  CountingBuffer(std::streambuf* target, Progress& progress) : target_(target), progress_(progress) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    Count(1);
    return target_->sputc(traits_type::to_char_type(c));
  }
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    Count(size);
    return target_->sputn(data, size);
  }
  int sync() override { return target_->pubsync(); }

 private:
  void Count(std::streamsize n) {
    written_ += n;
    progress_.Update(written_, 0, "bytes");
  }
  std::streambuf* target_;
  Progress& progress_;
  int64_t written_ = 0;
};

// Ingest and import: one path, the file's bytes through api::ImportFile,
// here or in the server (POST /v1/import).
int RunFileImport(const CommandLine& cl, const std::string& format) {
  if (format != "auto" && format != "cilia") {
    if (auto parsed = ingest::ParseImportFormat(format); !parsed.ok()) {
      return UsageError(cl.command, Status::InvalidArgument("--format: " + parsed.status().message() +
                                                            " (or cilia, a cilia export)"));
    }
  }
  const std::string path = cl.positional.at(0);
  std::ifstream in(path, std::ios::binary);
  if (!in) return ExitWithError(Status::NotFound("cannot read " + path), kExitFailure);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string text = std::move(bytes).str();
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);

  auto link = FindServerLink(*config, NamespaceOf(cl), "importing " + path);
  if (!link.ok()) return ExitWithError(link.status(), kExitFailure);
  const std::string file_name = std::filesystem::path(path).filename().string();
  Result<json> reply = json();
  if (*link) {
    Progress progress(fmt::format("{} {} through the server", cl.command, file_name));
    reply = CallServerJson(**link, "POST",
                           fmt::format("/v1/import?format={}&name={}", PercentEncode(format), PercentEncode(file_name)),
                           text, &progress);
    if (reply.status().code() == Code::kTooLarge) {
      reply = Status::TooLarge(reply.status().message() +
                               "; raise server.max_body_mb, or stop the server and run this again to import directly");
    }
  } else {
    std::optional<DataDirLock> lock;
    auto opened = OpenNamespace(*config, cl, &lock, "cilia " + cl.command);
    if (!opened.ok()) return ExitWithError(opened.status(), kExitFailure);
    Progress progress(fmt::format("{} {}", cl.command, file_name));
    reply = api::ImportFile(
        *opened->ns, opened->registry->config(), text, format, file_name,
        [&progress](int64_t done, int64_t total, std::string_view unit) { progress.Update(done, total, unit); });
  }
  if (!reply.ok()) return ExitWithError(reply.status().With(path), kExitFailure);
  if (cl.Has("json")) {
    std::cout << reply->dump() << '\n';
    return kExitOk;
  }
  std::string files = reply->contains("files") ? fmt::format(", {} files", (*reply)["files"].get<int>()) : "";
  std::cout << fmt::format("{} {} ({}): {} conversations, {} messages stored, {} duplicates{}\n",
                           cl.command == "ingest" ? "ingested" : "imported", path, reply->value("format", ""),
                           reply->value("conversations", 0), reply->value("stored", 0), reply->value("duplicates", 0),
                           files);
  std::cout << FormatExtractionEstimate(reply->value("extraction", json()));
  return kExitOk;
}

// recall and search: the same request body as POST /v1/recall and /v1/search.
Result<json> RecallBody(const CommandLine& cl) {
  json body;
  std::string query;
  for (const auto& p : cl.positional) query += (query.empty() ? "" : " ") + p;
  body["query"] = query;
  if (cl.Has("limit")) {
    int64_t limit = 0;
    const std::string text = cl.Get("limit");
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (error != std::errc() || end != text.data() + text.size()) {
      return Status::InvalidArgument("--limit: must be a number");
    }
    body["limit"] = limit;
  }
  if (cl.Has("after")) body["after"] = cl.Get("after");
  if (cl.Has("before")) body["before"] = cl.Get("before");
  if (cl.Has("now")) body["now"] = cl.Get("now");
  if (cl.Has("conversation")) body["conversation_id"] = cl.Get("conversation");
  if (cl.Has("exact")) body["exact"] = true;
  return body;
}

int RunRecallOrSearch(const CommandLine& cl, bool count_access) {
  auto body = RecallBody(cl);
  if (!body.ok()) return UsageError(cl.command, body.status());
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  Result<json> reply = json();
  if (auto link = ServerForReading(*config, cl, count_access ? "recalling" : "searching")) {
    reply = CallServerJson(*link, "POST", count_access ? "/v1/recall" : "/v1/search", body->dump());
    if (!reply.ok()) {
      const bool bad_request = reply.status().code() == Code::kInvalidArgument;
      return bad_request ? UsageError(cl.command, reply.status()) : ExitWithError(reply.status(), kExitFailure);
    }
  } else {
    auto opened = OpenNamespace(*config, cl, nullptr, "");
    if (!opened.ok()) return ExitWithError(opened.status(), kExitFailure);
    auto request = memory::ParseRecallRequest(*body, opened->ns->tz(), config->retrieval.default_limit,
                                              config->retrieval.max_limit);
    if (!request.ok()) return UsageError(cl.command, request.status());
    auto found = memory::Recall(*opened->ns, *request, count_access);
    if (!found.ok()) return ExitWithError(found.status(), kExitFailure);
    reply = memory::ToJson(*found, opened->ns->tz());
  }
  std::cout << (cl.Has("json") ? reply->dump() + "\n" : FormatResults(*reply));
  return kExitOk;
}

}  // namespace

std::string FormatResults(const json& reply) {
  const json results = reply.value("results", json::array());
  if (results.empty()) return "no results\n";
  std::string out;
  for (const json& r : results) {
    std::string text = r.value("text", "");
    // The text opens with "[YYYY-MM-DD · title]" (docs/api.md); that line
    // becomes the heading, with the score.
    std::string heading;
    if (size_t close = text.find("]\n"); text.starts_with("[") && close != std::string::npos) {
      heading = text.substr(1, close - 1);
      text = text.substr(close + 2);
    } else {
      heading = fmt::format("{} · {}", r.value("created_at", "").substr(0, 10), r.value("conversation_id", ""));
    }
    out += fmt::format("{}{} · {:.3f}\n{}\n", out.empty() ? "" : "\n", heading, r.value("score", 0.0), text);
  }
  return out;
}

std::string FormatJobRun(const json& run) {
  const std::string error = run.value("error", "");
  return fmt::format("{}: {}, {} items{}\n{}\n", run.value("job", ""), run.value("outcome", ""),
                     run.value("items", int64_t{0}), error.empty() ? "" : " — " + error,
                     run.value("detail", json::object()).dump(2));
}

std::string FormatExtractionEstimate(const json& estimate) {
  if (!estimate.is_object()) return "";
  const int64_t batches = estimate.value("batches", int64_t{0});
  if (batches == 0) return "extraction: nothing new to extract\n";
  const int64_t budget = estimate.value("daily_token_budget", int64_t{0});
  const json days = estimate.value("days_at_budget", json());
  std::string pace = fmt::format("at most {} batches a run", estimate.value("max_batches_per_run", 0));
  if (budget > 0 && days.is_number()) {
    pace += fmt::format(", daily_token_budget {}: about {} day{}", budget, days.get<int64_t>(),
                        days.get<int64_t>() == 1 ? "" : "s");
  }
  std::string out = fmt::format(
      "extraction: {} batches, about {} prompt tokens (estimated), for {} messages not extracted yet\n", batches,
      estimate.value("estimated_prompt_tokens", int64_t{0}), estimate.value("messages", int64_t{0}));
  if (estimate.value("automatic", true)) {
    return out + fmt::format("  the extract job takes them in its next runs ({})\n", pace);
  }
  return out + fmt::format("  {} of the batches are imported history, which is extracted only when asked: "
                           "`cilia jobs run extract --backfill` (or backfill = true under [extraction]); then {}\n",
                           estimate.value("waiting_batches", int64_t{0}), pace);
}

int RunIngest(const CommandLine& cl) { return RunFileImport(cl, cl.Get("format", "auto")); }

int RunImport(const CommandLine& cl) { return RunFileImport(cl, cl.Get("format", "auto")); }

int RunRecall(const CommandLine& cl) { return RunRecallOrSearch(cl, /*count_access=*/true); }

int RunSearch(const CommandLine& cl) { return RunRecallOrSearch(cl, /*count_access=*/false); }

int RunExport(const CommandLine& cl) {
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  if (auto link = ServerForReading(*config, cl, "exporting")) {
    Progress progress("export through the server");
    Status st = DownloadFromServer(*link, "/v1/export", std::cout, &progress);
    return st.ok() ? kExitOk : ExitWithError(st, kExitFailure);
  }
  auto opened = OpenNamespace(*config, cl, nullptr, "");
  if (!opened.ok()) return ExitWithError(opened.status(), kExitFailure);
  Progress progress("export");
  CountingBuffer counting(std::cout.rdbuf(), progress);
  std::ostream out(&counting);
  Status st = memory::ExportNamespace(*opened->ns, out);
  out.flush();
  return st.ok() ? kExitOk : ExitWithError(st, kExitFailure);
}

int RunJobs(const CommandLine& cl) {
  if (cl.positional.at(0) != "run") {
    return UsageError(cl.command, Status::InvalidArgument(fmt::format("unknown jobs action \"{}\"", cl.positional[0])));
  }
  const std::string name = cl.positional.at(1);
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  auto job = memory::FindJob(*config, name);
  if (!job.ok()) return UsageError(cl.command, job.status());
  auto link = FindServerLink(*config, NamespaceOf(cl), "running " + name);
  if (!link.ok()) return ExitWithError(link.status(), kExitFailure);
  memory::JobRunOptions options;
  options.backfill = cl.Has("backfill");
  if (options.backfill && !job->takes_backfill) {
    return UsageError(cl.command, Status::InvalidArgument(fmt::format("--backfill: only for extract, not {}", name)));
  }
  Result<json> run = json();
  if (*link) {
    Progress progress(fmt::format("jobs run {} in the server", name));
    run = CallServerJson(**link, "POST",
                         fmt::format("/v1/jobs/{}/run{}", PercentEncode(name), options.backfill ? "?backfill=true" : ""),
                         "", &progress);
  } else {
    std::optional<DataDirLock> lock;
    auto opened = OpenNamespace(*config, cl, &lock, "cilia jobs run " + name);
    if (!opened.ok()) return ExitWithError(opened.status(), kExitFailure);
    Progress progress("jobs run " + name);
    progress.StartTicker();
    auto recorded =
        memory::RunJob(*job, *opened->ns, opened->registry->config(), opened->registry->clock(), "manual", options);
    run = recorded.ok() ? Result<json>(api::JobRunJson(*recorded)) : Result<json>(recorded.status());
  }
  if (!run.ok()) return ExitWithError(run.status(), kExitFailure);
  std::cout << (cl.Has("json") ? run->dump() + "\n" : FormatJobRun(*run));
  // A partial run did not do all of its work either: a script should notice.
  const std::string outcome = run->value("outcome", "");
  return outcome == "failed" || outcome == "partial" ? kExitFailure : kExitOk;
}

}  // namespace cilia::app
