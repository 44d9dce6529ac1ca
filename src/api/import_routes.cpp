#include "api/import_routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>

#include "api/route_support.h"
#include "core/json_read.h"
#include "ingest/importers.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/extraction.h"
#include "memory/transfer/export.h"

namespace cilia::api {

namespace {

using nlohmann::json;

// Hands `text` to a reader in pieces, telling `progress` how much it has read.
class ProgressReader : public std::streambuf {
 public:
  ProgressReader(std::string_view text, const ImportProgress& progress) : text_(text), progress_(progress) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (offset_ >= text_.size()) return traits_type::eof();
    const size_t size = std::min(kPiece, text_.size() - offset_);
    char* begin = const_cast<char*>(text_.data() + offset_);  // read only: streambuf's get area is char*
    setg(begin, begin, begin + size);
    offset_ += size;
    if (progress_) progress_(static_cast<int64_t>(offset_), static_cast<int64_t>(text_.size()), "bytes");
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr size_t kPiece = 1 << 16;
  std::string_view text_;
  const ImportProgress& progress_;
  size_t offset_ = 0;
};

// A chat export (or JSON Lines of ingest objects) stored and indexed.
Result<json> ImportChats(memory::Namespace& ns, const Config& config, std::string_view text, ingest::ImportFormat format,
                         std::string_view file_stem, const ImportProgress& progress) {
  if (format == ingest::ImportFormat::kAuto) {
    CILIA_ASSIGN_OR_RETURN(format, ingest::DetectImportFormat(text));
  }
  CILIA_ASSIGN_OR_RETURN(auto conversations, ingest::ImportText(text, file_stem, format));
  int64_t total = 0;
  for (const auto& conversation : conversations) total += static_cast<int64_t>(conversation.messages.size());
  memory::Archive archive(ns);
  CILIA_ASSIGN_OR_RETURN(auto outcomes, archive.StoreAll(conversations));
  int stored = 0, duplicates = 0;
  int64_t done = 0;
  for (const memory::IngestOutcome& outcome : outcomes) {
    stored += outcome.stored;
    duplicates += outcome.duplicates;
    CILIA_RETURN_IF_ERROR(archive.IndexConversation(outcome.conversation_row).With("indexing"));
    done += outcome.stored + outcome.duplicates;
    if (progress) progress(done, total, "messages");
  }
  std::vector<int64_t> rows;
  for (const memory::IngestOutcome& outcome : outcomes) rows.push_back(outcome.conversation_row);
  CILIA_ASSIGN_OR_RETURN(memory::ExtractionEstimate estimate, memory::EstimateExtraction(ns, config, rows));
  return json{{"format", ingest::ImportFormatName(format)},
              {"conversations", outcomes.size()},
              {"stored", stored},
              {"duplicates", duplicates},
              {"extraction", estimate.ToJson(config.extraction)}};
}

// Whether the text's first line is a cilia export's header.
bool IsCiliaDump(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  auto header = cilia::json::ParseJsonText(first, 1, cilia::json::kRequestLimits);
  return header.ok() && header->is_object() && header->value("type", json()) == "cilia-export";
}

Result<json> ImportDump(memory::Namespace& ns, const Config& config, std::string_view text,
                        const ImportProgress& progress) {
  ProgressReader reader(text, progress);
  std::istream in(&reader);
  CILIA_ASSIGN_OR_RETURN(memory::ImportSummary summary, memory::ImportNamespace(ns, in));
  // A dump carries its extraction cursors and messages their first source:
  // what its namespace had extracted is not done again, and its live
  // messages are live here too.
  CILIA_ASSIGN_OR_RETURN(memory::ExtractionEstimate estimate, memory::EstimateExtraction(ns, config, std::nullopt));
  return json{{"format", "cilia"},
              {"conversations", summary.conversations},
              {"stored", summary.messages},
              {"duplicates", summary.duplicates},
              {"files", summary.files},
              {"excerpts", summary.excerpts},
              {"candidates", summary.candidates},
              {"extraction", estimate.ToJson(config.extraction)}};
}

}  // namespace

Result<json> ImportFile(memory::Namespace& ns, const Config& config, std::string_view text, std::string_view format,
                        std::string_view file_name, const ImportProgress& progress) {
  const bool dump = format == "cilia" || (format == "auto" && IsCiliaDump(text));
  std::optional<ingest::ImportFormat> chats;
  if (!dump) {
    auto parsed = ingest::ParseImportFormat(format);
    if (!parsed.ok()) {
      return Status::InvalidArgument(fmt::format("format: {} (or cilia, a cilia export)", parsed.status().message()));
    }
    chats = *parsed;
  }
  if (text.empty()) return Status::InvalidArgument("the file is empty; expected a chat export or a cilia dump");
  // A SillyTavern chat is named by its file.
  std::string_view stem = file_name.substr(std::min(file_name.size(), file_name.rfind('/') + 1));
  if (size_t dot = stem.rfind('.'); dot != std::string_view::npos) stem = stem.substr(0, dot);
  return dump ? ImportDump(ns, config, text, progress) : ImportChats(ns, config, text, *chats, stem, progress);
}

void RegisterImportRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("POST", "/v1/import", Scope::kAdmin, [&registry](const Request& req) -> Result<Reply> {
    const std::string format = req.http.has_param("format") ? req.http.get_param_value("format") : "auto";
    const std::string name = req.http.get_param_value("name");
    return ForNamespace(registry, req.who, [&](memory::Namespace& ns) {
      return ImportFile(ns, registry.config(), req.body, format, name);
    });
  });
}

}  // namespace cilia::api
