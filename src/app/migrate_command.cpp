// `cilia migrate --from SRC --to DST`: copies every namespace of one store
// into another (SQLite data dir or PostgreSQL database, either way), each
// through the lossless export/import of memory/transfer/export.h, by way of
// a temp file so that a big namespace's dump never sits in memory as text.
//
// Resumable without wiping anything: import writes a namespace's records in
// one transaction, so an interrupted run leaves each target namespace either
// complete (its export equals the source's: skipped, its pending indexing
// finished) or without records (copied). A target namespace with other
// records is refused, named, before anything is written.
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <utility>

#include "app/commands.h"
#include "app/progress.h"
#include "core/data_dir.h"
#include "core/data_dir_lock.h"
#include "memory/archive/archive.h"
#include "memory/registry.h"
#include "memory/transfer/export.h"
#include "store/message_repo.h"

namespace cilia::app {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUsage = "sqlite:DIR or postgresql://…";

struct StoreSpec {
  bool postgres = false;
  std::string location;  // the data dir, or the connection URL
  std::string label;     // for messages: never a password
};

Result<StoreSpec> ParseStoreSpec(std::string_view flag, const std::string& text) {
  StoreSpec spec;
  if (text.starts_with("sqlite:") && text.size() > 7) {
    spec.location = text.substr(7);
    spec.label = "sqlite:" + spec.location;
  } else if (text.starts_with("postgresql://") || text.starts_with("postgres://")) {
    spec.postgres = true;
    spec.location = text;
    spec.label = RedactedStoreUrl(text);
  } else {
    return Status::InvalidArgument(fmt::format("--{}: \"{}\" is not {}", flag, text, kUsage));
  }
  return spec;
}

bool SameStore(const StoreSpec& a, const StoreSpec& b) {
  if (a.postgres != b.postgres) return false;
  if (a.postgres) return a.location == b.location;
  auto normal = [](const std::string& dir) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec).lexically_normal();
    return p.has_filename() ? p : p.parent_path();  // "dir/" is "dir"
  };
  return normal(a.location) == normal(b.location);
}

