#include "memory/archive/archive.h"

#include <fmt/format.h>

#include <cstdio>
#include <unordered_map>

#include "core/codec.h"
#include "ingest/context_parts.h"
#include "memory/archive/windowing.h"
#include "store/digest_repo.h"
#include "store/excerpt_repo.h"
#include "store/file_store.h"
#include "store/message_repo.h"
#include "store/precious_repo.h"
#include "store/retention_repo.h"
#include "store/summary_repo.h"
#include "store/turn_repo.h"
#include "store/window_repo.h"

namespace cilia::memory {

namespace {

// The fingerprint that decides "same message again": role and content.
std::string ContentHash(const std::string& role, const std::string& content_json) {
  return Hex64(Fnv1a64(role + '\n' + content_json));
}

// Stores one base64 image and returns its sha256.
Result<std::string> StoreImage(store::Database& db, const store::FileStore& files, std::string_view mime,
                               std::string_view base64, int64_t now) {
  CILIA_ASSIGN_OR_RETURN(std::string bytes, Base64Decode(base64));
  if (bytes.empty()) return Status::InvalidArgument("no image data: the base64 part is empty");
  std::string sha = Sha256Hex(bytes);
  CILIA_RETURN_IF_ERROR(files.Put(db, sha, bytes));
  CILIA_RETURN_IF_ERROR(store::MessageRepo(db).PutFile(sha, mime, static_cast<int64_t>(bytes.size()), now));
  return sha;
}

// Replaces inline image data by references to stored files, so the message
// keeps the image verbatim without carrying megabytes in every row; also
// inside the content of tool results (`path`: where `content` sits, for errors).
Result<nlohmann::json> StoreInlineImages(store::Database& db, const store::FileStore& files,
                                         const nlohmann::json& content, int64_t now,
                                         const std::string& path = "content") {
  if (!content.is_array()) return content;
  nlohmann::json out = content;
  for (size_t i = 0; i < out.size(); ++i) {
    nlohmann::json& part = out[i];
    if (!part.is_object()) continue;
    const std::string part_path = fmt::format("{}[{}]", path, i);
    std::string type = part.value("type", "");
    if (type == "image_url" && part.contains("image_url") && part["image_url"].is_object()) {
      std::string url = part["image_url"].value("url", "");
      if (url.rfind("data:", 0) != 0) continue;
      size_t comma = url.find(',');
      size_t semi = url.find(';');
      if (comma == std::string::npos || semi == std::string::npos || semi > comma ||
          url.compare(semi, 8, ";base64,") != 0) {
        return Status::InvalidArgument(part_path + ".image_url.url: only base64 data URLs are stored");
      }
      std::string mime = url.substr(5, semi - 5);
      auto sha = StoreImage(db, files, mime, std::string_view(url).substr(comma + 1), now);
      if (!sha.ok()) return sha.status().With(part_path + ".image_url.url");
      part["image_url"]["url"] = "cilia-file:" + *sha;
      part["image_url"]["mime_type"] = mime;
    } else if (type == "image" && part.contains("source") && part["source"].is_object() &&
               part["source"].value("type", "") == "base64") {
      std::string mime = part["source"].value("media_type", "application/octet-stream");
      auto sha = StoreImage(db, files, mime, part["source"].value("data", ""), now);
      if (!sha.ok()) return sha.status().With(part_path + ".source.data");
      part["source"] = {{"type", "file"}, {"file", "cilia-file:" + *sha}, {"media_type", mime}};
    } else if (type == ingest::kToolResultPart && part.contains("content")) {
      CILIA_ASSIGN_OR_RETURN(part["content"],
                             StoreInlineImages(db, files, part["content"], now, part_path + ".content"));
    }
  }
  return out;
}

// Forget, inside its transaction: the file rows only the forgotten messages
// referred to (the bytes go in Purge), and the logged recall queries that
// found a window or excerpt that is gone.
Status ForgetDerived(store::Database& db, const std::vector<store::MessageRecord>& forgotten,
                     const std::vector<int64_t>& windows_gone, const std::vector<int64_t>& excerpts_gone) {
  store::MessageRepo messages(db);
  static constexpr std::string_view kFileRef = "cilia-file:";
  constexpr size_t kShaHexChars = 64;
  for (const store::MessageRecord& m : forgotten) {
    for (size_t at = m.content.find(kFileRef); at != std::string::npos; at = m.content.find(kFileRef, at + 1)) {
      const std::string sha = m.content.substr(at + kFileRef.size(), kShaHexChars);
      if (sha.size() == kShaHexChars) CILIA_RETURN_IF_ERROR(messages.DropFileUnlessReferenced(sha).status());
    }
  }
  store::RetentionRepo log(db);
  CILIA_RETURN_IF_ERROR(log.DeleteRecallQueriesFinding("archive", windows_gone).status());
  return log.DeleteRecallQueriesFinding("excerpt", excerpts_gone).status();
}

}  // namespace

std::string MessagePublicId(const store::MessageRecord& m) {
  return m.caller_id ? *m.caller_id : FormatPublicId(IdKind::kMessage, m.id);
}

Result<std::optional<store::MessageRecord>> FindByPublicId(store::MessageRepo& repo, int64_t conversation_row,
                                                           std::string_view public_id) {
  CILIA_ASSIGN_OR_RETURN(auto by_caller, repo.FindByCallerId(conversation_row, public_id));
  if (by_caller) return by_caller;
  const std::optional<int64_t> internal = ParsePublicId(IdKind::kMessage, public_id);
  if (!internal) return std::optional<store::MessageRecord>();
  CILIA_ASSIGN_OR_RETURN(auto message, repo.GetMessage(*internal));
  if (message && (message->conversation_row != conversation_row || message->caller_id)) message.reset();
  return message;
}

Result<IngestOutcome> Archive::Store(const ingest::IngestConversation& in) {
  CILIA_ASSIGN_OR_RETURN(auto outcomes, StoreAll({in}));
  return outcomes.front();
}

Result<std::vector<IngestOutcome>> Archive::StoreAll(const std::vector<ingest::IngestConversation>& conversations) {
  const int64_t now = ns_.clock().Now();
  return ns_.store().Write([&](store::Database& db) -> Result<std::vector<IngestOutcome>> {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    std::vector<IngestOutcome> outcomes;
    for (const auto& in : conversations) {
      CILIA_ASSIGN_OR_RETURN(IngestOutcome o, StoreOne(db, in, now));
      outcomes.push_back(o);
    }
    CILIA_RETURN_IF_ERROR(tx.Commit());
    return outcomes;
  });
}

Result<IngestOutcome> Archive::StoreOne(store::Database& db, const ingest::IngestConversation& in, int64_t now) {
  store::MessageRepo repo(db);
  CILIA_ASSIGN_OR_RETURN(auto found, repo.FindConversation(in.conversation_id));
  int64_t first_at = now;
  for (const auto& m : in.messages) first_at = std::min(first_at, m.created_at_ms.value_or(now));
  store::ConversationRecord conv;
  if (found) {
    conv = *found;
  } else {
    CILIA_ASSIGN_OR_RETURN(conv, repo.CreateConversation(in.conversation_id, in.title, first_at));
  }
  if (!in.title.empty()) conv.title = in.title;
  // Ahead of the commit: a title left by a rolled-back request ranks only
  // windows its conversation does not have.
  ns_.PutTitle(conv.id, conv.title);

  IngestOutcome out;
  out.conversation_row = conv.id;
  std::unordered_map<std::string, std::string> seen_in_request;  // caller id -> hash
  for (size_t i = 0; i < in.messages.size(); ++i) {
    const ingest::IngestMessage& m = in.messages[i];
    CILIA_ASSIGN_OR_RETURN(nlohmann::json content, StoreInlineImages(db, ns_.store().files(), m.content, now));
    std::string content_json = content.dump();
    std::string hash = ContentHash(m.role, content_json);
    if (!m.id.empty()) {
      auto earlier = seen_in_request.find(m.id);
      if (earlier != seen_in_request.end()) {
        if (earlier->second != hash) {
          return Status::Conflict(fmt::format("messages[{}].id: \"{}\" appears twice with different content", i, m.id));
        }
        ++out.duplicates;
        continue;
      }
      CILIA_ASSIGN_OR_RETURN(auto existing, repo.FindByCallerId(conv.id, m.id));
      if (existing) {
        if (existing->content_hash != hash) {
          return Status::Conflict(fmt::format(
              "messages[{}].id: message \"{}\" already exists in conversation \"{}\" with different content; "
              "nothing of this request was stored",
              i, m.id, in.conversation_id));
        }
        ++out.duplicates;
        seen_in_request[m.id] = hash;
        continue;
      }
      seen_in_request[m.id] = hash;
    }
    store::MessageRecord rec;
    rec.seq = conv.next_seq++;
    if (!m.id.empty()) rec.caller_id = m.id;
    rec.role = m.role;
    rec.name = m.name;
    rec.content = std::move(content_json);
    rec.text = ingest::ContentText(content);
    rec.content_hash = std::move(hash);
    rec.created_at = m.created_at_ms.value_or(now);
    rec.stored_at = now;
    rec.source = in.source;
    CILIA_RETURN_IF_ERROR(repo.Append(conv, rec));
    ++out.stored;
  }
  CILIA_RETURN_IF_ERROR(repo.SaveConversation(conv));
  return out;
}

Status Archive::ReplaceWindowsFrom(store::Database& db, int64_t conversation_row, int64_t from_seq, int64_t from_segment,
                                   std::vector<int64_t>& removed, std::vector<store::WindowRecord>& added) {
  store::MessageRepo messages(db);
  store::WindowRepo windows(db);
  CILIA_ASSIGN_OR_RETURN(auto gone, windows.DeleteFrom(conversation_row, from_seq, from_segment));
  removed.insert(removed.end(), gone.begin(), gone.end());
  CILIA_ASSIGN_OR_RETURN(auto tail, messages.MessagesFrom(conversation_row, from_seq));
  // The window being replaced may start inside a message that is gone now.
  int skip = (!tail.empty() && tail.front().seq == from_seq) ? static_cast<int>(from_segment) : 0;
  std::vector<Segment> segments = SegmentMessages(tail, skip);
  const size_t first_new = added.size();
  for (WindowRange r : PackWindows(segments)) added.push_back(MakeWindow(conversation_row, segments, r));
  return windows.InsertAll(std::span(added).subspan(first_new));
}

void Archive::ApplyToCaches(const std::vector<int64_t>& removed, const std::vector<store::WindowRecord>& added) {
  for (int64_t id : removed) {
    ns_.vectors().Remove(id);
    ns_.words().Remove(id);
    ns_.RemoveWindowMeta(id);
  }
  for (const auto& w : added) {
    ns_.PutWindowMeta(w.id, {w.conversation_row, w.created_at, w.ended_at, 0});
    ns_.words().Add(w.id, w.words);
  }
}

Status Archive::EmbedWindows(const std::vector<store::WindowRecord>& windows) {
  if (windows.empty()) return Status::Ok();
  // Embedding runs outside the writer lock: a slow embedder must not stall
  // ingest. Windows left without a vector are picked up by EmbedMissing.
  CILIA_ASSIGN_OR_RETURN(auto vecs, EmbedBodies(windows));
  std::vector<size_t> written;
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::WindowRepo repo(db);
    for (size_t i = 0; i < windows.size(); ++i) {
      CILIA_ASSIGN_OR_RETURN(auto still, repo.Get(windows[i].id));
      if (!still) continue;  // replaced meanwhile
      CILIA_RETURN_IF_ERROR(repo.PutVector(windows[i].id, ns_.embedder().id(), vecs[i]));
      written.push_back(i);
    }
    return tx.Commit();
  }));
  for (size_t i : written) {
    if (ns_.GetWindowMeta(windows[i].id)) CILIA_RETURN_IF_ERROR(ns_.vectors().Upsert(windows[i].id, vecs[i]));
  }
  return Status::Ok();
}

