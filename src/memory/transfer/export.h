// Lossless export and import of one namespace as JSON Lines: a header line,
// then conversations, their messages (verbatim content, cilia's ids and
// positions), stored files (base64), and the curated and nightly records of
// memory/upkeep_dump.h (profile with versions, glossary, precious, daily
// logs, digests, rollups). Derived data (windows, indexes,
// vectors) is not exported: import rebuilds it. Export, import into an empty
// namespace, export again gives the same bytes.
#pragma once

#include <istream>
#include <ostream>

#include "core/status.h"
#include "memory/namespace.h"

namespace cilia::memory {

inline constexpr int kExportFormatVersion = 1;

Status ExportNamespace(Namespace& ns, std::ostream& out);

struct ImportSummary {
  int conversations = 0;
  int messages = 0;
  int duplicates = 0;
  int files = 0;
  int excerpts = 0;  // L1 excerpts added (with their history)
  int candidates = 0;
};

// Reads and checks the whole dump before writing anything; a bad line is an
// InvalidArgument naming it. Into an empty namespace the dump is restored as
// it was (ids, positions); into a namespace that has messages it is merged:
// messages already there (same conversation and id) are duplicates, and
// messages without a caller id keep their old public id ("m_<n>") as theirs.
Result<ImportSummary> ImportNamespace(Namespace& ns, std::istream& in);

}  // namespace cilia::memory