// A folder of the system's temp dir for the dumps (and a PostgreSQL side's
// local caches), removed when done.
class WorkDir {
 public:
  static Result<WorkDir> Make() {
    std::string pattern = (fs::temp_directory_path() / "cilia-migrate-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      return Status::IOError("cannot create a temp dir in " + fs::temp_directory_path().string());
    return WorkDir(pattern);
  }
  WorkDir(WorkDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  WorkDir& operator=(WorkDir&&) = delete;
  ~WorkDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  explicit WorkDir(fs::path path) : path_(std::move(path)) {}
  fs::path path_;
};

// One end of the copy: the store opened with the command's config (its
// embedder, index and retrieval settings) and the data dir's lock on SQLite.
struct Side {
  std::optional<DataDirLock> lock;
  std::unique_ptr<memory::Registry> registry;
};

Result<Side> OpenSide(Config config, const StoreSpec& spec, bool source, const fs::path& cache_dir) {
  Side side;
  if (spec.postgres) {
    config.store.kind = StoreKind::kPostgres;
    config.store.url = spec.location;
    // This run's own local caches, so that nothing lands in another data dir.
    config.server.data_dir = cache_dir.string();
  } else {
    if (source && !fs::is_directory(spec.location)) {
      return Status::NotFound(fmt::format("source data dir {} does not exist", spec.location));
    }
    if (!source) CILIA_RETURN_IF_ERROR(PrepareDataDir(spec.location));
    auto lock = DataDirLock::Acquire(spec.location, "cilia migrate");
    if (!lock.ok()) {
      if (lock.status().code() != Code::kBusy) return lock.status();
      const std::string holder = DataDirHolder(spec.location);
      return Status::Busy(fmt::format("data dir {} is in use by a running {}; stop it before migrating", spec.location,
                                      holder.empty() ? "process" : holder));
    }
    side.lock.emplace(std::move(*lock));
    config.store.kind = StoreKind::kSqlite;
    config.store.url.clear();
    config.server.data_dir = spec.location;
  }
  auto registry = memory::Registry::Open(config);
  if (!registry.ok()) return registry.status();  // PostgreSQL's names the store
  side.registry = std::move(*registry);
  return side;
}

Status ExportToFile(memory::Namespace& ns, const fs::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError("cannot write " + file.string());
  CILIA_RETURN_IF_ERROR(memory::ExportNamespace(ns, out));
  out.close();
  return out ? Status::Ok() : Status::IOError("writing " + file.string() + " failed");
}

Result<bool> SameBytes(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::file_size(a, ec) != fs::file_size(b, ec) || ec) return false;
  std::ifstream in_a(a, std::ios::binary), in_b(b, std::ios::binary);
  if (!in_a || !in_b) return Status::IOError("cannot read " + a.string() + " or " + b.string());
  std::string chunk_a(1 << 16, '\0'), chunk_b(1 << 16, '\0');
  while (in_a && in_b) {
    in_a.read(chunk_a.data(), static_cast<std::streamsize>(chunk_a.size()));
    in_b.read(chunk_b.data(), static_cast<std::streamsize>(chunk_b.size()));
    if (in_a.gcount() != in_b.gcount() ||
        chunk_a.compare(0, static_cast<size_t>(in_a.gcount()), chunk_b, 0, static_cast<size_t>(in_b.gcount())) != 0) {
      return false;
    }
  }
  return true;
}

// A dump of a namespace without records: its header line only.
bool HeaderOnly(const fs::path& dump) {
  std::ifstream in(dump, std::ios::binary);
  std::string line;
  std::getline(in, line);
  return in.peek() == std::ifstream::traits_type::eof();
}

// Copies a namespace into an empty one, and checks that the copy exports the
// source's bytes.
Result<memory::ImportSummary> CopyNamespace(memory::Namespace& source, memory::Namespace& target,
                                            const fs::path& source_dump, const fs::path& target_dump) {
  CILIA_RETURN_IF_ERROR(ExportToFile(source, source_dump));
  std::ifstream in(source_dump, std::ios::binary);
  CILIA_ASSIGN_OR_RETURN(memory::ImportSummary summary, memory::ImportNamespace(target, in));
  CILIA_RETURN_IF_ERROR(ExportToFile(target, target_dump));
  CILIA_ASSIGN_OR_RETURN(bool same, SameBytes(source_dump, target_dump));
  if (!same) return Status::Internal("the copy's export differs from the source's");
  return summary;
}

enum class TargetState { kEmpty, kComplete, kForeign };

// What the target holds of a namespace: no records, the source's (the same
// export), or others.
Result<TargetState> StateInTarget(memory::Namespace& source, memory::Namespace& target, const fs::path& source_dump,
                                  const fs::path& target_dump) {
  CILIA_RETURN_IF_ERROR(ExportToFile(target, target_dump));
  if (HeaderOnly(target_dump)) return TargetState::kEmpty;
  CILIA_RETURN_IF_ERROR(ExportToFile(source, source_dump));
  CILIA_ASSIGN_OR_RETURN(bool same, SameBytes(source_dump, target_dump));
  return same ? TargetState::kComplete : TargetState::kForeign;
}

struct Counts {
  int namespaces = 0;
  int skipped = 0;
  int64_t conversations = 0;
  int64_t messages = 0;
  int64_t files = 0;
};

}  // namespace