Result<std::vector<std::vector<float>>> Archive::EmbedBodies(const std::vector<store::WindowRecord>& windows) const {
  std::vector<std::string> bodies;
  bodies.reserve(windows.size());
  for (const auto& w : windows) bodies.push_back(w.body);
  return ns_.embedder().Embed(bodies, embed::Purpose::kPassage);
}

Status Archive::WindowTail(store::Database& db, int64_t conversation_row, TailChange& change) {
  store::MessageRepo messages(db);
  store::WindowRepo windows(db);
  CILIA_ASSIGN_OR_RETURN(auto conv, messages.GetConversation(conversation_row));
  if (!conv || conv->indexed_seq >= conv->next_seq) return Status::Ok();
  CILIA_ASSIGN_OR_RETURN(auto last, windows.LastOf(conversation_row));
  int64_t from_seq = last ? last->first_seq : 0;
  int64_t from_segment = last ? last->first_segment : 0;
  CILIA_RETURN_IF_ERROR(ReplaceWindowsFrom(db, conversation_row, from_seq, from_segment, change.removed, change.added));
  conv->indexed_seq = conv->next_seq;
  CILIA_RETURN_IF_ERROR(messages.SaveConversation(*conv));
  if (ns_.embedder().slow()) return Status::Ok();
  // A fast embedder (hash): its vectors go into the same commit.
  CILIA_ASSIGN_OR_RETURN(change.vectors, EmbedBodies(change.added));
  for (size_t i = 0; i < change.added.size(); ++i) {
    CILIA_RETURN_IF_ERROR(windows.PutVector(change.added[i].id, ns_.embedder().id(), change.vectors[i]));
  }
  return Status::Ok();
}

