// Per-turn records of the chat gateway: one row per request, which is both
// the usage log (tokens, cache, latency) and the owner's record of what was
// injected into that turn. Operational data: retention may drop old rows,
// and a forget scrubs every record that carries the forgotten words.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

// What `injected` becomes when a forget scrubs a record.
inline constexpr std::string_view kForgottenInjected = R"({"forgotten":true})";

struct TurnRecord {
  int64_t id = 0;
  UnixMs started_at = 0;
  std::string local_day;        // "YYYY-MM-DD" in the owner's zone, computed by the caller
  std::string conversation_id;  // external id; "" when none (guide-dog, errors before identity)
  std::string endpoint;         // "chat.completions" or "messages"
  std::string requested_model;
  std::string upstream_model;  // "<provider>/<id>"
  bool streamed = false;
  int http_status = 200;
  std::string error;  // "" when the turn succeeded
  // input_tokens counts every prompt token, cached ones included (for
  // Anthropic: input + cache read + cache write), so that the hit rate is
  // cache_read_tokens / input_tokens for every upstream alike.
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;  // the part of output_tokens spent reasoning; 0 when the upstream does not say
  int64_t first_byte_ms = -1;  // -1: nothing reached the client
  int64_t total_ms = 0;
  int recall_rounds = 0;
  // Menu lines, profile names, recall queries…; the gateway decides the shape.
  nlohmann::json injected = nlohmann::json::object();
  // (conversation external id, public message id: the caller's id, else
  // m_<n>) of every message the injected text quoted.
  std::vector<std::pair<std::string, std::string>> sources;
};

class TurnRepo {
 public:
  explicit TurnRepo(Database& db) : db_(db) {}

  // Stores the record with its sources (atomically) and returns its id.
  Result<int64_t> Append(const TurnRecord& r);

  // Newest first, at most `limit`; `before_id` continues a page (id <
  // before_id); `conversation_id` keeps that conversation's turns only.
  Result<std::vector<TurnRecord>> List(std::optional<std::string> conversation_id, std::optional<int64_t> before_id,
                                       int limit);

  struct CacheStats {
    std::string day, model;
    int64_t requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens;
    double hit_rate;  // cache_read / input; 0 when input is 0
  };
  // Successful turns (2xx, no error) of local days >= first_day, summed per
  // day and upstream model, by day then model.
  Result<std::vector<CacheStats>> CacheStatsSince(std::string_view first_day);

  struct Usage {
    std::string day, model;
    int64_t requests = 0, failed = 0;  // failed: not a 2xx, or an error (a stream broken mid-way)
    int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_write_tokens = 0;
    int64_t reasoning_tokens = 0;  // of output_tokens
    int64_t recall_rounds = 0;
    // Over the turns whose first byte reached the client (-1 when none did).
    double first_byte_ms_avg = -1;
    double total_ms_avg = 0;
    int64_t total_ms_max = 0;
  };
  // Every turn of local days >= first_day, failed ones too (their tokens
  // were still billed), summed per day and upstream model, by day then model.
  Result<std::vector<Usage>> UsageSince(std::string_view first_day);
  // A forgotten message leaves no words in turn records: every turn of its
  // conversation (whose menus and queries were built from that conversation's
  // messages) and every turn whose sources quote it get `injected` set to
  // kForgottenInjected and lose their sources. Usage numbers stay.
  Status ForgetMessage(std::string_view conversation_id, std::string_view message_id);
  // Deletes the conversation's turns and scrubs, as above, every other turn
  // whose sources quote one of its messages.
  Status ForgetConversation(std::string_view conversation_id);

  // Retention: drops turns started before `before`; returns how many.
  Result<int64_t> DeleteBefore(UnixMs before);

 private:
  Result<std::vector<std::pair<std::string, std::string>>> SourcesOf(int64_t turn_id);
  // Scrubs the turns whose ids `turn_ids` selects: an SQL query binding the
  // conversation id as ?1 and, when given, the message id as ?2.
  Status Scrub(std::string_view turn_ids, std::string_view conversation_id, std::optional<std::string_view> message_id);

  Database& db_;
};

}  // namespace cilia::store
