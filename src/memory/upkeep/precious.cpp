#include "memory/upkeep/precious.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "text/tokens.h"
#include "text/utf8.h"
#include "memory/archive/archive.h"
#include "store/message_repo.h"

namespace cilia::memory {

namespace {

std::string WithoutWhitespace(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const char32_t cp = text::NextCodePoint(text, &pos);
    if (!text::IsWhitespace(cp)) text::AppendUtf8(out, cp);
  }
  return out;
}

Result<store::MessageRecord> FindMessage(store::MessageRepo& repo, const store::ConversationRecord& conv,
                                         const std::string& id) {
  CILIA_ASSIGN_OR_RETURN(auto message, FindByPublicId(repo, conv.id, id));
  if (message) return *message;
  return Status::NotFound(fmt::format("message_ids: no message \"{}\" in conversation \"{}\"", id, conv.external_id));
}

}  // namespace

Result<store::PreciousPassage> Pin(Namespace& ns, const PinRequest& request, UnixMs now) {
  if (request.message_ids.empty()) return Status::InvalidArgument("message_ids: cite at least one message");
  if (request.author == store::Author::kExtractor) {
    return Status::InvalidArgument("author: \"owner\" or \"agent\"");
  }
  if (size_t bad = 0; !text::IsValidUtf8(request.content, &bad)) {
    return Status::InvalidArgument(fmt::format("content: invalid UTF-8 at byte {}", bad));
  }
  return ns.store().Write([&](store::Database& db) -> Result<store::PreciousPassage> {
    store::MessageRepo messages(db);
    CILIA_ASSIGN_OR_RETURN(auto conv, messages.FindConversation(request.conversation_id));
    if (!conv) return Status::NotFound(fmt::format("conversation_id: no conversation \"{}\"", request.conversation_id));
    std::vector<store::MessageRecord> cited;
    for (const std::string& id : request.message_ids) {
      CILIA_ASSIGN_OR_RETURN(store::MessageRecord m, FindMessage(messages, *conv, id));
      cited.push_back(std::move(m));
    }
    std::sort(cited.begin(), cited.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    std::string joined;
    for (const auto& m : cited) joined += (joined.empty() ? "" : "\n\n") + m.text;
    store::PreciousPassage p;
    p.content = request.content.empty() ? joined : request.content;
    if (WithoutWhitespace(p.content).empty()) return Status::InvalidArgument("content: must not be empty");
    if (p.content.size() > store::kMaxPreciousBytes) {
      return Status::TooLarge(fmt::format("content: at most {} bytes", store::kMaxPreciousBytes));
    }
    if (WithoutWhitespace(joined).find(WithoutWhitespace(p.content)) == std::string::npos) {
      return Status::InvalidArgument("content: not found verbatim in the cited messages");
    }
    p.conversation_id = conv->external_id;
    for (const auto& m : cited) p.message_ids.push_back(MessagePublicId(m));
    p.author = request.author;
    p.created_at = now;
    CILIA_ASSIGN_OR_RETURN(p.id, store::PreciousRepo(db).Append(p));
    return p;
  });
}

Result<std::vector<store::PreciousPassage>> ListPrecious(Namespace& ns) {
  return ns.store().Read([](store::Database& db) { return store::PreciousRepo(db).List(); });
}

Result<std::vector<PassageInPrompt>> PreciousForPrompt(Namespace& ns, int token_budget) {
  return ns.store().Read([&](store::Database& db) -> Result<std::vector<PassageInPrompt>> {
    CILIA_ASSIGN_OR_RETURN(std::vector<store::PreciousPassage> all, store::PreciousRepo(db).List());
    std::vector<PassageInPrompt> kept;
    int left = token_budget;
    for (auto it = all.rbegin(); it != all.rend() && left > 0; ++it) {
      const int cost = text::EstimateTokens(it->content);
      if (cost > left) continue;
      left -= cost;
      const UnixMs pinned_at = it->created_at;  // the date when the cited message is gone
      kept.push_back({std::move(*it), pinned_at});
    }
    store::MessageRepo messages(db);
    for (PassageInPrompt& p : kept) {
      CILIA_ASSIGN_OR_RETURN(auto conv, messages.FindConversation(p.passage.conversation_id));
      if (!conv || p.passage.message_ids.empty()) continue;
      CILIA_ASSIGN_OR_RETURN(auto first, FindByPublicId(messages, conv->id, p.passage.message_ids.front()));
      if (first) p.said_at = first->created_at;
    }
    std::sort(kept.begin(), kept.end(), [](const PassageInPrompt& a, const PassageInPrompt& b) {
      return std::tie(a.said_at, a.passage.id) < std::tie(b.said_at, b.passage.id);
    });
    return kept;
  });
}

}  // namespace cilia::memory
