// The data commands: ingest, recall, export, import, jobs.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/commands.h"
#include "core/data_dir.h"
#include "core/data_dir_lock.h"
#include "memory/archive/archive.h"
#include "memory/transfer/export.h"
#include "ingest/importers.h"
#include "memory/upkeep/jobs.h"
#include "memory/recall/recall.h"
#include "memory/registry.h"

namespace cilia::app {

namespace {

struct Opened {
  Config config;
  std::unique_ptr<memory::Registry> registry;
  std::shared_ptr<memory::Namespace> ns;
};

// Loads the config and opens the command's namespace; a writing command
// also takes the data dir lock, so it never runs beside `cilia serve`.
Result<Opened> OpenNamespace(const CommandLine& cl, std::optional<DataDirLock>* lock, std::string_view holder) {
  Opened o;
  CILIA_ASSIGN_OR_RETURN(o.config, LoadConfigForCommand(cl));
  CILIA_RETURN_IF_ERROR(PrepareDataDir(o.config.server.data_dir));
  if (lock) {
    CILIA_ASSIGN_OR_RETURN(DataDirLock l, DataDirLock::Acquire(o.config.server.data_dir, holder));
    lock->emplace(std::move(l));
  }
  CILIA_ASSIGN_OR_RETURN(o.registry, memory::Registry::Open(o.config));
  CILIA_ASSIGN_OR_RETURN(o.ns, o.registry->Get(cl.Get("namespace", "default")));
  return o;
}

int Fail(const Status& st) {
  return ExitWithError(st, st.code() == Code::kInvalidArgument && st.message().rfind("config", 0) == 0 ? kExitUsage
                                                                                                        : kExitFailure);
}

}  // namespace

int RunIngest(const CommandLine& cl) {
  std::optional<DataDirLock> lock;
  auto format = ingest::ParseImportFormat(cl.Get("format", "auto"));
  if (!format.ok()) return ExitWithError(format.status(), kExitUsage);
  const std::string path = cl.positional.at(0);
  // Parse everything before opening the store: a bad file changes nothing.
  auto conversations = ingest::ReadImportFile(path, *format);
  if (!conversations.ok()) return ExitWithError(conversations.status(), kExitFailure);
  auto opened = OpenNamespace(cl, &lock, "cilia ingest");
  if (!opened.ok()) return Fail(opened.status());
  memory::Archive archive(*opened->ns);
  auto outcomes = archive.StoreAll(*conversations);
  if (!outcomes.ok()) return ExitWithError(outcomes.status().With(path), kExitFailure);
  int stored = 0, duplicates = 0;
  for (const auto& o : *outcomes) {
    stored += o.stored;
    duplicates += o.duplicates;
    Status st = archive.IndexConversation(o.conversation_row);
    if (!st.ok()) return ExitWithError(st.With("indexing"), kExitFailure);
  }
  std::cout << fmt::format("ingested {}: {} conversations, {} messages stored, {} duplicates; {} windows indexed\n",
                           path, outcomes->size(), stored, duplicates, opened->ns->WindowCount());
  return kExitOk;
}

int RunRecall(const CommandLine& cl) {
  auto opened = OpenNamespace(cl, nullptr, "");
  if (!opened.ok()) return Fail(opened.status());
  nlohmann::json body;
  std::string query;
  for (const auto& p : cl.positional) query += (query.empty() ? "" : " ") + p;
  body["query"] = query;
  if (cl.Has("limit")) {
    try {
      body["limit"] = std::stoi(cl.Get("limit"));
    } catch (const std::exception&) {
      return ExitWithError(Status::InvalidArgument("--limit: must be a number"), kExitUsage);
    }
  }
  if (cl.Has("after")) body["after"] = cl.Get("after");
  if (cl.Has("before")) body["before"] = cl.Get("before");
  if (cl.Has("now")) body["now"] = cl.Get("now");
  if (cl.Has("conversation")) body["conversation_id"] = cl.Get("conversation");
  if (cl.Has("exact")) body["exact"] = true;
  auto request = memory::ParseRecallRequest(body, opened->ns->tz(), opened->config.retrieval.default_limit,
                                           opened->config.retrieval.max_limit);
  if (!request.ok()) return ExitWithError(request.status(), kExitUsage);
  auto reply = memory::Recall(*opened->ns, *request, /*count_access=*/true);
  if (!reply.ok()) return ExitWithError(reply.status(), kExitFailure);
  if (cl.Has("json")) {
    std::cout << memory::ToJson(*reply, opened->ns->tz()).dump() << '\n';
    return kExitOk;
  }
  if (reply->results.empty()) std::cout << "no results\n";
  for (const auto& r : reply->results) {
    std::string ids;
    for (const auto& id : r.message_ids) ids += (ids.empty() ? "" : ", ") + id;
    std::cout << fmt::format("── {} · score {:.3f} · {} [{}]\n{}\n\n", r.conversation_id, r.score, r.id, ids, r.text);
  }
  return kExitOk;
}

int RunExport(const CommandLine& cl) {
  auto opened = OpenNamespace(cl, nullptr, "");
  if (!opened.ok()) return Fail(opened.status());
  Status st = memory::ExportNamespace(*opened->ns, std::cout);
  return st.ok() ? kExitOk : ExitWithError(st, kExitFailure);
}

int RunImport(const CommandLine& cl) {
  std::optional<DataDirLock> lock;
  const std::string path = cl.positional.at(0);
  std::ifstream in(path, std::ios::binary);
  if (!in) return ExitWithError(Status::NotFound("cannot read " + path), kExitFailure);
  auto opened = OpenNamespace(cl, &lock, "cilia import");
  if (!opened.ok()) return Fail(opened.status());
  auto summary = memory::ImportNamespace(*opened->ns, in);
  if (!summary.ok()) return ExitWithError(summary.status().With(path), kExitFailure);
  std::cout << fmt::format("imported {}: {} conversations, {} messages, {} duplicates, {} files; {} windows indexed\n",
                           path, summary->conversations, summary->messages, summary->duplicates, summary->files,
                           opened->ns->WindowCount());
  return kExitOk;
}

int RunJobs(const CommandLine& cl) {
  if (cl.positional.at(0) != "run") {
    return ExitWithError(Status::InvalidArgument("usage: cilia jobs run extract|nightly|reindex"), kExitUsage);
  }
  const std::string name = cl.positional.at(1);
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  auto job = memory::FindJob(*config, name);
  if (!job.ok()) return ExitWithError(job.status(), kExitUsage);
  std::optional<DataDirLock> lock;
  auto opened = OpenNamespace(cl, &lock, "cilia jobs run " + name);
  if (!opened.ok()) return Fail(opened.status());
  auto run = memory::RunJob(*job, *opened->ns, opened->registry->config(), opened->registry->clock(), "manual");
  if (!run.ok()) return ExitWithError(run.status(), kExitFailure);
  std::cout << fmt::format("{}: {}, {} items{}\n{}\n", name, run->outcome, run->items,
                           run->error.empty() ? "" : " — " + run->error, run->detail.dump(2));
  return run->outcome == store::JobOutcome::kFailed ? kExitFailure : kExitOk;
}

}  // namespace cilia::app
