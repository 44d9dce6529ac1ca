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
//
// What it costs is bounded (docs/memory.md "What extraction costs"): a run
// sends at most extraction.max_batches_per_run batches, and none whose
// estimated prompt would take the day's spending past
// extraction.daily_token_budget; the cursor stays where the run stopped, so
// the next run (or the next local day) goes on from there. Imported history
// (messages of source "import") waits until the owner asks for it:
// extraction.backfill, or a run with backfill, which approves every imported
// message stored at that moment for this and the later runs.
// EstimateExtraction says beforehand what extracting a set of conversations
// takes, with the same batches and requests.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "core/work_progress.h"
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
  // Why the run stopped before the end of the work: "" (it did not),
  // "max_batches_per_run" (the next run goes on) or "daily_token_budget"
  // (the first run of the next local day, `resumes`, goes on).
  std::string stopped;
  std::string resumes;                // "next run" or the local day "YYYY-MM-DD"
  int64_t daily_token_budget = 0;     // the budget this run kept to (0: none)
  int64_t spent_today = 0;            // tokens spent today, this run's included
  bool backfill = false;              // the run took imported history too
  int waiting_conversations = 0;      // conversations whose imported history waits for a backfill
  int64_t waiting_messages = 0;       // their messages not extracted yet

  nlohmann::json ToJson() const;
};

// What a run is given besides the config.
struct ExtractionRunOptions {
  // Take imported history too, and approve every imported message stored
  // now for the later runs (which keep to the limits: a long history is
  // extracted over several runs).
  bool backfill = false;
  // Tokens extraction spent earlier today (the job runner counts them from
  // job_runs); the run adds its own.
  int64_t spent_today = 0;
  // Counts the messages done of those waiting, and the tokens spent.
  WorkProgress* progress = nullptr;
  // Called after every batch sent to the model, with the outcome so far.
  std::function<void(const ExtractionOutcome&)> checkpoint;
};

// Runs the job once over every conversation of the namespace.
Result<ExtractionOutcome> RunExtraction(Namespace& ns, const Config& config, const Clock& clock,
                                        const ExtractionRunOptions& options = {});

// What extracting the messages not read yet would take, as the job would
// batch them (each batch assumed to succeed): for the conversations of
// `conversation_rows`, or all of them when nullopt. Tokens are cilia's
// estimate (text/tokens.h) of the extraction prompts, instructions included;
// the replies and the duplicate judge's small calls come on top.
struct ExtractionEstimate {
  int64_t messages = 0;
  int64_t batches = 0;
  int64_t prompt_tokens = 0;
  // Of those, imported history that waits for a backfill.
  int64_t waiting_messages = 0;
  int64_t waiting_batches = 0;
  int64_t waiting_prompt_tokens = 0;

  // {"messages", "batches", "estimated_prompt_tokens", "automatic" (nothing
  // waits), "waiting_batches", "waiting_messages", "daily_token_budget",
  // "max_batches_per_run", "days_at_budget" (null without a budget)}.
  nlohmann::json ToJson(const ExtractionConfig& x) const;
};
Result<ExtractionEstimate> EstimateExtraction(Namespace& ns, const Config& config,
                                              const std::optional<std::vector<int64_t>>& conversation_rows);

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

// cilia's estimate of the prompt tokens of an ExtractionRequest: each
// message's text (text/tokens.h) and a few tokens for its role.
int64_t EstimateRequestTokens(const nlohmann::json& request);

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
