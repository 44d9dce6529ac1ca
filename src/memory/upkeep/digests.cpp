#include "memory/upkeep/digests.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "core/log.h"
#include "text/harness.h"
#include "text/utf8.h"
#include "llm/chat_format.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "memory/excerpts/excerpt_merge.h"
#include "store/digest_repo.h"

namespace cilia::memory {

namespace {

using nlohmann::json;

constexpr size_t kMessageChars = 600;        // of one message in a day's transcript
constexpr size_t kTranscriptChars = 40000;   // of a day's whole transcript
constexpr size_t kEntryChars = 300;          // of one log entry
constexpr size_t kMaxEntries = 12;
constexpr size_t kLogCharsInRollup = 1500;   // of one daily log read into a rollup
constexpr size_t kWeekChars = 800, kMonthChars = 1000;
constexpr const char* kDaysThrough = "days_through";  // upkeep_state: every day up to it is settled

constexpr const char* kDayInstructions = R"(You keep the diary of a long conversation between a person and an AI companion. Below are all messages of one day, each with a number in brackets.

Write the day's log: what happened, what was said that matters, plans made, feelings shown, in at most 12 short entries, in the language the messages are written in. Report only what the messages say; do not invent or guess. Every entry cites the numbers of the messages it rests on. A day with nothing worth keeping gets no entries.

Answer with one JSON object and nothing else:
{"title": "a few words", "entries": [{"text": "...", "messages": [1, 4]}]})";

constexpr const char* kDigestInstructions = R"(You keep a short running digest of a long conversation between a person and an AI companion: what matters now — who the person is, what is going on in their life, open threads, the state of the relationship. Below are the current digest and the daily logs written since.

Revise the digest so that it stays true and current: keep what still matters, add what is new, drop what is over. At most 500 characters, in the language of the logs. Only what the digest and logs say; do not invent.

Answer with one JSON object and nothing else:
{"digest": "..."})";

constexpr const char* kRollupInstructions = R"(Below are the daily logs of one {period} of a long conversation between a person and an AI companion. Condense them into one {kind} summary of at most {chars} characters, in the language of the logs: the concrete events, the threads that ran through it, changes in plans or feelings. Only what the logs say; do not invent.

Answer with one JSON object and nothing else:
{{"summary": "..."}})";

// Cut to at most `max` code points, ending in "…" when something was cut.
std::string Clip(std::string_view text, size_t max) {
  if (text::CodePointCount(text) <= max) return std::string(text);
  return text::SubstrCodePoints(text, 0, max - 1) + "…";
}

std::string Trimmed(std::string_view text) {
  const char* space = " \t\r\n";
  size_t begin = text.find_first_not_of(space);
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(space) - begin + 1));
}


// A reply that is not what was asked for: the item failed (and is retried),
// as opposed to an upstream failure, which stops the run.
Status BadReply(std::string_view what) { return Status::InvalidArgument(fmt::format("the model's reply {}", what)); }

// Calls to the cheap model, counted into the outcome.
class Model {
 public:
  Model(llm::Route route, NightlyOutcome& outcome) : route_(std::move(route)), outcome_(outcome) {}

  std::string name() const { return route_.provider->name + "/" + route_.model; }

  // The JSON object the model answered `instructions` + `input` with.
  Result<json> AskJson(const std::string& instructions, const std::string& input, int max_tokens) {
    json body = {{"model", route_.model},
                 {"messages", json::array({{{"role", "system"}, {"content", instructions}},
                                           {{"role", "user"}, {"content", input}}})},
                 {"temperature", 0},
                 {"max_tokens", max_tokens}};
    ++outcome_.model_calls;
    CILIA_ASSIGN_OR_RETURN(const llm::AssistantTurn turn, llm::CompleteOpenAIShaped(route_, std::move(body)));
    outcome_.tokens_in += turn.usage.input;
    outcome_.tokens_out += turn.usage.output;
    std::optional<json> object = llm::JsonObjectIn(turn.text);
    if (!object) return BadReply("holds no JSON object");
    return *object;
  }

