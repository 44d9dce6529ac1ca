// What the importers share: walking lines, reading export timestamps, and
// handing a finished conversation over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ingest/ingest_request.h"

namespace cilia::ingest {

struct TextLine {
  size_t number;  // 1-based
  std::string_view text;
};

// The lines that hold something besides whitespace, without a leading UTF-8
// byte order mark or a trailing "\r".
std::vector<TextLine> NonBlankLines(std::string_view text);

// "line 17: <message>", keeping the code.
Status AtLine(size_t line, const Status& status);

enum class EpochUnit { kSeconds, kMilliseconds };

// `ms` when it is a time in the years 1970..9999 (exports hold no other, so
// anything else is a unit mix-up or garbage), rounded to whole milliseconds.
std::optional<int64_t> PlausibleUnixMs(double ms);

// A Unix time given as a JSON number in `unit`, as milliseconds; not given
// (absent or null) is nullopt. A non-number, NaN or a time outside the years
// 1970..9999 is an error naming the field.
Result<std::optional<int64_t>> OptionalEpochTime(const nlohmann::json& object, std::string_view key,
                                                 const std::string& path, EpochUnit unit);
// The same for an RFC 3339 string.
Result<std::optional<int64_t>> OptionalRfc3339Time(const nlohmann::json& object, std::string_view key,
                                                   const std::string& path);

// Finishes an imported conversation and appends it to `out`: drops messages
// with no text or image, marks the source "import", gives each message
// without a time the time of the message before it (the first ones
// `start_ms`), so old history does not land at "now", and validates it. A
// conversation with no messages left is dropped.
Status AppendImported(IngestConversation conversation, std::optional<int64_t> start_ms,
                      std::vector<IngestConversation>& out);

}  // namespace cilia::ingest
