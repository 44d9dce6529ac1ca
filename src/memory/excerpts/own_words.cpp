#include "memory/excerpts/own_words.h"

#include <fmt/format.h>

#include "core/codec.h"
#include "core/log.h"
#include "ingest/ingest_request.h"
#include "memory/archive/archive.h"
#include "text/utf8.h"

namespace cilia::memory {

namespace {

using nlohmann::json;

size_t VisibleChars(const std::string& text) {
  size_t count = 0;
  for (char32_t c : text::DecodeUtf8(text)) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') ++count;
  }
  return count;
}

}  // namespace

bool IsInOwnWords(const json& body) {
  return body.is_object() && (!body.contains("quote") || body["quote"].is_null());
}

Result<Excerpts::Upserted> UpsertInOwnWords(Namespace& ns, const json& body, Author who,
                                             const NoteWriter& writer) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  for (const char* field : {"conversation_id", "message_id"}) {
    if (body.contains(field) && !body[field].is_null()) {
      return Status::InvalidArgument(fmt::format(
          "{}: give it only with a quote; a memory in its own words is stored in the \"{}\" conversation", field,
          kNotesConversation));
    }
  }
  auto content = body.find("content");
  if (content == body.end() || !content->is_string()) {
    return Status::InvalidArgument("content: required, the memory in a sentence");
  }
  const std::string text = content->get<std::string>();
  if (text::IsValidUtf8(text) && VisibleChars(text) < kMinQuoteChars) {
    return Status::InvalidArgument(
        fmt::format("content: at least {} characters besides spaces, so it can be quoted", kMinQuoteChars));
  }
  const std::string note_id = "note-" + Sha256Hex(text).substr(0, 24);
  json filled = body;
  filled["quote"] = text;
  filled["conversation_id"] = kNotesConversation;
  filled["message_id"] = note_id;
  CILIA_ASSIGN_OR_RETURN(NewExcerpt item, ParseNewExcerpt(filled));

  ingest::IngestConversation note;
  note.conversation_id = kNotesConversation;
  note.title = "Notes";
  note.source = writer.source;
  note.messages.push_back(
      {note_id, who == Author::kOwner ? "user" : "assistant", writer.speaker, json(text), ns.clock().Now()});
  CILIA_RETURN_IF_ERROR(ingest::ValidateIngestConversation(note));
  CILIA_ASSIGN_OR_RETURN(IngestOutcome stored, Archive(ns).StoreAndIndex(note));
  Result<Excerpts::Upserted> upserted = Excerpts(ns).Upsert(item, who);
  if (!upserted.ok() && stored.stored > 0) {
    if (Status undone = Archive(ns).ForgetMessage(kNotesConversation, note_id); !undone.ok()) {
      LogWarn("the note {} of a refused memory stays: {}", note_id, undone.ToString());
    }
  }
  return upserted;
}

}  // namespace cilia::memory
