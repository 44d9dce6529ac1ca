#include "ingest/import_util.h"
#include "ingest/importers.h"
#include "core/json_read.h"

namespace cilia::ingest {

Result<std::vector<IngestConversation>> ImportJsonLines(std::string_view text) {
  std::vector<IngestConversation> conversations;
  for (const TextLine& line : NonBlankLines(text)) {
    // A syntax error already names the line and column.
    CILIA_ASSIGN_OR_RETURN(nlohmann::json body, json::ParseJsonText(line.text, line.number));
    Result<IngestConversation> conversation = ParseIngestRequest(body);
    if (!conversation.ok()) return AtLine(line.number, conversation.status());
    conversation->source = "import";
    conversations.push_back(std::move(*conversation));
  }
  return conversations;
}

}  // namespace cilia::ingest
