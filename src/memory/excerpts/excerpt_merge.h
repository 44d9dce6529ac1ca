// The nightly duplicate merge of L1 excerpts (DESIGN.md §7). The extraction
// job judges each new item against the old ones as it arrives, yet the same
// fact can still be stored twice: written by agents, extracted from two
// conversations in one run, or approved from the review queue. This pass
// finds, without a model, active excerpts that say the same thing — the same
// content once case, width, whitespace and punctuation are set aside
// (ExcerptContentKey), or the same quoted span of the same message — and
// merges each into the one that stays (Excerpts::MergeInto: reversible, with
// history). The one that stays is the pinned one, else the owner's, else the
// agent's, else the most often seen, else the oldest; pinned and
// owner- or agent-written excerpts are never merged away.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"

namespace cilia::memory {

struct MergeOutcome {
  std::vector<std::pair<int64_t, int64_t>> merged;  // (duplicate, kept)
  int kept_apart = 0;  // duplicates of which neither may be merged away automatically
};

Result<MergeOutcome> MergeDuplicateExcerpts(Namespace& ns);

}  // namespace cilia::memory
