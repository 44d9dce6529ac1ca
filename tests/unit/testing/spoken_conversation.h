// A conversation written as the recall tests read it — (id, speaker, text,
// RFC 3339 time) rows, "AI" speaking as the assistant — stored and indexed.
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "ingest/ingest_request.h"
#include "memory/archive/archive.h"

namespace cilia::testing {

using SpokenMessage = std::tuple<std::string, std::string, std::string, std::string>;  // id, speaker, text, at

inline Status StoreSpoken(memory::Namespace& ns, const std::string& conversation, const std::string& title,
                          const std::vector<SpokenMessage>& messages) {
  ingest::IngestConversation c;
  c.conversation_id = conversation;
  c.title = title;
  for (const auto& [id, name, text, at] : messages) {
    ingest::IngestMessage m;
    m.id = id;
    m.role = name == "AI" ? "assistant" : "user";
    m.name = name;
    m.content = text;
    CILIA_ASSIGN_OR_RETURN(m.created_at_ms, ParseRfc3339(at));
    c.messages.push_back(std::move(m));
  }
  memory::Archive archive(ns);
  CILIA_ASSIGN_OR_RETURN(auto stored, archive.Store(c));
  return archive.IndexConversation(stored.conversation_row);
}

}  // namespace cilia::testing
