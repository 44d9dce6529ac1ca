// The per-turn menu (DESIGN.md §5 "Menu"): a few one-line hints of what the
// archive holds that may bear on the turn, injected every turn so the model
// can tell whether to call its recall tool. Building it is a look, not a
// recall: access counts stay as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"

namespace cilia::memory {

struct MenuRequest {
  std::vector<std::string> user_texts;  // the last user messages, newest last (1–2 is typical)
  std::string previous_assistant;       // the assistant's previous reply ("echo"); may be empty
  UnixMs now = 0;                       // 0: the namespace clock's now
  // Windows wholly inside what the client sends anyway (this conversation,
  // messages with seq >= visible_from_seq) are left out.
  std::optional<int64_t> conversation_row;
  int64_t visible_from_seq = 0;
  int max_lines = 6;
  int token_budget = 150;  // EstimateTokens over the lines' texts together
  int line_chars = 60;     // code points a line's text may have, date included
  // The share of the newest user text's word weight (idf) a line's source
  // must hold (gateway.menu_min_match).
  double min_match = 0.4;
};

struct MenuLine {
  std::string text;  // "MM-DD sentence", the full date when not the year of `now`
  std::string conversation_id;
  std::vector<std::string> message_ids;
  UnixMs created_at = 0;
};

struct Menu {
  std::vector<MenuLine> lines;
};

// The archive's windows and excerpts that bear on the turn, one line each:
// a window's sentence sharing the most query terms (a statement before a
// question), an excerpt's content, cut to line_chars ("…" where cut), after
// its date in the owner's zone. The query is the newest user text whole,
// plus the tails of the older user texts and of the previous reply (their
// time words left out). Time words raise what lies in their span and filter
// nothing; a span after `now` raises nothing. A line only when its source
// holds min_match of the newest text's word weight (fewer lines
// rather than noise); never one the client sends anyway or the turn's own
// words; one line a source (an excerpt and the window it quotes are one);
// statements before questions. One Recall, which counts no access. An
// empty query gives an empty menu.
Result<Menu> BuildMenu(Namespace& ns, const MenuRequest& request);

// The block for the volatile part of the prompt: a header line, then
// "- MM-DD text" per line. "" when the menu has no lines.
std::string RenderMenu(const Menu& menu);

}  // namespace cilia::memory
