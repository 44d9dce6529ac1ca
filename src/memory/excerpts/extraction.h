// The extraction job (DESIGN.md §7, docs/memory.md): L1 excerpts from the
// messages of every conversation that the job has not read yet, by the cheap
// model (models.extract), in the exchange CONTRACT.md fixes.
//
// Per conversation, from its cursor: once at least extraction.min_messages
// new messages wait (or fewer, once the conversation has been quiet for
// extraction.idle_minutes), batches of at most batch_size messages, the
// first `overlap` of them already extracted and sent as context only. Each
// item's quote must be found, mechanically, in one new message of its batch
// (FindQuote); else it is dropped and counted. Kept items meet the active
// excerpts that share their fact_key or are similar in vector space: a second
// small call asks the model which of those say the same (seen again) and
// which the item updates or contradicts (superseded, reversibly). Items under
// review_threshold, and updates of pinned or hand-written excerpts, go to the
// candidates queue.
//
// Failures never move the cursor silently: a reply without the items object
// is retried at once with half the batch; a batch that still fails is tried
// again on the next run, and after three failed runs it is marked failed (in
// extraction_batches and the outcome) and skipped. A batch that succeeded has
// its content hash recorded and is never sent again. An upstream that cannot
// be reached stops the run without counting against any batch.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "memory/namespace.h"
#include "store/archive_records.h"

namespace cilia::memory {

struct ExtractionOutcome {
  int conversations = 0;    // conversations that had messages to extract
  int batches_ok = 0;
  int batches_failed = 0;   // failed this run; tried again next run
  int batches_skipped = 0;  // failed a third run: marked failed, cursor moved past
  int batches_cached = 0;   // the same content succeeded before: not sent again
  int items_added = 0;
  int items_seen = 0;        // the same fact again: the old excerpt's seen_count went up
  int items_superseded = 0;  // old excerpts superseded by new ones
  int items_candidates = 0;  // queued for review
  int items_dropped = 0;     // quote not found in the batch's new messages
  int model_calls = 0;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  std::vector<std::string> errors;  // one readable line per failed or skipped batch
  std::string upstream_error;       // set when the model could not be reached; the run stopped there

  nlohmann::json ToJson() const;
};

// Runs the job once over every conversation of the namespace.
Result<ExtractionOutcome> RunExtraction(Namespace& ns, const Config& config, const Clock& clock);

// The pieces of the exchange, for tests and the benchmark.

// One message of a batch as the model sees it.
struct BatchMessage {
  const store::MessageRecord* message = nullptr;
  bool context = false;  // already extracted: shown, not to be excerpted
};

// The OpenAI-shaped request (without "model"): the instructions first as the
// system message, then one user message with the conversation's title and
// the messages, each as a header line "[id · local time · speaker]" (marked
// "(context)" for the overlap) followed by its text verbatim — the owner's
// words of it: client harness blocks (text/harness.h) are left out, and a
// message that is nothing else is not listed.
nlohmann::json ExtractionRequest(const std::vector<BatchMessage>& batch, const std::string& conversation_title,
                                 const TimeZone& tz, int max_items);

struct ExtractedItem {
  std::string date;
  std::string content;
  std::string quote;
  std::string type = "other";  // unknown types read as other
  std::optional<std::string> fact_key;
  double confidence = 0.5;     // missing: 0.5, which goes to review
};

// The first `max_items` items of the reply's {"items": [...]} object, which
// may sit in a code fence or among other words; items without a content or
// quote string are left out. InvalidArgument when there is no such object.
Result<std::vector<ExtractedItem>> ParseExtractionReply(const std::string& reply, int max_items);

// "Chinese", "Japanese", "Korean", or "" (the model is then asked to keep
// the messages' language): what most letters of the texts are.
std::string DominantLanguage(const std::vector<BatchMessage>& batch);

}  // namespace cilia::memory
