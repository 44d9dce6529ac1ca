#include "memory/upkeep/precious.h"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace cilia::memory
