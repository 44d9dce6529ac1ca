#include "ingest/import_util.h"

#include <cmath>

#include "core/time.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr double kEndOfYear9999Ms = 253402300800000.0;  // 10000-01-01T00:00:00Z

}  // namespace

std::vector<TextLine> NonBlankLines(std::string_view text) {
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text.remove_prefix(kByteOrderMark.size());
  }
  std::vector<TextLine> lines;
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) lines.push_back({number, line});
  }
  return lines;
}

Status AtLine(size_t line, const Status& status) { return status.With("line " + std::to_string(line)); }

std::optional<int64_t> PlausibleUnixMs(double ms) {
  if (!std::isfinite(ms) || ms < 0 || ms >= kEndOfYear9999Ms) return std::nullopt;
  return std::llround(ms);
}

Result<std::optional<int64_t>> OptionalEpochTime(const nlohmann::json& object, std::string_view key,
                                                 const std::string& path, EpochUnit unit) {
  CILIA_ASSIGN_OR_RETURN(std::optional<double> value, json::OptionalNumber(object, key, path));
  if (!value) return std::optional<int64_t>();
  std::optional<int64_t> ms = PlausibleUnixMs(unit == EpochUnit::kSeconds ? *value * 1000.0 : *value);
  if (!ms) {
    return json::FieldError(json::PathKey(path, key), unit == EpochUnit::kSeconds ? "must be a Unix time in seconds"
                                                                      : "must be a Unix time in milliseconds");
  }
  return ms;
}

Result<std::optional<int64_t>> OptionalRfc3339Time(const nlohmann::json& object, std::string_view key,
                                                   const std::string& path) {
  CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(object, key, path));
  if (text.empty()) return std::optional<int64_t>();
  Result<UnixMs> parsed = ParseRfc3339(text);
  if (!parsed.ok()) {
    return json::FieldError(json::PathKey(path, key), "must be an RFC 3339 time such as 2023-05-08T13:56:00Z");
  }
  return std::optional<int64_t>(*parsed);
}

Status AppendImported(IngestConversation conversation, std::optional<int64_t> start_ms,
                      std::vector<IngestConversation>& out) {
  std::erase_if(conversation.messages, [](const IngestMessage& message) { return !HasTextOrImage(message.content); });
  if (conversation.messages.empty()) return Status::Ok();
  conversation.source = "import";
  std::optional<int64_t> last_time = start_ms;
  for (IngestMessage& message : conversation.messages) {
    if (message.created_at_ms) {
      last_time = message.created_at_ms;
    } else {
      message.created_at_ms = last_time;
    }
  }
  CILIA_RETURN_IF_ERROR(ValidateIngestConversation(conversation));
  out.push_back(std::move(conversation));
  return Status::Ok();
}

}  // namespace cilia::ingest
