// Loading chat history from files: JSON Lines of ingest objects and the
// exports of ChatGPT, Claude, Chatbox and SillyTavern (docs/importers.md says
// what each one reads, maps and skips).
//
// Every reader parses the whole input before it returns anything: on any error
// the result is a Status saying where (a line, a line and column, or a JSON
// path) and what is wrong, and no conversation at all. Ids come from the
// export itself, so importing the same file again stores nothing new.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ingest/ingest_request.h"

namespace cilia::ingest {

enum class ImportFormat { kAuto, kJsonl, kChatGPT, kClaude, kChatbox, kSillyTavern };

// "jsonl", "chatgpt", "claude", "chatbox", "sillytavern" (and "auto").
Result<ImportFormat> ParseImportFormat(std::string_view name);
const char* ImportFormatName(ImportFormat format);

// Tells the format from the content (not the file name); never kAuto.
Result<ImportFormat> DetectImportFormat(std::string_view text);

// Imports a whole file's contents (an upload, say); kAuto detects the format
// first. `file_stem` names a SillyTavern chat's conversation. Errors say where
// inside the text.
Result<std::vector<IngestConversation>> ImportText(std::string_view text, std::string_view file_stem,
                                                   ImportFormat format);

// Reads the whole file and imports it; kAuto detects the format first.
// Errors start with the file's path.
Result<std::vector<IngestConversation>> ReadImportFile(const std::string& path, ImportFormat format);

// The readers behind ReadImportFile, one per format. Errors say where inside
// the input, without a file name.
Result<std::vector<IngestConversation>> ImportJsonLines(std::string_view text);
// `conversations.json` of a ChatGPT data export.
Result<std::vector<IngestConversation>> ImportChatGPT(const nlohmann::json& export_root);
// `conversations.json` of a Claude (claude.ai) data export.
Result<std::vector<IngestConversation>> ImportClaude(const nlohmann::json& export_root);
// The JSON file Chatbox writes under Settings → Data Backup.
Result<std::vector<IngestConversation>> ImportChatbox(const nlohmann::json& backup_root);
// One SillyTavern chat file; `file_stem` is its name without ".jsonl".
Result<std::vector<IngestConversation>> ImportSillyTavern(std::string_view text, std::string_view file_stem);

}  // namespace cilia::ingest
