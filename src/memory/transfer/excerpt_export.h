// The L1 part of a namespace export (memory/export.h): excerpts, their
// history, candidates, and the extraction job's cursors and batch records,
// one JSON line each. Messages are named by conversation external id and
// the message id the export gives them (their row id), so an import puts
// every excerpt back on the message it quotes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"
#include "store/message_repo.h"

namespace cilia::memory {

// Writes the lines, each table by id. `conversation_external_id` names a
// conversation row.
Status ExportExcerpts(store::Database& db, const std::function<std::string(int64_t)>& conversation_external_id,
                      std::ostream& out);

// The L1 lines of a dump, checked but not yet written.
struct ExcerptDump {
  std::vector<nlohmann::json> excerpts, history, candidates, cursors, batches;
  bool empty() const {
    return excerpts.empty() && history.empty() && candidates.empty() && cursors.empty() && batches.empty();
  }
};

// Whether a line type is one of these.
bool IsExcerptLineType(std::string_view type);
// Adds one line; an InvalidArgument names the line and field when it is wrong.
Status ParseExcerptLine(const nlohmann::json& line, int line_no, ExcerptDump& dump);

// Where a dumped message is now: (conversation row, message row), or
// nullopt when the import did not bring it. Message -1 asks for the
// conversation alone (message row 0).
using MessageLocator =
    std::function<Result<std::optional<std::pair<int64_t, int64_t>>>(const std::string& conversation, int64_t message)>;

// The locator for an import whose dumped messages are `dumped` (by
// conversation external id): with ids kept, the message of that id; in a
// merge, the one stored under the dumped caller id (or "m_<id>", which a
// merge gives messages without one).
MessageLocator ExcerptMessageLocator(store::MessageRepo& repo,
                                     const std::map<std::string, std::vector<store::MessageRecord>>& dumped,
                                     bool ids_kept);

struct ExcerptImportSummary {
  int excerpts = 0;
  int candidates = 0;
};

// Inside the caller's transaction. Into a namespace without excerpts the ids
// are kept (export, import, export gives the same bytes); otherwise new ids
// are given and the references among the rows follow them, and an excerpt
// already there (same message, span and content) is not added twice.
Result<ExcerptImportSummary> ImportExcerpts(store::Database& db, const ExcerptDump& dump, const MessageLocator& locate);

}  // namespace cilia::memory
