// `cilia doctor`: one line per check, "ok", "WARN" (works, but worth a look)
// or "FAIL" (a problem: the exit code is 1), and for the last two what to do;
// `--json` gives the same as one object. Calls the network only with
// --online. It reads the data dir without the lock, which works beside a
// running server.
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <set>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/clock.h"
#include "core/data_dir_lock.h"
#include "core/log.h"
#include "core/system_zone.h"
#include "core/time.h"
#include "embed/factory.h"
#include "net/http_client.h"
#include "memory/excerpts/candidates.h"
#include "memory/registry.h"
#include "memory/upkeep/jobs.h"
#include "store/excerpt_repo.h"
#include "store/key_store.h"

namespace cilia::app {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinFreeBytes = uint64_t{200} << 20;
constexpr int kProbeTimeoutMs = 10000;
constexpr int kJobRunsRead = 100;      // enough to hold the newest run of every job
constexpr int kFailedItemsRead = 20;
constexpr int kCandidatesRead = 100;  // "100+" past that

enum class Verdict { kOk, kWarning, kProblem };

struct Check {
  std::string name;
  Verdict verdict = Verdict::kOk;
  std::string detail;
  std::string mend;  // what to do, unless ok
};

Check Ok(std::string name, std::string detail) { return {std::move(name), Verdict::kOk, std::move(detail), ""}; }
Check Warn(std::string name, std::string detail, std::string mend) {
  return {std::move(name), Verdict::kWarning, std::move(detail), std::move(mend)};
}
Check Fail(std::string name, std::string detail, std::string mend) {
  return {std::move(name), Verdict::kProblem, std::move(detail), std::move(mend)};
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk: return "ok";
    case Verdict::kWarning: return "warning";
    case Verdict::kProblem: return "problem";
  }
  return "problem";
}

const char* VerdictLabel(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk: return "ok";
    case Verdict::kWarning: return "WARN";
    case Verdict::kProblem: return "FAIL";
  }
  return "FAIL";
}

// Through the log's redaction: a base_url may carry "user:password@", an
// error message the key.
void Print(const Check& check) {
  std::printf("%-4s  %-18s %s\n", VerdictLabel(check.verdict), check.name.c_str(),
              RedactSecrets(check.detail).c_str());
  if (check.verdict != Verdict::kOk) std::printf("      %-18s -> %s\n", "", RedactSecrets(check.mend).c_str());
}

nlohmann::json ToJson(const Check& check) {
  nlohmann::json out = {{"name", check.name},
                        {"verdict", VerdictName(check.verdict)},
                        {"detail", RedactSecrets(check.detail)}};
  if (check.verdict != Verdict::kOk) out["mend"] = RedactSecrets(check.mend);
  return out;
}

// The path itself, or its nearest ancestor that exists.
fs::path NearestExisting(const std::string& path) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec);
  while (!fs::exists(at, ec) && at.has_relative_path()) at = at.parent_path();
  return at;
}

Check CheckDataDir(const std::string& data_dir) {
  std::error_code ec;
  if (fs::exists(data_dir, ec)) {
    if (!fs::is_directory(data_dir, ec)) {
      return Fail("data dir", fmt::format("{} is not a directory", data_dir),
                  "point --data or server.data_dir at a directory");
    }
    if (access(data_dir.c_str(), W_OK | X_OK) != 0) {
      return Fail("data dir", fmt::format("{} is not writable", data_dir),
                  "give the user running cilia write access to it, or choose another with --data");
    }
    return Ok("data dir", fmt::format("{} (writable)", data_dir));
  }
  fs::path parent = NearestExisting(data_dir);
  if (access(parent.c_str(), W_OK | X_OK) != 0) {
    return Fail("data dir", fmt::format("{} does not exist and {} is not writable", data_dir, parent.string()),
                fmt::format("create {} yourself, or choose another with --data", data_dir));
  }
  return Ok("data dir", fmt::format("{} (missing; created on first use)", data_dir));
}