Status Archive::Publish(const TailChange& change) {
  ApplyToCaches(change.removed, change.added);
  if (ns_.embedder().slow()) return EmbedWindows(change.added);
  for (size_t i = 0; i < change.added.size(); ++i) {
    CILIA_RETURN_IF_ERROR(ns_.vectors().Upsert(change.added[i].id, change.vectors[i]));
  }
  return Status::Ok();
}

Status Archive::IndexConversation(int64_t conversation_row) {
  TailChange change;
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_RETURN_IF_ERROR(WindowTail(db, conversation_row, change));
    return tx.Commit();
  }));
  return Publish(change);
}

Result<IngestOutcome> Archive::StoreAndIndex(const ingest::IngestConversation& in) {
  const int64_t now = ns_.clock().Now();
  TailChange change;
  CILIA_ASSIGN_OR_RETURN(IngestOutcome outcome, ns_.store().Write([&](store::Database& db) -> Result<IngestOutcome> {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_ASSIGN_OR_RETURN(IngestOutcome o, StoreOne(db, in, now));
    CILIA_RETURN_IF_ERROR(WindowTail(db, o.conversation_row, change));
    CILIA_RETURN_IF_ERROR(tx.Commit());
    return o;
  }));
  CILIA_RETURN_IF_ERROR(Publish(change));
  return outcome;
}