  // The string field `field` of the model's JSON answer, trimmed and clipped.
  Result<std::string> AskText(const std::string& instructions, const std::string& input, const char* field,
                              size_t max_chars) {
    CILIA_ASSIGN_OR_RETURN(json answer, AskJson(instructions, input, 1500));
    auto it = answer.find(field);
    if (it == answer.end() || !it->is_string()) return BadReply(fmt::format("has no \"{}\" text", field));
    std::string text = Trimmed(it->get<std::string>());
    if (text.empty()) return BadReply(fmt::format("has an empty \"{}\"", field));
    return Clip(text, max_chars);
  }

 private:
  llm::Route route_;
  NightlyOutcome& outcome_;
};

std::string Speaker(const store::DayMessage& m) { return m.name.empty() ? m.role : m.name; }

// The day's messages as numbered lines, the instructions' input: the owner's
// words of each (client harness blocks left out, text/harness.h).
std::string DayTranscript(const std::vector<store::DayMessage>& messages, const TimeZone& tz, size_t* shown) {
  std::string out;
  *shown = 0;
  for (const store::DayMessage& m : messages) {
    std::string line = fmt::format("[{}] {} · {} · {}:\n{}\n\n", *shown + 1, tz.FormatLocal(m.created_at, true),
                                   m.conversation_id, Speaker(m), Clip(text::OwnWords(m.text), kMessageChars));
    if (*shown > 0 && out.size() + line.size() > kTranscriptChars) break;
    out += line;
    ++*shown;
  }
  if (*shown < messages.size()) out += fmt::format("[{} later messages of the day are not shown]\n", messages.size() - *shown);
  return out;
}

// A cited message number, as the model may write it: 3, "3", "#3", "[3]".
std::optional<size_t> CitedNumber(const json& cited) {
  if (cited.is_number_integer()) {
    const int64_t n = cited.get<int64_t>();
    return n > 0 ? std::optional<size_t>(static_cast<size_t>(n)) : std::nullopt;
  }
  if (!cited.is_string()) return std::nullopt;
  std::string digits;
  for (char c : cited.get<std::string>()) {
    if (c >= '0' && c <= '9') digits += c;
    else if (c != '#' && c != '[' && c != ']' && c != ' ') return std::nullopt;
  }
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  const size_t n = std::stoul(digits);
  return n > 0 ? std::optional<size_t>(n) : std::nullopt;
}

// The log of the reply; entries citing no shown message are dropped. A
// reply whose entries were all dropped failed.
Result<store::DailyLog> ParseDayLog(const json& answer, const std::vector<store::DayMessage>& messages, size_t shown) {
  auto entries = answer.find("entries");
  if (entries == answer.end() || !entries->is_array()) return BadReply("has no \"entries\" array");
  store::DailyLog log;
  if (auto title = answer.find("title"); title != answer.end() && title->is_string()) {
    log.title = Clip(Trimmed(title->get<std::string>()), 60);
  }
  for (const json& e : *entries) {
    if (log.entries.size() == kMaxEntries) break;
    if (!e.is_object() || !e.contains("text") || !e["text"].is_string()) continue;
    store::LogEntry entry{Clip(Trimmed(e["text"].get<std::string>()), kEntryChars), {}};
    std::set<size_t> seen;
    for (const json& cited : e.value("messages", json::array())) {
      std::optional<size_t> n = CitedNumber(cited);
      if (!n || *n > shown || !seen.insert(*n).second) continue;
      const store::DayMessage& m = messages[*n - 1];
      entry.sources.emplace_back(m.conversation_id, m.message_id);
    }
    if (!entry.text.empty() && !entry.sources.empty()) log.entries.push_back(std::move(entry));
  }
  if (log.entries.empty() && !entries->empty()) return BadReply("cites no message of the day in any entry");
  return log;
}

struct Period {
  store::RollupKind kind;
  std::string label;
  CivilDate first, last;
  std::string item() const { return fmt::format("{}:{}", kind, label); }
};

Period WeekOf(CivilDate day) {
  const CivilDate monday = AddDays(day, 1 - Weekday(day));
  return {store::RollupKind::kWeek, IsoWeekLabel(day), monday, AddDays(monday, 6)};
}

Period MonthOf(CivilDate day) {
  const CivilDate first{day.year, day.month, 1};
  return {store::RollupKind::kMonth, fmt::format("{:04}-{:02}", day.year, day.month), first,
          CivilDate{day.year, day.month, DaysInMonth(day.year, day.month)}};
}