Check CheckFreeDisk(const std::string& data_dir) {
  fs::path at = NearestExisting(data_dir);
  struct statvfs info {};
  if (statvfs(at.c_str(), &info) != 0) {
    return Fail("free disk", fmt::format("cannot read the free space of {}", at.string()), "check the mount");
  }
  uint64_t free_bytes = static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
  std::string amount = fmt::format("{:.1f} GB free", static_cast<double>(free_bytes) / 1e9);
  if (free_bytes < kMinFreeBytes) {
    return Fail("free disk", amount + " where the data dir is",
                "free some space: SQLite needs room for its WAL and for checkpoints");
  }
  return Ok("free disk", amount);
}

Check CheckServer(const std::string& data_dir) {
  std::string holder = DataDirHolder(data_dir);
  return Ok("server", holder.empty() ? "not running on this data dir" : holder + " holds this data dir");
}

Check CheckKeys(const Config& config) {
  if (!config.client_api_key.empty()) return Ok("keys", "CILIA_API_KEY is set (full access to namespace default)");
  std::string path = KeyStorePath(config);
  std::error_code ec;
  if (!fs::exists(path, ec)) return Ok("keys", "none yet; `cilia serve` creates one on its first start");
  auto keys = store::KeyStore::Open(path);
  if (!keys.ok()) {
    return Fail("keys", keys.status().message(), fmt::format("{} is damaged or not readable; restore it from a backup",
                                                             path));
  }
  size_t active = (*keys)->ActiveCount();
  if (active == 0) return Ok("keys", "none active; `cilia serve` creates a new one on its next start");
  return Ok("keys", fmt::format("{} active (`cilia keys list`)", active));
}

std::string ZoneNow(const TimeZone& tz) {
  int offset = tz.OffsetMinutes(Clock::System().Now());
  return fmt::format("{} (UTC{}{:02}:{:02} now)", tz.name(), offset < 0 ? '-' : '+', std::abs(offset) / 60,
                     std::abs(offset) % 60);
}

// The owner's days (digests, nightly_at, "yesterday") follow server.time_zone;
// one that differs from the machine's is often a default left unchanged.
Check CheckTimeZone(const Config& config) {
  auto tz = TimeZone::Load(config.server.time_zone);
  if (!tz.ok()) return Fail("time zone", tz.status().message(), "set server.time_zone to an IANA name");
  const std::string system_name = SystemZoneName();
  auto system = TimeZone::Load(system_name);
  if (!system.ok()) return Ok("time zone", ZoneNow(*tz) + "; this machine's zone is unknown");
  if (!SameZoneRules(tz->name(), system_name)) {
    return Warn("time zone", fmt::format("{}, but this machine's is {}", ZoneNow(*tz), ZoneNow(*system)),
                fmt::format("days and the nightly job follow server.time_zone: if the owner lives in {0}, set "
                            "time_zone = \"{0}\" under [server]", system_name));
  }
  return Ok("time zone", ZoneNow(*tz) + ", as this machine's");
}