Status Archive::IndexPending() {
  CILIA_ASSIGN_OR_RETURN(
      auto convs, ns_.store().Read([](store::Database& db) { return store::MessageRepo(db).AllConversations(); }));
  for (const auto& c : convs) {
    if (c.indexed_seq < c.next_seq) CILIA_RETURN_IF_ERROR(IndexConversation(c.id));
  }
  return Status::Ok();
}

Status Archive::Purge() {
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    CILIA_RETURN_IF_ERROR(store::WindowRepo(db).OptimizeIndexes());
    return ns_.store().files().RemoveUnlisted(db);
  }));
  return ns_.store().Checkpoint();
}

Status Archive::ForgetMessage(const std::string& conversation_id, const std::string& message_id) {
  std::vector<int64_t> removed;
  std::vector<store::WindowRecord> added;
  std::vector<int64_t> excerpts_gone;
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::MessageRepo messages(db);
    store::WindowRepo windows(db);
    CILIA_ASSIGN_OR_RETURN(auto conv, messages.FindConversation(conversation_id));
    if (!conv) return Status::NotFound(fmt::format("conversation \"{}\" does not exist", conversation_id));
    CILIA_ASSIGN_OR_RETURN(auto msg, FindByPublicId(messages, conv->id, message_id));
    if (!msg) {
      return Status::NotFound(
          fmt::format("message \"{}\" does not exist in conversation \"{}\"", message_id, conversation_id));
    }
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    // Everything built from the message goes with it: excerpts and precious
    // passages quoting it, summaries covering it, turn records and day logs
    // citing it (the nightly job writes those days again).
    const std::string public_id = MessagePublicId(*msg);
    CILIA_ASSIGN_OR_RETURN(excerpts_gone, store::ExcerptRepo(db).DeleteQuoting(conv->id, msg->id));
    CILIA_RETURN_IF_ERROR(store::PreciousRepo(db).DeleteCiting(conversation_id, public_id).status());
    CILIA_RETURN_IF_ERROR(store::DigestRepo(db).ForgetCiting(conversation_id, public_id, ns_.clock().Now()).status());
    CILIA_RETURN_IF_ERROR(store::SummaryRepo(db).ForgetFrom(conv->id, msg->seq));
    CILIA_RETURN_IF_ERROR(store::TurnRepo(db).ForgetMessage(conversation_id, public_id));
    CILIA_ASSIGN_OR_RETURN(auto covering, windows.FirstCovering(conv->id, msg->seq));
    int64_t from_seq = covering ? covering->first_seq : msg->seq;
    int64_t from_segment = covering ? covering->first_segment : 0;
    // Drop the windows that quote the message before the message itself.
    CILIA_ASSIGN_OR_RETURN(auto gone, windows.DeleteFrom(conv->id, from_seq, from_segment));
    removed.insert(removed.end(), gone.begin(), gone.end());
    CILIA_RETURN_IF_ERROR(messages.DeleteMessage(msg->id));
    // Re-window from the window before, which overlaps the removed ones.
    CILIA_ASSIGN_OR_RETURN(auto before, windows.LastOf(conv->id));
    int64_t seq = before ? before->first_seq : 0;
    int64_t segment = before ? before->first_segment : 0;
    CILIA_RETURN_IF_ERROR(ReplaceWindowsFrom(db, conv->id, seq, segment, removed, added));
    CILIA_RETURN_IF_ERROR(ForgetDerived(db, {*msg}, removed, excerpts_gone));
    conv->message_count -= 1;
    conv->indexed_seq = conv->next_seq;
    CILIA_RETURN_IF_ERROR(messages.SaveConversation(*conv));
    return tx.Commit();
  }));
  ApplyToCaches(removed, added);
  for (int64_t id : excerpts_gone) ns_.excerpts().Remove(id);
  CILIA_RETURN_IF_ERROR(EmbedWindows(added));
  return Purge();
}