std::string LogsText(const std::vector<store::DailyLog>& logs, size_t per_log_chars) {
  std::string out;
  for (const store::DailyLog& log : logs) {
    out += fmt::format("## {}{}\n{}\n\n", log.day, log.title.empty() ? "" : " · " + log.title,
                       Clip(log.Text(), per_log_chars));
  }
  return out;
}

// One nightly run; the steps share the store, the model and the outcome.
class Nightly {
 public:
  Nightly(Namespace& ns, const Config& config, const Clock& clock, Model& model, NightlyOutcome& out)
      : ns_(ns), config_(config), now_(clock.Now()), model_(model), out_(out) {}

  Status Run() {
    const CivilDate today = ns_.tz().LocalDate(now_);
    const CivilDate yesterday = AddDays(today, -1);
    // Needs no model, so an unreachable upstream does not hold it back.
    CILIA_ASSIGN_OR_RETURN(MergeOutcome merged, MergeDuplicateExcerpts(ns_));
    out_.duplicates_merged = static_cast<int>(merged.merged.size());
    CILIA_ASSIGN_OR_RETURN(std::optional<CivilDate> first, FirstDay(yesterday));
    CILIA_ASSIGN_OR_RETURN(bool wrote, RewriteForgottenDays(first.value_or(AddDays(yesterday, 1))));
    if (first && out_.upstream_error.empty()) {
      CILIA_ASSIGN_OR_RETURN(bool logged, LogDays(*first, yesterday));
      wrote = wrote || logged;
    }
    if (!out_.upstream_error.empty()) return Status::Ok();
    CILIA_ASSIGN_OR_RETURN(bool revised, ReviseDigest());
    if (!out_.upstream_error.empty()) return Status::Ok();
    CILIA_RETURN_IF_ERROR(Rollups());
    if (wrote || revised) {
      const std::string day = today.ToString();
      CILIA_ASSIGN_OR_RETURN(std::string pack, ns_.store().Read([&](store::Database& db) {
        return BuildPack(db, day);
      }));
      CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
        return store::DigestRepo(db).PutPack(day, pack, now_, /*replace=*/true);
      }));
    }
    return Status::Ok();
  }

  // Digest and latest log before `day`: the text of DailyPack.
  static Result<std::string> BuildPack(store::Database& db, std::string_view day) {
    store::DigestRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto digest, repo.LatestDigest());
    CILIA_ASSIGN_OR_RETURN(auto logs, repo.Logs("", PreviousDay(day)));
    std::string out;
    if (digest) out += fmt::format("<digest>\n{}\n</digest>", digest->text);
    if (!logs.empty()) {
      const store::DailyLog& log = logs.back();
      out += fmt::format("{}<day_log date=\"{}\">\n{}\n</day_log>", out.empty() ? "" : "\n",
                         log.day, log.Text());
    }
    return out;
  }

 private:
  static std::string PreviousDay(std::string_view day) {
    auto parsed = ParseDate(day);
    return parsed.ok() ? AddDays(*parsed, -1).ToString() : std::string();
  }

  // The first day this run looks at: the day after the settled prefix, or on
  // a first run the catch-up window's start (never before the first message).
  Result<std::optional<CivilDate>> FirstDay(CivilDate yesterday) {
    CILIA_ASSIGN_OR_RETURN(auto through, ns_.store().Read([](store::Database& db) {
      return store::DigestRepo(db).GetState(kDaysThrough);
    }));
    CivilDate first = AddDays(yesterday, -config_.jobs.nightly_catch_up_days);
    if (through) {
      CILIA_ASSIGN_OR_RETURN(CivilDate settled, ParseDate(*through));
      first = AddDays(settled, 1);
    } else {
      CILIA_ASSIGN_OR_RETURN(auto oldest, ns_.store().Read([](store::Database& db) {
        return store::DigestRepo(db).FirstMessageAt();
      }));
      if (!oldest) return std::optional<CivilDate>();  // nothing to log yet; the window starts with the first message
      first = std::max(first, ns_.tz().LocalDate(*oldest));
    }
    if (first > yesterday) return std::optional<CivilDate>();
    return std::optional<CivilDate>(first);
  }

  // Settled days before `first` are pending again only when a forget took
  // their log (DigestRepo::ForgetCiting): they are written anew. True when a
  // log was written.
  Result<bool> RewriteForgottenDays(CivilDate first) {
    CILIA_ASSIGN_OR_RETURN(auto pending, ns_.store().Read([](store::Database& db) {
      return store::DigestRepo(db).PendingDays();
    }));
    bool wrote = false;
    for (const std::string& label : pending) {
      auto day = ParseDate(label);
      if (!day.ok() || !(*day < first)) continue;
      CILIA_RETURN_IF_ERROR(LogDay(*day, &wrote).status());
      if (!out_.upstream_error.empty()) break;
    }
    return wrote;
  }

  // Logs the days [first, last] that are not settled; moves days_through over
  // the settled prefix. True when a log was written.
  Result<bool> LogDays(CivilDate first, CivilDate last) {
    bool wrote = false, prefix_settled = true;
    int processed = 0;
    for (CivilDate day = first; day <= last && processed < kMaxNightlyDaysPerRun; day = AddDays(day, 1), ++processed) {
      CILIA_ASSIGN_OR_RETURN(store::NightlyStatus status, LogDay(day, &wrote));
      if (!out_.upstream_error.empty()) break;
      if (status == store::NightlyStatus::kPending) prefix_settled = false;
      if (prefix_settled) {
        CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
          return store::DigestRepo(db).PutState(kDaysThrough, day.ToString());
        }));
      }
    }
    return wrote;
  }

  // The day's item status after trying it.
  Result<store::NightlyStatus> LogDay(CivilDate day, bool* wrote) {
    const std::string label = day.ToString();
    const std::string item_name = "day:" + label;
    CILIA_ASSIGN_OR_RETURN(auto item, ns_.store().Read([&](store::Database& db) -> Result<std::optional<store::NightlyItem>> {
      store::DigestRepo repo(db);
      CILIA_ASSIGN_OR_RETURN(auto log, repo.GetLog(label));
      if (log) return std::optional<store::NightlyItem>(store::NightlyItem{item_name, store::NightlyStatus::kOk, 0, "", 0});
      return repo.GetItem(item_name);
    }));
    if (item && item->status != store::NightlyStatus::kPending) return item->status;
    const UnixMs begin = ns_.tz().StartOfDay(day), end = ns_.tz().StartOfDay(AddDays(day, 1));
    CILIA_ASSIGN_OR_RETURN(auto messages, ns_.store().Read([&](store::Database& db) {
      return store::DigestRepo(db).MessagesBetween(begin, end);
    }));
    if (messages.empty()) {
      ++out_.days_empty;
      return Settle(item_name, store::NightlyStatus::kEmpty, 0, "");
    }
    size_t shown = 0;
    const std::string transcript = DayTranscript(messages, ns_.tz(), &shown);
    Result<store::DailyLog> log = [&]() -> Result<store::DailyLog> {
      CILIA_ASSIGN_OR_RETURN(json answer, model_.AskJson(kDayInstructions, transcript, 3000));
      return ParseDayLog(answer, messages, shown);
    }();
    const int attempts = (item ? item->attempts : 0) + 1;
    if (!log.ok()) return Failed(item_name, attempts, log.status());
    if (log->entries.empty()) {
      ++out_.days_empty;
      return Settle(item_name, store::NightlyStatus::kEmpty, attempts, "");
    }
    log->day = label;
    log->messages = static_cast<int64_t>(messages.size());
    log->model = model_.name();
    log->created_at = log->updated_at = now_;
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) { return store::DigestRepo(db).PutLog(*log); }));
    out_.days_logged.push_back(label);
    *wrote = true;
    return Settle(item_name, store::NightlyStatus::kOk, attempts, "");
  }

  Result<store::NightlyStatus> Settle(const std::string& item, store::NightlyStatus status, int attempts, const std::string& error) {
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
      return store::DigestRepo(db).PutItem({item, status, attempts, error, now_});
    }));
    return status;
  }

  // Records a failed attempt: pending while attempts remain, else failed.
  // An upstream that could not be reached counts against nothing.
  Result<store::NightlyStatus> Failed(const std::string& item, int attempts, const Status& error) {
    if (llm::IsUpstreamFailure(error)) {
      out_.upstream_error = error.message();
      return store::NightlyStatus::kPending;
    }
    const bool last = attempts >= kMaxNightlyAttempts;
    out_.errors.push_back(fmt::format("{}: {}", item, error.message()));
    (last ? out_.skipped : out_.retried).push_back(item);
    return Settle(item, last ? store::NightlyStatus::kFailed : store::NightlyStatus::kPending, attempts, error.message());
  }

  // A new digest revision when logs exist that the current one has not read.
  Result<bool> ReviseDigest() {
    CILIA_ASSIGN_OR_RETURN(auto digest, LatestDigest(ns_));
    const std::string after = digest ? AddDays(*ParseDate(digest->through_day), 1).ToString() : "";
    CILIA_ASSIGN_OR_RETURN(auto logs, ns_.store().Read([&](store::Database& db) {
      return store::DigestRepo(db).Logs(after, "");
    }));
    // The newest kMaxNightlyDaysPerRun logs are enough to bring it up to date.
    if (logs.size() > static_cast<size_t>(kMaxNightlyDaysPerRun)) logs.erase(logs.begin(), logs.end() - kMaxNightlyDaysPerRun);
    if (logs.empty()) return false;
    const std::string input = fmt::format("<digest>\n{}\n</digest>\n\n<logs>\n{}</logs>",
                                          digest ? digest->text : "(none yet)", LogsText(logs, kLogCharsInRollup));
    auto text = model_.AskText(kDigestInstructions, input, "digest", kMaxDigestChars);
    if (!text.ok()) {
      if (llm::IsUpstreamFailure(text.status())) out_.upstream_error = text.status().message();
      else out_.errors.push_back("digest: " + text.status().message());
      return false;
    }
    store::Digest revised{0, logs.back().day, *text, model_.name(), now_};
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) {
      return store::DigestRepo(db).AddDigest(revised).status();
    }));
    out_.digest_updated = true;
    return true;
  }

  // Weekly, then monthly rollups of settled periods with logs, oldest first.
  Status Rollups() {
    CILIA_ASSIGN_OR_RETURN(auto through, ns_.store().Read([](store::Database& db) {
      return store::DigestRepo(db).GetState(kDaysThrough);
    }));
    if (!through) return Status::Ok();
    CILIA_ASSIGN_OR_RETURN(const CivilDate settled, ParseDate(*through));
    CILIA_ASSIGN_OR_RETURN(auto logs, ns_.store().Read([](store::Database& db) {
      return store::DigestRepo(db).Logs("", "");
    }));
    for (auto period_of : {WeekOf, MonthOf}) {
      std::map<std::string, Period> periods;  // by label, which sorts by time
      for (const store::DailyLog& log : logs) {
        auto day = ParseDate(log.day);
        if (!day.ok()) continue;
        Period p = period_of(*day);
        if (p.last <= settled) periods.emplace(p.label, p);
      }
      int made = 0;
      for (const auto& [label, period] : periods) {
        if (made == kMaxRollupsPerRun || !out_.upstream_error.empty()) break;
        CILIA_ASSIGN_OR_RETURN(bool tried, Rollup(period));
        made += tried ? 1 : 0;
      }
    }
    return Status::Ok();
  }

  // True when the period needed a model call.
  Result<bool> Rollup(const Period& period) {
    CILIA_ASSIGN_OR_RETURN(auto known, ns_.store().Read([&](store::Database& db) -> Result<std::optional<store::NightlyItem>> {
      store::DigestRepo repo(db);
      CILIA_ASSIGN_OR_RETURN(auto rollup, repo.GetRollup(period.kind, period.label));
      if (rollup) return std::optional<store::NightlyItem>(store::NightlyItem{period.item(), store::NightlyStatus::kOk, 0, "", 0});
      return repo.GetItem(period.item());
    }));
    if (known && known->status != store::NightlyStatus::kPending) return false;
    CILIA_ASSIGN_OR_RETURN(auto logs, ns_.store().Read([&](store::Database& db) {
      return store::DigestRepo(db).Logs(period.first.ToString(), period.last.ToString());
    }));
    const bool week = period.kind == store::RollupKind::kWeek;
    const size_t chars = week ? kWeekChars : kMonthChars;
    const std::string instructions =
        fmt::format(kRollupInstructions, fmt::arg("period", period.kind),
                    fmt::arg("kind", week ? "weekly" : "monthly"), fmt::arg("chars", chars));
    auto text = model_.AskText(instructions, "<logs>\n" + LogsText(logs, kLogCharsInRollup) + "</logs>", "summary", chars);
    const int attempts = (known ? known->attempts : 0) + 1;
    if (!text.ok()) {
      CILIA_RETURN_IF_ERROR(Failed(period.item(), attempts, text.status()).status());
      return true;
    }
    store::Rollup rollup{period.kind, period.label, period.first.ToString(), period.last.ToString(), *text, {},
                         model_.name(), now_};
    for (const store::DailyLog& log : logs) rollup.source_days.push_back(log.day);
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) { return store::DigestRepo(db).PutRollup(rollup); }));
    out_.rollups.push_back(period.item());
    CILIA_RETURN_IF_ERROR(Settle(period.item(), store::NightlyStatus::kOk, attempts, "").status());
    return true;
  }

  Namespace& ns_;
  const Config& config_;
  const UnixMs now_;
  Model& model_;
  NightlyOutcome& out_;
};

}  // namespace

