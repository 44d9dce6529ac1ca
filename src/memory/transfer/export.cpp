#include "memory/transfer/export.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "core/codec.h"
#include "memory/archive/archive.h"
#include "memory/transfer/excerpt_export.h"
#include "memory/transfer/upkeep_dump.h"
#include "store/message_repo.h"

namespace cilia::memory {

using nlohmann::json;

namespace {

struct Dump {
  std::vector<store::ConversationRecord> conversations;
  std::map<std::string, std::vector<store::MessageRecord>> messages;  // by conversation external id
  std::vector<std::pair<store::FileRecord, std::string>> files;      // with bytes
  UpkeepDump upkeep;  // profile, glossary, precious, logs, digests, rollups
  ExcerptDump excerpts;  // L1 excerpts, their history, candidates, extraction bookkeeping
};

template <typename T>
Result<T> Field(const json& line, const char* name, int line_no) {
  if (!line.contains(name)) return Status::InvalidArgument(fmt::format("line {}: {}: missing", line_no, name));
  try {
    return line.at(name).get<T>();
  } catch (const json::exception&) {
    return Status::InvalidArgument(fmt::format("line {}: {}: wrong type", line_no, name));
  }
}

Result<Dump> ParseDump(std::istream& in) {
  Dump d;
  std::string text;
  int line_no = 0;
  bool header = false;
  while (std::getline(in, text)) {
    ++line_no;
    if (text.empty()) continue;
    json line = json::parse(text, nullptr, false);
    if (line.is_discarded() || !line.is_object()) {
      return Status::InvalidArgument(fmt::format("line {}: not a JSON object", line_no));
    }
    std::string type = line.value("type", "");
    if (!header) {
      if (type != "cilia-export") return Status::InvalidArgument("line 1: not a cilia export (no header line)");
      if (line.value("version", 0) != kExportFormatVersion) {
        return Status::InvalidArgument(fmt::format("line 1: export format version {} is not supported",
                                                   line.value("version", 0)));
      }
      header = true;
      continue;
    }
    if (type == "conversation") {
      store::ConversationRecord c;
      CILIA_ASSIGN_OR_RETURN(c.external_id, Field<std::string>(line, "id", line_no));
      CILIA_ASSIGN_OR_RETURN(c.title, Field<std::string>(line, "title", line_no));
      CILIA_ASSIGN_OR_RETURN(c.created_at, Field<int64_t>(line, "created_at", line_no));
      CILIA_ASSIGN_OR_RETURN(c.updated_at, Field<int64_t>(line, "updated_at", line_no));
      CILIA_ASSIGN_OR_RETURN(c.next_seq, Field<int64_t>(line, "next_seq", line_no));
      if (d.messages.count(c.external_id)) {
        return Status::InvalidArgument(fmt::format("line {}: conversation \"{}\" appears twice", line_no, c.external_id));
      }
      d.messages[c.external_id];
      d.conversations.push_back(std::move(c));
    } else if (type == "message") {
      store::MessageRecord m;
      CILIA_ASSIGN_OR_RETURN(std::string conv, Field<std::string>(line, "conversation_id", line_no));
      auto it = d.messages.find(conv);
      if (it == d.messages.end()) {
        return Status::InvalidArgument(fmt::format("line {}: message of unknown conversation \"{}\"", line_no, conv));
      }
      CILIA_ASSIGN_OR_RETURN(m.id, Field<int64_t>(line, "id", line_no));
      CILIA_ASSIGN_OR_RETURN(m.seq, Field<int64_t>(line, "seq", line_no));
      if (line.contains("caller_id") && !line["caller_id"].is_null()) {
        CILIA_ASSIGN_OR_RETURN(m.caller_id, Field<std::string>(line, "caller_id", line_no));
      }
      CILIA_ASSIGN_OR_RETURN(m.role, Field<std::string>(line, "role", line_no));
      CILIA_ASSIGN_OR_RETURN(m.name, Field<std::string>(line, "name", line_no));
      if (!line.contains("content")) return Status::InvalidArgument(fmt::format("line {}: content: missing", line_no));
      m.content = line["content"].dump();
      CILIA_ASSIGN_OR_RETURN(m.text, Field<std::string>(line, "text", line_no));
      CILIA_ASSIGN_OR_RETURN(m.content_hash, Field<std::string>(line, "content_hash", line_no));
      CILIA_ASSIGN_OR_RETURN(m.created_at, Field<int64_t>(line, "created_at", line_no));
      CILIA_ASSIGN_OR_RETURN(m.stored_at, Field<int64_t>(line, "stored_at", line_no));
      CILIA_ASSIGN_OR_RETURN(m.source, Field<std::string>(line, "source", line_no));
      it->second.push_back(std::move(m));
    } else if (type == "file") {
      store::FileRecord f;
      CILIA_ASSIGN_OR_RETURN(f.sha256, Field<std::string>(line, "sha256", line_no));
      CILIA_ASSIGN_OR_RETURN(f.mime, Field<std::string>(line, "mime", line_no));
      CILIA_ASSIGN_OR_RETURN(f.created_at, Field<int64_t>(line, "created_at", line_no));
      CILIA_ASSIGN_OR_RETURN(std::string data, Field<std::string>(line, "data", line_no));
      auto bytes = Base64Decode(data);
      if (!bytes.ok()) return bytes.status().With(fmt::format("line {}: data", line_no));
      if (Sha256Hex(*bytes) != f.sha256) {
        return Status::InvalidArgument(fmt::format("line {}: file {} does not match its sha256", line_no, f.sha256));
      }
      f.size = static_cast<int64_t>(bytes->size());
      d.files.emplace_back(std::move(f), std::move(*bytes));
    } else if (IsUpkeepRecord(type)) {
      CILIA_RETURN_IF_ERROR(ParseUpkeepRecord(line, line_no, d.upkeep));
    } else if (IsExcerptLineType(type)) {
      CILIA_RETURN_IF_ERROR(ParseExcerptLine(line, line_no, d.excerpts));
    } else {
      return Status::InvalidArgument(fmt::format("line {}: unknown record type \"{}\"", line_no, type));
    }
  }
  if (!header) return Status::InvalidArgument("empty file: not a cilia export");
  return d;
}

}  // namespace

Status ExportNamespace(Namespace& ns, std::ostream& out) {
  return ns.store().Read([&](store::Database& db) -> Status {
    store::ReadSnapshot snapshot(db);  // the dump is one consistent snapshot
    CILIA_RETURN_IF_ERROR(snapshot.Begin());
    store::MessageRepo repo(db);
    out << json{{"type", "cilia-export"}, {"version", kExportFormatVersion}, {"namespace", ns.name()}}.dump() << '\n';
    CILIA_ASSIGN_OR_RETURN(auto convs, repo.AllConversations());
    std::sort(convs.begin(), convs.end(),
              [](const auto& a, const auto& b) { return a.external_id < b.external_id; });
    for (const auto& c : convs) {
      out << json{{"type", "conversation"}, {"id", c.external_id}, {"title", c.title},
                  {"created_at", c.created_at}, {"updated_at", c.updated_at}, {"next_seq", c.next_seq}}
                 .dump()
          << '\n';
      CILIA_ASSIGN_OR_RETURN(auto msgs, repo.MessagesFrom(c.id, 0));
      for (const auto& m : msgs) {
        json line = {{"type", "message"}, {"conversation_id", c.external_id}, {"id", m.id}, {"seq", m.seq},
                     {"caller_id", m.caller_id ? json(*m.caller_id) : json(nullptr)}, {"role", m.role},
                     {"name", m.name}, {"content", json::parse(m.content, nullptr, false)}, {"text", m.text},
                     {"content_hash", m.content_hash}, {"created_at", m.created_at},
                     {"stored_at", m.stored_at}, {"source", m.source}};
        out << line.dump() << '\n';
      }
    }
    CILIA_ASSIGN_OR_RETURN(auto files, repo.AllFiles());
    for (const auto& f : files) {
      CILIA_ASSIGN_OR_RETURN(std::string bytes, ns.store().files().Get(db, f.sha256));
      out << json{{"type", "file"}, {"sha256", f.sha256}, {"mime", f.mime}, {"created_at", f.created_at},
                  {"data", Base64Encode(bytes)}}
                 .dump()
          << '\n';
    }
    CILIA_RETURN_IF_ERROR(WriteUpkeepRecords(db, out));
    std::map<int64_t, std::string> external_ids;
    for (const auto& c : convs) external_ids[c.id] = c.external_id;
    CILIA_RETURN_IF_ERROR(ExportExcerpts(db, [&](int64_t row) { return external_ids[row]; }, out));
    out.flush();
    return out ? Status::Ok() : Status::IOError("writing the export failed");
  });
}

Result<ImportSummary> ImportNamespace(Namespace& ns, std::istream& in) {
  CILIA_ASSIGN_OR_RETURN(Dump dump, ParseDump(in));
  ImportSummary summary;
  CILIA_ASSIGN_OR_RETURN(int64_t existing, ns.store().Read([](store::Database& db) {
    return store::MessageRepo(db).CountMessages();
  }));
  CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::MessageRepo repo(db);
    // Files first, messages refer to them; under the writer lock, as a forget
    // removes the files that have no row.
    for (const auto& [f, bytes] : dump.files) {
      CILIA_RETURN_IF_ERROR(ns.store().files().Put(db, f.sha256, bytes));
      CILIA_RETURN_IF_ERROR(repo.PutFile(f.sha256, f.mime, f.size, f.created_at));
      ++summary.files;
    }
    for (const auto& c : dump.conversations) {
      CILIA_ASSIGN_OR_RETURN(auto found, repo.FindConversation(c.external_id));
      store::ConversationRecord conv;
      if (found) {
        conv = *found;
      } else {
        CILIA_ASSIGN_OR_RETURN(conv, repo.CreateConversation(c.external_id, c.title, c.created_at));
        conv.updated_at = c.updated_at;
        ++summary.conversations;
      }
      for (store::MessageRecord m : dump.messages[c.external_id]) {
        if (existing > 0) {
          // Merge: keep the old public id so a second import is a no-op,
          // whether the first kept the dump's row ids or gave new ones.
          if (!m.caller_id) m.caller_id = "m_" + std::to_string(m.id);
          CILIA_ASSIGN_OR_RETURN(auto there, FindByPublicId(repo, conv.id, *m.caller_id));
          // Found by row id with other words: another message that happens
          // to have that row id here, not this one.
          if (there && !there->caller_id && there->content_hash != m.content_hash) there.reset();
          if (there) {
            if (there->content_hash != m.content_hash) {
              return Status::Conflict(fmt::format("conversation \"{}\": message \"{}\" exists with other content",
                                                  c.external_id, *m.caller_id));
            }
            ++summary.duplicates;
            continue;
          }
          m.id = 0;
          m.seq = conv.next_seq++;
        } else {
          conv.next_seq = std::max(conv.next_seq, m.seq + 1);
        }
        CILIA_RETURN_IF_ERROR(repo.Append(conv, m));
        ++summary.messages;
      }
      if (existing == 0) conv.next_seq = std::max(conv.next_seq, c.next_seq);
      CILIA_RETURN_IF_ERROR(repo.SaveConversation(conv));
      ns.PutTitle(conv.id, conv.title);
    }
    CILIA_RETURN_IF_ERROR(RestoreUpkeep(db, dump.upkeep));
    CILIA_ASSIGN_OR_RETURN(auto excerpts, ImportExcerpts(db, dump.excerpts, ExcerptMessageLocator(repo, dump.messages, existing == 0)));
    summary.excerpts = excerpts.excerpts;
    summary.candidates = excerpts.candidates;
    return tx.Commit();
  }));
  CILIA_RETURN_IF_ERROR(ns.excerpts().Rebuild(ns.store(), ns.embedder(), ns.options().hnsw_threshold));
  CILIA_RETURN_IF_ERROR(Archive(ns).IndexPending());
  return summary;
}

}  // namespace cilia::memory
