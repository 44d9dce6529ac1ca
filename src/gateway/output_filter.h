// What the client receives, filtered (docs/gateway.md, "Output filters"):
// the last stage of a turn, after the stream splicer (or on the whole
// non-streamed reply), so it sees only what goes to the client — recall
// rounds run upstream of it. Two per-key switches drive it:
//
// - strip_reasoning: inline `<think>…</think>` is taken out of the text (with
//   the whitespace right after `</think>`; an unclosed `<think>` hides the
//   rest); chat `reasoning_content` / `reasoning` / `reasoning_details`
//   fields, Anthropic `thinking` / `redacted_thinking` blocks and Responses
//   `reasoning` items are dropped, and what remains is renumbered;
// - rewrite: the literal [gateway] rewrite rules, applied to the visible text
//   in one pass, the longest `from` winning at a position, output never
//   rescanned (reasoning fields and thinking blocks are not rewritten).
//
// A stream is filtered as it goes: only a possible partial match at the end
// of a piece (part of a tag or of a `from`) is held back, and it is let out
// when the next piece decides it, or at the end of its text. The result does
// not depend on where the pieces were cut. Nothing here fails or throws:
// input the filter does not understand passes through.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "gateway/prompt_assembler.h"

namespace cilia::gateway {

struct OutputFilterOptions {
  bool strip_reasoning = false;
  std::vector<RewriteRule> rewrite;  // empty when the key's rewrite switch is off

  // The turn's switches (config with the key's overrides) over the config's rules.
  static OutputFilterOptions For(const FeaturesConfig& features, const GatewayConfig& gateway);
  // False: the filter changes nothing and passes bytes as they came.
  bool active() const { return strip_reasoning || !rewrite.empty(); }
};

// The text of one answer (one content stream, block or part), fed in pieces.
// It owns its options through the shared pointer: filters of one turn share
// them, and none can outlive them.
class TextFilter {
 public:
  explicit TextFilter(std::shared_ptr<const OutputFilterOptions> options);

  // The part of the text so far that is decided.
  std::string Feed(std::string_view text);
  // The text is over: what was held back, decided as final.
  std::string Finish();

 private:
  enum class State { kText, kThinking, kAfterThinking };
  // Decides what it can of pending_; `final`: no more text follows.
  std::string Run(bool final);

  std::shared_ptr<const OutputFilterOptions> options_;
  std::vector<std::string_view> opens_;  // what starts a match: "<think>" (when stripping), then each `from`
  bool starts_[256] = {};                // first bytes of opens_
  State state_ = State::kText;
  std::string pending_;  // fed but not decided
};

// A whole text through a fresh TextFilter.
std::string FilterText(const std::shared_ptr<const OutputFilterOptions>& options, std::string_view text);

// A non-streamed reply in the client's format (`wire`), filtered.
nlohmann::json FilterReply(nlohmann::json reply, Wire wire, const OutputFilterOptions& options);

// The SSE of a streamed reply in the client's format, filtered.
class StreamFilter {
 public:
  static std::unique_ptr<StreamFilter> Create(Wire wire, OutputFilterOptions options);
  virtual ~StreamFilter() = default;

  // Client-format SSE bytes in pieces of any size; returns what goes out now.
  virtual std::string Feed(std::string_view frames) = 0;
  // The stream is over: the text still held back.
  virtual std::string Finish() = 0;
  virtual bool active() const = 0;
  // The answer's text as the client received it so far (choice 0, every
  // text block, every output_text part, joined), when active.
  virtual const std::string& visible_text() const = 0;
};

}  // namespace cilia::gateway