int64_t NightlyOutcome::Items() const {
  return static_cast<int64_t>(days_logged.size() + rollups.size()) + (digest_updated ? 1 : 0) + duplicates_merged;
}

json NightlyOutcome::ToJson() const {
  json out = {{"days_logged", days_logged}, {"days_empty", days_empty}, {"retried", retried},
              {"skipped", skipped}, {"digest_updated", digest_updated}, {"rollups", rollups},
              {"duplicates_merged", duplicates_merged},
              {"model_calls", model_calls}, {"tokens_in", tokens_in}, {"tokens_out", tokens_out},
              {"errors", errors}};
  if (!upstream_error.empty()) out["upstream_error"] = upstream_error;
  return out;
}

Result<NightlyOutcome> RunNightly(Namespace& ns, const Config& config, const Clock& clock) {
  if (config.models.extract.empty()) {
    return Status::InvalidArgument("the nightly job needs a model: set models.extract (or models.chat)");
  }
  CILIA_ASSIGN_OR_RETURN(llm::Route route, llm::ResolveModel(config, config.models.extract));
  NightlyOutcome outcome;
  Model model(std::move(route), outcome);
  CILIA_RETURN_IF_ERROR(Nightly(ns, config, clock, model, outcome).Run());
  return outcome;
}

Result<std::optional<store::Digest>> LatestDigest(Namespace& ns) {
  return ns.store().Read([](store::Database& db) { return store::DigestRepo(db).LatestDigest(); });
}

