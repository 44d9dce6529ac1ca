// Importing a file into a namespace, over HTTP and from the CLI — one code
// path for both (`cilia ingest` / `cilia import` call ImportFile directly
// when no server holds the data dir):
//   POST /v1/import  (admin) body: the file's bytes — a cilia dump or a chat
//                    export; ?format= (auto, cilia, jsonl, chatgpt, claude,
//                    chatbox, sillytavern), ?name= the file's name (a
//                    SillyTavern chat's id) -> {"format", "conversations",
//                    "stored", "duplicates", "extraction"} (a dump adds
//                    "files", "excerpts", "candidates")
// "extraction" says what extracting the messages the job has not read yet
// would take (memory::ExtractionEstimate::ToJson) — of the imported
// conversations for a chat export, of the whole namespace for a dump — and
// whether the job takes them on its own ("automatic": imported history waits
// for a backfill unless extraction.backfill is on; docs/upkeep.md).
// The body is bounded by server.max_body_mb, like every other.
// RegisterAdminRoutes registers the route: the admin page imports through it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "api/server.h"
#include "core/config.h"
#include "core/status.h"
#include "memory/namespace.h"
#include "memory/registry.h"

namespace cilia::api {

// How far an import is: `done` of `total` `unit`s ("messages" indexed of a
// chat export, "bytes" read of a dump).
using ImportProgress = std::function<void(int64_t done, int64_t total, std::string_view unit)>;

// Parses all of `text` as `format` (the names above; "auto" tells a cilia
// dump by its header line and anything else as `cilia ingest` does), then
// stores and indexes it: searchable when this returns. A malformed file
// stores nothing; the error says where (a line, a position). An unknown
// format is an InvalidArgument starting with "format:". `file_name` names a
// SillyTavern chat's conversation (its stem). `config` gives the
// extraction settings the estimate follows. Returns POST /v1/import's reply.
Result<nlohmann::json> ImportFile(memory::Namespace& ns, const Config& config, std::string_view text,
                                  std::string_view format, std::string_view file_name,
                                  const ImportProgress& progress = {});

void RegisterImportRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
