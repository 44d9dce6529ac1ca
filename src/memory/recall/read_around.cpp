#include "memory/recall/read_around.h"

#include <algorithm>
#include <string>

#include "memory/excerpts/excerpts.h"
#include "memory/recall/recall_stages.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "store/window_repo.h"

namespace cilia::memory {

Result<std::vector<RecallResult>> ReadAround(Namespace& ns, std::string_view id, int before, int after) {
  const std::optional<int64_t> window_id = ParseWindowId(id);
  const std::optional<int64_t> excerpt_id = window_id ? std::nullopt : ParseExcerptId(id);
  if (!window_id && !excerpt_id) {
    return Status::InvalidArgument("id: must be a result's id, w_<n> or x_<n>, got \"" + std::string(id) + "\"");
  }
  Selection selection;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    store::MessageRepo messages(db);
    std::optional<store::WindowRecord> named;
    if (window_id) {
      CILIA_ASSIGN_OR_RETURN(named, windows.Get(*window_id));
    } else {
      CILIA_ASSIGN_OR_RETURN(auto excerpt, store::ExcerptRepo(db).Get(*excerpt_id));
      if (excerpt) {
        CILIA_ASSIGN_OR_RETURN(auto message, messages.GetMessage(excerpt->source.message_id));
        if (message) {
          CILIA_ASSIGN_OR_RETURN(named, windows.FirstCovering(message->conversation_row, message->seq));
        }
      }
    }
    if (!named) return Status::NotFound("no passage " + std::string(id));
    CILIA_ASSIGN_OR_RETURN(std::vector<store::WindowRecord> all, windows.ForConversation(named->conversation_row));
    const auto at = std::find_if(all.begin(), all.end(), [&](const store::WindowRecord& w) { return w.id == named->id; });
    if (at == all.end()) return Status::NotFound("no passage " + std::string(id));
    const auto first = at - std::min<std::ptrdiff_t>(before, at - all.begin());
    const auto last = at + std::min<std::ptrdiff_t>(after, all.end() - at - 1) + 1;
    // One passage: neighbouring windows share segments, which it shows once.
    WindowGroup g;
    g.conversation_row = named->conversation_row;
    for (auto w = first; w != last; ++w) AddToGroup(g, *w);
    selection.groups.push_back(std::move(g));
    return ReadSources(db, selection);
  }));
  return RenderSelection(selection, ns.tz());
}

}  // namespace cilia::memory