Status Archive::ForgetConversation(const std::string& conversation_id) {
  std::vector<int64_t> removed;
  std::vector<int64_t> excerpts_gone;
  int64_t row = 0;
  CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
    store::MessageRepo messages(db);
    store::WindowRepo windows(db);
    CILIA_ASSIGN_OR_RETURN(auto conv, messages.FindConversation(conversation_id));
    if (!conv) return Status::NotFound(fmt::format("conversation \"{}\" does not exist", conversation_id));
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_ASSIGN_OR_RETURN(excerpts_gone, store::ExcerptRepo(db).DeleteQuoting(conv->id, std::nullopt));
    CILIA_RETURN_IF_ERROR(store::PreciousRepo(db).DeleteCiting(conversation_id, std::nullopt).status());
    CILIA_RETURN_IF_ERROR(store::DigestRepo(db).ForgetCiting(conversation_id, std::nullopt, ns_.clock().Now()).status());
    CILIA_RETURN_IF_ERROR(store::SummaryRepo(db).ForgetConversation(conv->id));
    CILIA_RETURN_IF_ERROR(store::TurnRepo(db).ForgetConversation(conversation_id));
    CILIA_ASSIGN_OR_RETURN(removed, windows.DeleteFrom(conv->id, 0, 0));
    CILIA_ASSIGN_OR_RETURN(auto all, messages.MessagesFrom(conv->id, 0));
    for (const auto& m : all) CILIA_RETURN_IF_ERROR(messages.DeleteMessage(m.id));
    CILIA_RETURN_IF_ERROR(messages.DeleteConversation(conv->id));
    CILIA_RETURN_IF_ERROR(ForgetDerived(db, all, removed, excerpts_gone));
    row = conv->id;
    return tx.Commit();
  }));
  ApplyToCaches(removed, {});
  ns_.RemoveTitle(row);
  for (int64_t id : excerpts_gone) ns_.excerpts().Remove(id);
  return Purge();
}

