#include "text/harness.h"

#include <algorithm>
#include <iterator>

#include "text/utf8.h"

namespace cilia::text {
namespace {

// What the clients write into user turns. Claude Code: its reminders, the
// echo of a slash command and of a `!` shell command, a hook's output (a
// slash command's arguments, <command-args>, are the owner's words and stay).
// Codex CLI (0.171): the environment, AGENTS.md (as "# AGENTS.md
// instructions for <dir>" then an <INSTRUCTIONS> block; older versions sent
// <user_instructions>), and its other context messages.
constexpr HarnessTag kTags[] = {
    {U"system-reminder", U"", "Claude Code"},
    {U"command-name", U"", "Claude Code"},
    {U"command-message", U"", "Claude Code"},
    {U"local-command-caveat", U"", "Claude Code"},
    {U"local-command-stdout", U"", "Claude Code"},
    {U"local-command-stderr", U"", "Claude Code"},
    {U"bash-input", U"", "Claude Code"},
    {U"bash-stdout", U"", "Claude Code"},
    {U"bash-stderr", U"", "Claude Code"},
    {U"user-prompt-submit-hook", U"", "Claude Code"},
    {U"environment_context", U"", "Codex"},
    {U"user_instructions", U"", "Codex"},
    {U"INSTRUCTIONS", U"# AGENTS.md instructions for ", "Codex"},
    {U"user_shell_command", U"", "Codex"},
    {U"turn_aborted", U"", "Codex"},
    {U"subagent_notification", U"", "Codex"},
    {U"skills_instructions", U"", "Codex"},
    {U"plugins_instructions", U"", "Codex"},
    {U"apps_instructions", U"", "Codex"},
    {U"collaboration_mode", U"", "Codex"},
    {U"permissions instructions", U"", "Codex"},
    {U"model_switch", U"", "Codex"},
    {U"context_window_reminder", U"", "Codex"},
    {U"personality_spec", U"", "Codex"},
};
constexpr size_t kTagCount = std::size(kTags);

// How far back a lead line is looked for: a line naming a directory, not a page.
constexpr size_t kLeadReach = 4096;

// The tag whose name starts at text[at] and is closed by '>', or kTagCount.
size_t TagAt(std::u32string_view text, size_t at) {
  for (size_t t = 0; t < kTagCount; ++t) {
    const std::u32string_view name = kTags[t].name;
    if (text.size() - at > name.size() && text.substr(at, name.size()) == name && text[at + name.size()] == U'>') {
      return t;
    }
  }
  return kTagCount;
}

// `begin` moved back over the tag's lead line, when that line comes right before it.
size_t WithLead(std::u32string_view text, size_t begin, std::u32string_view lead) {
  if (lead.empty()) return begin;
  size_t k = begin;
  while (k > 0 && IsWhitespace(text[k - 1])) --k;
  const size_t floor = k > kLeadReach ? k - kLeadReach : 0;
  size_t line = k;
  while (line > floor && text[line - 1] != U'\n') --line;
  if (line > floor || line == 0) {
    if (text.substr(line, lead.size()) == lead) return line;
  }
  return begin;
}

// The harness blocks of `text`, merged, in order.
std::vector<Span> Blocks(std::u32string_view text) {
  std::vector<Span> blocks;
  std::vector<size_t> open[kTagCount];  // unmatched openings per tag
  for (size_t i = text.find(U'<'); i != std::u32string_view::npos; i = text.find(U'<', i + 1)) {
    if (i + 1 < text.size() && text[i + 1] == U'/') {
      const size_t t = TagAt(text, i + 2);
      if (t == kTagCount || open[t].empty()) continue;
      const size_t begin = WithLead(text, open[t].back(), kTags[t].lead);
      open[t].pop_back();
      blocks.push_back({begin, i + 3 + kTags[t].name.size()});
    } else {
      const size_t t = TagAt(text, i + 1);
      if (t != kTagCount) open[t].push_back(i);
    }
  }
  if (blocks.empty()) return blocks;
  std::sort(blocks.begin(), blocks.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> merged{blocks.front()};
  for (const Span& b : blocks) {
    if (b.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, b.end);
    } else {
      merged.push_back(b);
    }
  }
  return merged;
}

void AddTrimmed(std::u32string_view text, size_t begin, size_t end, std::vector<Span>& out) {
  while (begin < end && IsWhitespace(text[begin])) ++begin;
  while (end > begin && IsWhitespace(text[end - 1])) --end;
  if (begin < end) out.push_back({begin, end});
}

// The trimmed ranges between `blocks`.
std::vector<Span> Between(std::u32string_view text, const std::vector<Span>& blocks) {
  std::vector<Span> out;
  size_t from = 0;
  for (const Span& block : blocks) {
    AddTrimmed(text, from, block.begin, out);
    from = block.end;
  }
  AddTrimmed(text, from, text.size(), out);
  return out;
}

}  // namespace

std::span<const HarnessTag> KnownHarnessTags() { return kTags; }

std::vector<Span> OwnWordSpans(std::u32string_view text) { return Between(text, Blocks(text)); }

std::string OwnWords(std::string_view text) {
  if (text.find('<') == std::string_view::npos) return std::string(text);
  const std::u32string cps = DecodeUtf8(text);
  const std::vector<Span> blocks = Blocks(cps);
  if (blocks.empty()) return std::string(text);
  std::string out;
  for (const Span& s : Between(cps, blocks)) {
    if (!out.empty()) out += '\n';
    out += EncodeUtf8(std::u32string_view(cps).substr(s.begin, s.size()));
  }
  return out;
}

}  // namespace cilia::text