// Job runs whose newest run failed, nightly items and extraction batches given up.
Check CheckJobs(const std::vector<std::shared_ptr<memory::Namespace>>& namespaces) {
  std::vector<std::string> failures;
  for (const auto& ns : namespaces) {
    auto history = memory::ListJobRuns(*ns, std::nullopt, std::nullopt, kJobRunsRead, kFailedItemsRead);
    if (!history.ok()) return Fail("jobs", history.status().message(), "the namespace's database is not readable");
    std::set<std::string> seen;
    for (const store::JobRun& run : history->runs) {
      if (!seen.insert(run.job).second) continue;  // newest run of each job only
      if (run.outcome == store::JobOutcome::kFailed) {
        failures.push_back(fmt::format("{}: {} failed ({})", ns->name(), run.job, run.error));
      } else if (run.outcome == store::JobOutcome::kPartial) {
        failures.push_back(fmt::format("{}: {} partly failed ({})", ns->name(), run.job, run.error));
      }
    }
    for (const store::NightlyItem& item : history->failed_items) {
      failures.push_back(fmt::format("{}: nightly item {} given up after {} tries ({})", ns->name(), item.item,
                                     item.attempts, item.error));
    }
    auto batches = ns->store().Read([](store::Database& db) { return store::ExcerptRepo(db).AllBatches(); });
    if (!batches.ok()) return Fail("jobs", batches.status().message(), "the namespace's database is not readable");
    for (const store::ExtractionBatch& batch : *batches) {
      if (batch.status != store::BatchStatus::kFailed) continue;
      failures.push_back(fmt::format("{}: an extraction batch given up after {} tries ({})", ns->name(), batch.attempts,
                                     batch.error));
    }
  }
  if (failures.empty()) return Ok("jobs", "no failed runs or items");
  std::string detail = failures.front();
  if (failures.size() > 1) detail += fmt::format("; and {} more", failures.size() - 1);
  return Warn("jobs", detail,
              "GET /v1/jobs (or the admin page) shows them; mend the cause (often the upstream or its key), "
              "then `cilia jobs run <job>`");
}

// What extraction may still spend today, per namespace, when it has a budget.
Check CheckExtractionBudget(const Config& config, const std::vector<std::shared_ptr<memory::Namespace>>& namespaces) {
  const int64_t budget = config.extraction.daily_token_budget;
  if (budget == 0) return Ok("extraction budget", "no daily limit (extraction.daily_token_budget = 0)");
  std::string left, spent_out;
  for (const auto& ns : namespaces) {
    auto spent = memory::ExtractionTokensToday(*ns, Clock::System().Now());
    if (!spent.ok()) return Fail("extraction budget", spent.status().message(), "the namespace's database is not readable");
    const int64_t remaining = std::max<int64_t>(0, budget - *spent);
    left += fmt::format("{}{}: {} spent, {} left", left.empty() ? "" : "; ", ns->name(), *spent, remaining);
    if (remaining == 0) spent_out += (spent_out.empty() ? "" : ", ") + ns->name();
  }
  const std::string detail =
      fmt::format("{} tokens a day{}{}", budget, left.empty() ? "" : " — today ", left.empty() ? "" : left);
  if (spent_out.empty()) return Ok("extraction budget", detail);
  return Warn("extraction budget", detail,
              fmt::format("extraction in {} waits for the next local day; raise extraction.daily_token_budget to "
                          "go on today",
                          spent_out));
}

Check CheckCandidates(const std::vector<std::shared_ptr<memory::Namespace>>& namespaces) {
  std::vector<std::string> waiting;
  size_t total = 0;
  for (const auto& ns : namespaces) {
    auto pending = memory::Candidates(*ns).List(store::CandidateStatus::kPending, {kCandidatesRead, std::nullopt});
    if (!pending.ok()) return Fail("candidates", pending.status().message(), "the namespace's database is not readable");
    if (pending->empty()) continue;
    total += pending->size();
    waiting.push_back(fmt::format("{}{} in {}", pending->size(), pending->size() == static_cast<size_t>(kCandidatesRead) ? "+" : "",
                                  ns->name()));
  }
  if (total == 0) return Ok("candidates", "none pending");
  std::string where;
  for (const std::string& one : waiting) where += (where.empty() ? "" : ", ") + one;
  return Warn("candidates", fmt::format("memories waiting for review: {}", where),
              "review them on the admin page (/admin) or GET /v1/candidates, then approve or discard each");
}

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

net::Headers AuthHeaders(const ProviderConfig& provider) {
  if (provider.kind == ProviderKind::kAnthropic) {
    return {{"x-api-key", provider.api_key}, {"anthropic-version", "2023-06-01"}};
  }
  return {{"Authorization", "Bearer " + provider.api_key}};
}

