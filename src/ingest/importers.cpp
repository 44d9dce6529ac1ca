#include "ingest/importers.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "ingest/import_util.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

constexpr std::array<std::pair<ImportFormat, const char*>, 6> kFormatNames = {{
    {ImportFormat::kAuto, "auto"},
    {ImportFormat::kJsonl, "jsonl"},
    {ImportFormat::kChatGPT, "chatgpt"},
    {ImportFormat::kClaude, "claude"},
    {ImportFormat::kChatbox, "chatbox"},
    {ImportFormat::kSillyTavern, "sillytavern"},
}};

constexpr std::string_view kUnknownFormat =
    "cannot tell the format: expected JSON Lines of ingest objects, a ChatGPT or Claude "
    "conversations.json, a Chatbox backup or a SillyTavern chat; name it with --format";

// What detection learned: the format, and the parsed document when the whole
// file is one JSON value, so it is not parsed twice.
struct Detection {
  ImportFormat format = ImportFormat::kAuto;
  std::optional<nlohmann::json> document;
};

bool IsSillyTavernHeader(const nlohmann::json& object) {
  return object.contains("chat_metadata") || object.contains("user_name") || object.contains("character_name");
}

bool IsIngestObject(const nlohmann::json& object) {
  return object.contains("conversation_id") && object.contains("messages");
}

bool IsChatboxBackup(const nlohmann::json& object) {
  if (object.contains("chat-sessions") || object.contains("chat-sessions-list") ||
      object.contains("__exported_items")) {
    return true;
  }
  for (const auto& [key, value] : object.items()) {
    if (key.starts_with("session:")) return true;
  }
  return false;
}

Result<ImportFormat> FormatOfArray(const nlohmann::json& array) {
  if (array.empty()) return Status::InvalidArgument("an empty JSON array: nothing to import");
  const nlohmann::json& first = array.front();
  if (first.is_object() && first.contains("mapping")) return ImportFormat::kChatGPT;
  if (first.is_object() && first.contains("chat_messages")) return ImportFormat::kClaude;
  return Status::InvalidArgument(
      "a JSON array, but neither a ChatGPT export (conversations with \"mapping\") nor a "
      "Claude export (conversations with \"chat_messages\")");
}

// The format of a file whose first line is `line`, when it is one of the
// JSON Lines formats.
std::optional<ImportFormat> FormatOfFirstLine(const nlohmann::json& line) {
  if (!line.is_object()) return std::nullopt;
  if (IsIngestObject(line)) return ImportFormat::kJsonl;
  if (IsSillyTavernHeader(line) || line.contains("mes")) return ImportFormat::kSillyTavern;
  return std::nullopt;
}

Result<Detection> Detect(std::string_view text) {
  std::vector<TextLine> lines = NonBlankLines(text);
  if (lines.empty()) return Status::InvalidArgument("the file is empty");
  std::string_view start = lines[0].text.substr(lines[0].text.find_first_not_of(" \t"));
  Detection detection;
  if (start.front() == '[') {
    CILIA_ASSIGN_OR_RETURN(nlohmann::json document, json::ParseJsonText(text));
    CILIA_ASSIGN_OR_RETURN(detection.format, FormatOfArray(document));
    detection.document = std::move(document);
    return detection;
  }
  if (start.front() != '{') return Status::InvalidArgument(std::string(kUnknownFormat));

  // A Chatbox backup is one object, possibly spread over many lines; a
  // JSON Lines file parses as one value only when it has a single line.
  nlohmann::json whole = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!whole.is_discarded() && whole.is_object() && IsChatboxBackup(whole)) {
    detection.format = ImportFormat::kChatbox;
    detection.document = std::move(whole);
    return detection;
  }
  nlohmann::json first_line = nlohmann::json::parse(lines[0].text.begin(), lines[0].text.end(), nullptr, false);
  // Neither one value nor lines of values: say where the document breaks.
  if (whole.is_discarded() && first_line.is_discarded()) return json::ParseJsonText(text).status();
  std::optional<ImportFormat> format = FormatOfFirstLine(first_line);
  if (!format) return Status::InvalidArgument(std::string(kUnknownFormat));
  detection.format = *format;
  return detection;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return Status::NotFound("no such file");
  }
  if (error) return Status::IOError("cannot look at the file: " + error.message());
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument("is a directory, not a file");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::IOError("cannot open the file for reading");
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) return Status::IOError("reading the file failed");
  return std::move(contents).str();
}

}  // namespace

Result<ImportFormat> ParseImportFormat(std::string_view name) {
  for (const auto& [format, format_name] : kFormatNames) {
    if (name == format_name) return format;
  }
  return Status::InvalidArgument("unknown import format \"" + std::string(name) +
                                 "\": expected one of jsonl, chatgpt, claude, chatbox, "
                                 "sillytavern");
}

const char* ImportFormatName(ImportFormat format) {
  for (const auto& [known, name] : kFormatNames) {
    if (known == format) return name;
  }
  return "unknown";
}

Result<ImportFormat> DetectImportFormat(std::string_view text) {
  CILIA_ASSIGN_OR_RETURN(Detection detection, Detect(text));
  return detection.format;
}

Result<std::vector<IngestConversation>> ImportText(std::string_view text, std::string_view file_stem,
                                                   ImportFormat format) {
  std::optional<nlohmann::json> document;
  if (format == ImportFormat::kAuto) {
    CILIA_ASSIGN_OR_RETURN(Detection detection, Detect(text));
    format = detection.format;
    document = std::move(detection.document);
  }
  switch (format) {
    case ImportFormat::kJsonl:
      return ImportJsonLines(text);
    case ImportFormat::kSillyTavern:
      return ImportSillyTavern(text, file_stem);
    case ImportFormat::kChatGPT:
    case ImportFormat::kClaude:
    case ImportFormat::kChatbox:
      break;
    case ImportFormat::kAuto:
      return Status::Internal("format detection returned auto");
  }
  if (!document) {
    CILIA_ASSIGN_OR_RETURN(nlohmann::json parsed, json::ParseJsonText(text));
    document = std::move(parsed);
  }
  if (format == ImportFormat::kChatGPT) return ImportChatGPT(*document);
  if (format == ImportFormat::kClaude) return ImportClaude(*document);
  return ImportChatbox(*document);
}

Result<std::vector<IngestConversation>> ReadImportFile(const std::string& path, ImportFormat format) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status().With(path);
  std::string stem = std::filesystem::path(path).stem().string();
  Result<std::vector<IngestConversation>> conversations = ImportText(*text, stem, format);
  if (!conversations.ok()) return conversations.status().With(path);
  return conversations;
}

}  // namespace cilia::ingest
