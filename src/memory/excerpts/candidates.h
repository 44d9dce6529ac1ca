// The candidates queue (docs/memory.md): items the extractor was not sure
// enough of, or that would update an excerpt it may not touch, waiting for
// the owner's decision. Each decision is recorded on the candidate, and what
// it does to excerpts goes through memory::Excerpts (so into their history).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "memory/excerpts/excerpts.h"
#include "memory/namespace.h"
#include "store/excerpt_repo.h"

namespace cilia::memory {

class Candidates {
 public:
  explicit Candidates(Namespace& ns) : ns_(ns) {}

  // Queues an item (idempotent: a pending candidate with the same quote
  // span and content is returned instead). Returns the candidate.
  Result<store::CandidateRecord> Queue(const Excerpts::Draft& draft, const std::string& date,
                                       const std::string& reason, std::optional<int64_t> target_id);

  Result<std::optional<store::CandidateRecord>> Get(int64_t id);
  // A page, newest first; without a status all.
  Result<std::vector<store::CandidateRecord>> List(std::optional<store::CandidateStatus> status, const store::PageRequest& page);

  // The candidate becomes an active excerpt. When it names a target (an
  // update) or its fact_key is held by an active excerpt, that excerpt is
  // superseded by the new one. Conflict, with the reason, when that excerpt
  // was written by the owner (approve must not overwrite it: edit it, or
  // supersede it explicitly). Returns the new excerpt.
  Result<store::ExcerptRecord> Approve(int64_t id, Author who);
  Status Discard(int64_t id, Author who);
  // The candidate says what `target_id` says: the target is seen again
  // (confidence the higher), the candidate marked merged.
  Result<store::ExcerptRecord> Merge(int64_t id, int64_t target_id, Author who);
  // The candidate becomes an excerpt superseding `target_id`, an explicit
  // decision (allowed over pinned and owner-written targets).
  Result<store::ExcerptRecord> Supersede(int64_t id, int64_t target_id, Author who);

 private:
  // Loads a pending candidate; NotFound / Conflict (already decided).
  Result<store::CandidateRecord> Pending(int64_t id);
  Status Decide(store::CandidateRecord c, store::CandidateStatus status, std::optional<int64_t> result_id,
                Author who);
  Excerpts::Draft DraftOf(const store::CandidateRecord& c);

  Namespace& ns_;
};

// {"id", "content", "quote", "conversation_id", "message_ids", "type",
//  "fact_key", "confidence", "date", "reason", "target_id", "status",
//  "result_id", "decided_by", "created_at", "updated_at"}
Result<nlohmann::json> CandidateListJson(Namespace& ns, const std::vector<store::CandidateRecord>& list);

}  // namespace cilia::memory