// Asks the provider for its model list: any answer proves it is reachable,
// a 401 or 403 that the key is refused.
Check ProbeProvider(const std::string& check_name, const ProviderConfig& provider) {
  net::HttpRequest request;
  request.method = "GET";
  request.url = TrimSlash(provider.base_url) + "/models";
  request.headers = AuthHeaders(provider);
  request.total_timeout_ms = kProbeTimeoutMs;
  auto reply = net::Send(request);
  if (!reply.ok()) {
    return Fail(check_name, reply.status().message(),
                fmt::format("check base_url ({}) and the network or proxy settings", provider.base_url));
  }
  if (reply->status == 401 || reply->status == 403) {
    return Fail(check_name, fmt::format("reachable, but the key is refused (HTTP {})", reply->status),
                "check the key in " + (provider.api_key_env.empty() ? "api_key" : provider.api_key_env));
  }
  return Ok(check_name, fmt::format("{} reachable (HTTP {} for /models)", provider.base_url, reply->status));
}

Check CheckProvider(const ProviderConfig& provider, bool online) {
  std::string name = "provider " + provider.name;
  if (provider.api_key.empty()) {
    std::string mend = provider.api_key_env.empty()
                           ? fmt::format("set api_key_env in the [[providers]] block of \"{}\"", provider.name)
                           : fmt::format("export {}=<the provider's key>", provider.api_key_env);
    return Fail(name, "no API key", mend);
  }
  if (online) return ProbeProvider(name, provider);
  std::string source = provider.api_key_env.empty() ? "api_key in the config" : provider.api_key_env;
  return Ok(name, fmt::format("{} at {}, key from {}", ProviderKindName(provider.kind), provider.base_url, source));
}

Check CheckModels(const Config& config) {
  if (config.models.chat.empty()) {
    return Ok("models", "models.chat is not set: the chat gateway is off, the memory API works");
  }
  return Ok("models", fmt::format("\"{}\" -> {}, extract {}", config.models.public_name, config.models.chat,
                                  config.models.extract));
}

Check ProbeEmbeddings(const ProviderConfig& provider, const EmbeddingConfig& embedding) {
  net::HttpRequest request;
  request.url = TrimSlash(provider.base_url) + "/embeddings";
  request.headers = AuthHeaders(provider);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = nlohmann::json{{"model", embedding.model}, {"input", {"cilia doctor"}}}.dump();
  request.total_timeout_ms = kProbeTimeoutMs;
  auto reply = net::Send(request);
  if (!reply.ok()) return Fail("embedder", reply.status().message(), "check the provider's base_url and the network");
  if (reply->status != 200) {
    return Fail("embedder", fmt::format("POST /embeddings answered HTTP {}", reply->status),
                fmt::format("check embedding.model (\"{}\") and the provider's key", embedding.model));
  }
  return Ok("embedder", fmt::format("openai via {}: {} answers", provider.name, embedding.model));
}

Check CheckEmbedder(const Config& config, bool online) {
  const EmbeddingConfig& embedding = config.embedding;
  switch (embedding.kind) {
    case EmbedderKind::kHash: {
      const std::string provider = config.providers.empty() ? "<provider>" : config.providers.front().name;
      return Warn("embedder",
                  fmt::format("hash (built in, {} dimensions): recall matches words, not meaning", embedding.dimensions),
                  fmt::format("for an OpenAI-compatible /embeddings endpoint, put this line at the top of the config: "
                              "embedding = {{ kind = \"openai\", provider = \"{}\", model = \"text-embedding-3-small\" }} "
                              "(docs/configuration.md, [embedding]), then `cilia jobs run reindex`",
                              provider));
    }
    case EmbedderKind::kLocal: {
      auto loaded = embed::MakeEmbedder(config);
      if (!loaded.ok()) {
        return Fail("embedder", loaded.status().message(),
                    embed::LocalEmbeddingBuiltIn()
                        ? "set embedding.model to a BERT-family embedding model in GGUF (docs/embedding.md)"
                        : "build with scripts/setup.sh and the default preset (docs/embedding.md), or use kind "
                          "\"hash\" or \"openai\"");
      }
      return Ok("embedder", (*loaded)->Describe());
    }
    case EmbedderKind::kOpenAI: {
      const ProviderConfig* provider = config.FindProvider(embedding.provider);
      if (!provider || provider->api_key.empty()) {
        return Fail("embedder", fmt::format("provider \"{}\" has no API key", embedding.provider),
                    "see the provider line above");
      }
      if (online) return ProbeEmbeddings(*provider, embedding);
      return Ok("embedder", fmt::format("openai via {}, model {}", provider->name, embedding.model));
    }
  }
  return Ok("embedder", EmbedderKindName(embedding.kind));
}


