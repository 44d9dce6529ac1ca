// Client harness text: the blocks a chat client writes into a user turn on
// its own (Claude Code's <system-reminder>, Codex's <environment_context>, …).
// They are stored verbatim like every word of a turn, but they are not the
// owner's words: titles, menu lines, extraction and the lexical and vector
// indexes use only what is left when they are taken out (docs/clients.md).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/sentences.h"

namespace cilia::text {

struct HarnessTag {
  std::u32string_view name;  // "system-reminder": the block runs from <name> to its </name>
  std::u32string_view lead;  // a line that, right before the block, belongs to it ("" for none)
  std::string_view client;   // who writes it, for the docs and tests
};

// Every harness tag cilia knows, in one table.
std::span<const HarnessTag> KnownHarnessTags();

// The code-point ranges of `text` outside harness blocks, in order, each
// trimmed of surrounding whitespace; whitespace-only ranges are left out.
// Text without a block is one range (none when it is blank).
// A block is an opening tag exactly as the table spells it up to its matching
// closing tag (the same tag nested inside counts to the depth), with its lead
// line when one comes right before it; a block inside another goes with it.
// An opening without a close is not a block: its text stays the owner's.
// Linear in the text's length (plus a sort of the blocks found).
std::vector<Span> OwnWordSpans(std::u32string_view text);

// The owner's own words of a message: `text` itself when it holds no harness
// block, else the ranges of OwnWordSpans joined by "\n" ("" when nothing is left).
std::string OwnWords(std::string_view text);

}  // namespace cilia::text