int RunMigrate(const CommandLine& cl) {
  if (!cl.Has("from") || !cl.Has("to")) {
    return UsageError(cl.command, Status::InvalidArgument(fmt::format("--from and --to are both needed ({})", kUsage)));
  }
  auto from = ParseStoreSpec("from", cl.Get("from"));
  if (!from.ok()) return UsageError(cl.command, from.status());
  auto to = ParseStoreSpec("to", cl.Get("to"));
  if (!to.ok()) return UsageError(cl.command, to.status());
  if (SameStore(*from, *to)) {
    return UsageError(cl.command,
                      Status::InvalidArgument(fmt::format("--from and --to are the same store ({})", from->label)));
  }
  auto config = LoadConfigForCommand(cl);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  const auto started = std::chrono::steady_clock::now();

  auto work = WorkDir::Make();
  if (!work.ok()) return ExitWithError(work.status(), kExitFailure);
  auto source = OpenSide(*config, *from, /*source=*/true, work->path() / "from");
  if (!source.ok()) return ExitWithError(source.status(), kExitFailure);
  auto target = OpenSide(*config, *to, /*source=*/false, work->path() / "to");
  if (!target.ok()) return ExitWithError(target.status(), kExitFailure);
  const fs::path source_dump = work->path() / "source.jsonl";
  const fs::path target_dump = work->path() / "target.jsonl";

  std::vector<std::string> names = source->registry->Names();
  if (cl.Has("namespace")) {
    const std::string only = cl.Get("namespace");
    if (std::find(names.begin(), names.end(), only) == names.end()) {
      return ExitWithError(Status::NotFound(fmt::format("{} has no namespace \"{}\"", from->label, only)),
                           kExitFailure);
    }
    names = {only};
  }

  // First what each target namespace holds, so that a refusal comes before
  // anything is written.
  const std::vector<std::string> there = target->registry->Names();
  const std::set<std::string> in_target(there.begin(), there.end());
  std::vector<TargetState> states;
  std::vector<int64_t> message_counts;
  int64_t total_messages = 0;
  std::vector<std::string> foreign;
  for (const std::string& name : names) {
    auto src = source->registry->Get(name);
    if (!src.ok()) return ExitWithError(src.status().With(name), kExitFailure);
    auto count = (*src)->store().Read([](store::Database& db) { return store::MessageRepo(db).CountMessages(); });
    if (!count.ok()) return ExitWithError(count.status().With(name), kExitFailure);
    message_counts.push_back(*count);
    total_messages += *count;
    Result<TargetState> state = TargetState::kEmpty;
    if (in_target.count(name)) {
      auto dst = target->registry->Get(name);
      state = dst.ok() ? StateInTarget(**src, **dst, source_dump, target_dump) : Result<TargetState>(dst.status());
    }
    if (!state.ok()) return ExitWithError(state.status().With(name), kExitFailure);
    if (*state == TargetState::kForeign) foreign.push_back(name);
    states.push_back(*state);
  }
  if (!foreign.empty()) {
    std::string list;
    for (const std::string& name : foreign) list += (list.empty() ? "\"" : ", \"") + name + "\"";
    return ExitWithError(
        Status::Conflict(fmt::format("{} already holds namespace {} with other records than {}; migrate never "
                                     "overwrites them: remove them from the target, or copy the others one by one "
                                     "with --namespace; nothing was copied",
                                     to->label, list, from->label)),
        kExitFailure);
  }

  std::fprintf(stderr, "migrating %zu namespace%s from %s to %s\n", names.size(), names.size() == 1 ? "" : "s",
               from->label.c_str(), to->label.c_str());
  Counts counts;
  int64_t messages_done = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    auto src = source->registry->Get(name);
    auto dst = src.ok() ? target->registry->Get(name) : src;
    if (!dst.ok()) return ExitWithError(dst.status().With(name), kExitFailure);
    if (states[i] == TargetState::kComplete) {
      // An interrupted run may have committed the records but not finished
      // windowing them.
      Status st = memory::Archive(**dst).IndexPending();
      if (!st.ok()) return ExitWithError(st.With(name), kExitFailure);
      messages_done += message_counts[i];
      ++counts.skipped;
      std::fprintf(stderr, "  %s: already complete in the target, skipped\n", name.c_str());
      continue;
    }
    Result<memory::ImportSummary> copied = memory::ImportSummary();
    {
      Progress progress(fmt::format("migrate {}", name));
      progress.Update(messages_done, total_messages, "messages");
      progress.StartTicker();
      copied = CopyNamespace(**src, **dst, source_dump, target_dump);
      messages_done += message_counts[i];
      if (copied.ok()) progress.Update(messages_done, total_messages, "messages");
    }  // the bar is gone before anything else is printed
    if (!copied.ok()) return ExitWithError(copied.status().With("namespace " + name), kExitFailure);
    const memory::ImportSummary& summary = *copied;
    ++counts.namespaces;
    counts.conversations += summary.conversations;
    counts.messages += summary.messages;
    counts.files += summary.files;
    std::fprintf(stderr, "  %s: %d conversations, %d messages, %d files\n", name.c_str(), summary.conversations,
                 summary.messages, summary.files);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << fmt::format(
      "migrated {} namespaces ({} already complete) from {} to {}: {} conversations, {} messages, "
      "{} files in {:.1f} s\n",
      counts.namespaces, counts.skipped, from->label, to->label, counts.conversations, counts.messages, counts.files,
      seconds);
  std::cout << "API keys (DATA/system.db) stay with each gateway and were not copied: `cilia keys create` on the "
               "target's gateway\n";
  return kExitOk;
}

}  // namespace cilia::app