Status Archive::Reindex() {
  CILIA_ASSIGN_OR_RETURN(
      auto convs, ns_.store().Read([](store::Database& db) { return store::MessageRepo(db).AllConversations(); }));
  for (const auto& c : convs) {
    std::vector<int64_t> removed;
    std::vector<store::WindowRecord> added;
    CILIA_RETURN_IF_ERROR(ns_.store().Write([&](store::Database& db) -> Status {
      store::Transaction tx(db);
      CILIA_RETURN_IF_ERROR(tx.Begin());
      CILIA_RETURN_IF_ERROR(ReplaceWindowsFrom(db, c.id, 0, 0, removed, added));
      store::MessageRepo messages(db);
      CILIA_ASSIGN_OR_RETURN(auto conv, messages.GetConversation(c.id));
      if (conv) {
        conv->indexed_seq = conv->next_seq;
        CILIA_RETURN_IF_ERROR(messages.SaveConversation(*conv));
      }
      return tx.Commit();
    }));
    ApplyToCaches(removed, added);
    CILIA_RETURN_IF_ERROR(EmbedWindows(added));
  }
  return Purge();
}

Result<std::vector<store::ConversationRecord>> Archive::Conversations(
    int limit, std::optional<std::pair<int64_t, int64_t>> after) {
  return ns_.store().Read(
      [&](store::Database& db) { return store::MessageRepo(db).ListConversations(limit, after); });
}

Result<Archive::Page> Archive::Messages(const std::string& conversation_id, const PageRequest& request) {
  return ns_.store().Read([&](store::Database& db) -> Result<Page> {
    store::MessageRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto conversation, repo.FindConversation(conversation_id));
    if (!conversation) return Status::NotFound(fmt::format("conversation \"{}\" does not exist", conversation_id));
    const int64_t row = conversation->id;
    Page page;
    int64_t end_seq = INT64_MAX;  // where the page ends: the seq of the next page's first message
    if (!request.around.empty()) {
      CILIA_ASSIGN_OR_RETURN(auto hit, FindByPublicId(repo, row, request.around));
      if (!hit) {
        return Status::NotFound(
            fmt::format("around: no message \"{}\" in conversation \"{}\"", request.around, conversation_id));
      }
      CILIA_ASSIGN_OR_RETURN(page.messages, repo.MessagesBefore(row, hit->seq, request.limit / 2));
      CILIA_ASSIGN_OR_RETURN(auto rest,
                             repo.MessagesFrom(row, hit->seq, request.limit - static_cast<int>(page.messages.size()) + 1));
      page.messages.insert(page.messages.end(), rest.begin(), rest.end());
    } else if (request.before) {
      CILIA_ASSIGN_OR_RETURN(page.messages, repo.MessagesBefore(row, *request.before, request.limit));
      end_seq = *request.before;
    } else {
      CILIA_ASSIGN_OR_RETURN(page.messages, repo.MessagesFrom(row, request.from, request.limit + 1));
    }
    if (static_cast<int>(page.messages.size()) > request.limit) {
      end_seq = page.messages[static_cast<size_t>(request.limit)].seq;
      page.messages.resize(static_cast<size_t>(request.limit));
    }
    if (end_seq != INT64_MAX) {
      CILIA_ASSIGN_OR_RETURN(auto after, repo.MessagesFrom(row, end_seq, 1));
      if (!after.empty()) page.next_cursor = end_seq;
    }
    if (!page.messages.empty()) {
      CILIA_ASSIGN_OR_RETURN(auto earlier, repo.MessagesBefore(row, page.messages.front().seq, 1));
      if (!earlier.empty()) page.prev_cursor = page.messages.front().seq;
    }
    return page;
  });
}

}  // namespace cilia::memory
