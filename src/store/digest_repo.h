// What the nightly job writes and reads: the daily logs (each entry citing
// its messages), the running digest, weekly and monthly rollups, the job's
// work items, and the BP2 text fixed per local day. Logs, digests and
// rollups are derived by a model but carried by export (a model run is not
// free to repeat); work items and packs are bookkeeping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"
#include "store/record_values.h"

namespace cilia::store {

// One cited message: (conversation external id, public message id).
using MessageRef = std::pair<std::string, std::string>;

struct LogEntry {
  std::string text;
  std::vector<MessageRef> sources;  // at least one
};

struct DailyLog {
  std::string day;  // YYYY-MM-DD, the owner's zone
  std::string title;
  std::vector<LogEntry> entries;
  int64_t messages = 0;  // messages the day had
  std::string model;     // "<provider>/<id>"
  UnixMs created_at = 0;
  UnixMs updated_at = 0;

  // "- entry" lines, without the citations.
  std::string Text() const;
};

struct Digest {
  int64_t id = 0;
  std::string through_day;  // the last day whose log it has read
  std::string text;
  std::string model;
  UnixMs created_at = 0;
};

struct Rollup {
  RollupKind kind = RollupKind::kWeek;
  std::string period;  // "2026-W22" or "2026-05"
  std::string first_day, last_day;
  std::string text;
  std::vector<std::string> source_days;
  std::string model;
  UnixMs created_at = 0;
};

// A nightly work item ("day:…", "week:…", "month:…").
struct NightlyItem {
  std::string item;
  NightlyStatus status = NightlyStatus::kPending;
  int attempts = 0;
  std::string error;
  UnixMs updated_at = 0;
};

// A message as the nightly job reads it.
struct DayMessage {
  std::string conversation_id;  // external id
  std::string message_id;       // public id
  std::string role, name, text;
  UnixMs created_at = 0;
};

class DigestRepo {
 public:
  explicit DigestRepo(Database& db) : db_(db) {}

  Status PutLog(const DailyLog& log);
  Result<std::optional<DailyLog>> GetLog(std::string_view day);
  // Logs of days in [first_day, last_day], by day; "" leaves that end open.
  Result<std::vector<DailyLog>> Logs(std::string_view first_day, std::string_view last_day);

  // Stores a revision (its id is ignored unless restoring) and returns its id.
  Result<int64_t> AddDigest(const Digest& d);
  Result<std::optional<Digest>> LatestDigest();
  Result<std::vector<Digest>> AllDigests();

  Status PutRollup(const Rollup& r);
  Result<std::optional<Rollup>> GetRollup(RollupKind kind, std::string_view period);
  // By kind, then period.
  Result<std::vector<Rollup>> AllRollups();
  Result<std::optional<Rollup>> LatestRollup(RollupKind kind);

  Result<std::optional<NightlyItem>> GetItem(std::string_view item);
  Status PutItem(const NightlyItem& item);
  // Items that failed for good, newest first.
  Result<std::vector<NightlyItem>> FailedItems(int limit);

  Result<std::optional<std::string>> GetState(std::string_view key);
  Status PutState(std::string_view key, std::string_view value);

  Result<std::optional<std::string>> GetPack(std::string_view day);
  // Stores the day's pack; `replace` false keeps one that is there already.
  Status PutPack(std::string_view day, std::string_view text, UnixMs now, bool replace);
  // Retention: drops packs of days before `day`; returns how many.
  Result<int64_t> DeletePacksBefore(std::string_view day);

  // Forget (DESIGN.md §4): the logs citing the message (or, without one, any
  // message of the conversation) go, and so do the digest revisions that read
  // them, the rollups made from them and the packs that may show them; those
  // days and rollups are pending again, for the next nightly run to write
  // anew without the forgotten words. Returns the days whose logs went.
  Result<std::vector<std::string>> ForgetCiting(std::string_view conversation_id,
                                                std::optional<std::string_view> message_id, UnixMs now);
  // Days ("YYYY-MM-DD") whose item is pending, earliest first.
  Result<std::vector<std::string>> PendingDays();

  // Messages with text created in [begin, end), by time then id (a message
  // without text, a tool call or result or a system prompt, says nothing to log).
  Result<std::vector<DayMessage>> MessagesBetween(UnixMs begin, UnixMs end);
  // The time of the oldest message, or nullopt when there is none.
  Result<std::optional<UnixMs>> FirstMessageAt();

 private:
  Database& db_;
};

}  // namespace cilia::store
