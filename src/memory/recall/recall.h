// Recall and search over the archive (CONTRACT.md "Recall and search"):
// two lanes (vector, BM25) fused by weighted RRF, time words turned into
// filters, at most two windows per conversation and day, overlapping windows
// merged, and the verbatim text with header and speaker labels.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"
#include "memory/public_id.h"

namespace cilia::memory {

struct RecallRequest {
  std::string query;
  int limit = 10;
  std::optional<UnixMs> after;   // inclusive
  std::optional<UnixMs> before;  // inclusive
  std::optional<std::string> conversation_id;
  bool exact = false;
  std::optional<UnixMs> now;
  // Time words in the query bound the search (recall, search); false: they
  // only raise what lies in their span (the menu, where "下周" or "yesterday"
  // in the user's message is no request to look only there).
  bool time_words_filter = true;
};

// Validates a request body; errors name the field ("limit: must be 1..100").
Result<RecallRequest> ParseRecallRequest(const nlohmann::json& body, const TimeZone& tz, int default_limit = 10,
                                         int max_limit = 100);

struct RecallResult {
  std::string layer = "archive";
  std::string id;
  std::string conversation_id;
  std::vector<std::string> message_ids;
  UnixMs created_at = 0;
  std::string text;
  double score = 0;
};

struct RecallReply {
  std::vector<RecallResult> results;
  double took_ms = 0;
};

nlohmann::json ToJson(const RecallReply& reply, const TimeZone& tz);

// `count_access`: recall (true) raises access counts and logs what was
// returned; search (false) is only a look.
Result<RecallReply> Recall(Namespace& ns, const RecallRequest& request, bool count_access);

}  // namespace cilia::memory