Result<std::optional<store::DailyLog>> DailyLogOf(Namespace& ns, const std::string& day) {
  return ns.store().Read([&](store::Database& db) { return store::DigestRepo(db).GetLog(day); });
}

std::string DailyPack(Namespace& ns, UnixMs now) {
  const std::string day = ns.tz().LocalDate(now).ToString();
  auto pack = [&]() -> Result<std::string> {
    CILIA_ASSIGN_OR_RETURN(auto fixed, ns.store().Read([&](store::Database& db) {
      return store::DigestRepo(db).GetPack(day);
    }));
    if (fixed) return *fixed;
    CILIA_ASSIGN_OR_RETURN(std::string text, ns.store().Read([&](store::Database& db) {
      return Nightly::BuildPack(db, day);
    }));
    // Another turn may have fixed the day's pack meanwhile: its text wins.
    return ns.store().Write([&](store::Database& db) -> Result<std::string> {
      store::DigestRepo repo(db);
      CILIA_RETURN_IF_ERROR(repo.PutPack(day, text, now, /*replace=*/false));
      CILIA_ASSIGN_OR_RETURN(auto stored, repo.GetPack(day));
      return stored.value_or(text);
    });
  }();
  if (!pack.ok()) {
    LogWarn("daily pack of namespace {}: {}", ns.name(), pack.status().ToString());
    return "";
  }
  return *pack;
}

std::string IsoWeekLabel(CivilDate day) {
  const CivilDate thursday = AddDays(day, 4 - Weekday(day));
  const int64_t day_of_year = DaysSinceEpoch(thursday) - DaysSinceEpoch(CivilDate{thursday.year, 1, 1});
  return fmt::format("{:04}-W{:02}", thursday.year, day_of_year / 7 + 1);
}

}  // namespace cilia::memory