// The namespaces already on disk, opened for reading; none when the data dir
// is missing (doctor never creates it).
Result<std::vector<std::shared_ptr<memory::Namespace>>> OpenNamespaces(memory::Registry& registry) {
  std::vector<std::shared_ptr<memory::Namespace>> out;
  for (const std::string& name : registry.Names()) {
    CILIA_ASSIGN_OR_RETURN(auto ns, registry.Get(name));
    out.push_back(std::move(ns));
  }
  return out;
}

void AddDataChecks(const Config& config, std::vector<Check>& checks) {
  std::error_code ec;
  if (!fs::is_directory(fs::path(config.server.data_dir) / "ns", ec)) {
    checks.push_back(Ok("jobs", "no data yet"));
    checks.push_back(CheckExtractionBudget(config, {}));
    checks.push_back(Ok("candidates", "no data yet"));
    return;
  }
  auto registry = memory::Registry::Open(config);
  Result<std::vector<std::shared_ptr<memory::Namespace>>> namespaces = registry.status();
  if (registry.ok()) namespaces = OpenNamespaces(**registry);
  if (!namespaces.ok()) {
    checks.push_back(Fail("jobs", namespaces.status().message(), "the data dir is not readable; see the message"));
    return;
  }
  checks.push_back(CheckJobs(*namespaces));
  checks.push_back(CheckExtractionBudget(config, *namespaces));
  checks.push_back(CheckCandidates(*namespaces));
}

void Report(const std::vector<Check>& checks, bool as_json, Verdict worst) {
  if (!as_json) {
    for (const Check& check : checks) Print(check);
    return;
  }
  nlohmann::json out = {{"verdict", VerdictName(worst)}, {"checks", nlohmann::json::array()}};
  for (const Check& check : checks) out["checks"].push_back(ToJson(check));
  std::printf("%s\n", out.dump(2).c_str());
}

}  // namespace

int RunDoctor(const CommandLine& command_line) {
  const bool as_json = command_line.Has("json");
  auto config = LoadConfigForCommand(command_line);
  if (!config.ok()) {
    Report({Fail("config", config.status().message(), "mend what the message names (docs/configuration.md has every key)")},
           as_json, Verdict::kProblem);
    return kExitUsage;  // a bad config is exit 2 for every command
  }
  const bool online = command_line.Has("online");
  std::vector<Check> checks;
  checks.push_back(Ok("config", config->file.empty() ? "defaults and environment (no config file)" : config->file));
  checks.push_back(CheckDataDir(config->server.data_dir));
  checks.push_back(CheckFreeDisk(config->server.data_dir));
  checks.push_back(CheckServer(config->server.data_dir));
  checks.push_back(CheckKeys(*config));
  checks.push_back(CheckTimeZone(*config));
  for (const ProviderConfig& provider : config->providers) checks.push_back(CheckProvider(provider, online));
  checks.push_back(CheckModels(*config));
  checks.push_back(CheckEmbedder(*config, online));
  AddDataChecks(*config, checks);

  Verdict worst = Verdict::kOk;
  for (const Check& check : checks) worst = std::max(worst, check.verdict);
  Report(checks, as_json, worst);
  return worst == Verdict::kProblem ? kExitFailure : kExitOk;
}

}  // namespace cilia::app
