#include "memory/recall/menu.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "text/segmenter.h"
#include "text/sentences.h"
#include "text/timewords.h"
#include "text/tokens.h"
#include "text/utf8.h"
#include "index/lexical.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/public_id.h"
#include "memory/recall/recall.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "store/window_repo.h"

namespace cilia::memory {

namespace {

// How much of the older user texts and of the previous reply joins the
// query: their ends, nearest the new turn, so that a long reply does not
// drown the user's words.
constexpr size_t kContextTailChars = 300;

bool IsBlank(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    if (!text::IsWhitespace(text::NextCodePoint(s, &pos))) return false;
  }
  return true;
}

std::string Tail(std::string_view s, size_t chars) {
  const size_t n = text::CodePointCount(s);
  return n <= chars ? std::string(s) : text::SubstrCodePoints(s, n - chars, chars);
}

std::string MenuQuery(const MenuRequest& request, UnixMs now, const TimeZone& tz) {
  std::string query;
  auto add = [&](std::string_view part) {
    if (IsBlank(part)) return;
    if (!query.empty()) query += '\n';
    query += part;
  };
  if (!request.user_texts.empty()) add(request.user_texts.back());
  // Context, not the question: a "yesterday" in it must not become a date filter.
  auto add_context = [&](std::string_view s) { add(ParseTimeWords(Tail(s, kContextTailChars), now, tz).rest); };
  for (size_t i = request.user_texts.size(); i-- > 1;) add_context(request.user_texts[i - 1]);
  add_context(request.previous_assistant);
  return query;
}

// The query's words that the archive holds, stop words left out, as the
// lexical lane chooses them.
std::unordered_set<std::string> QueryTerms(Namespace& ns, const std::string& query) {
  const index::LexicalTerms chosen = index::ChooseTerms(ns.words(), query);
  std::unordered_set<std::string> terms(chosen.terms.begin(), chosen.terms.end());
  terms.insert(chosen.dropped.begin(), chosen.dropped.end());
  return terms;
}

std::u32string CollapseWhitespace(std::u32string_view s) {
  std::u32string out;
  for (char32_t c : s) {
    if (!text::IsWhitespace(c)) {
      out += c;
    } else if (!out.empty() && out.back() != U' ') {
      out += U' ';
    }
  }
  return out;
}

// The sentence of `body` sharing the most distinct terms; the first one on a
// tie, and when none shares any (a hit of the vector lane).
std::u32string BestSentence(std::string_view body, const std::unordered_set<std::string>& terms) {
  const std::u32string cps = text::DecodeUtf8(body);
  const std::u32string_view all(cps);
  std::u32string_view best;
  size_t best_shared = 0;
  for (const text::Span& span : text::SplitSentences(all)) {
    const std::u32string_view sentence = all.substr(span.begin, span.size());
    if (best.empty()) best = sentence;
    if (terms.empty()) break;
    std::unordered_set<std::string> shared;
    text::WordSegmenter::Get().ForEachWord(text::EncodeUtf8(sentence), [&](std::string_view word) {
      std::string w(word);
      if (terms.count(w)) shared.insert(std::move(w));
    });
    if (shared.size() > best_shared) {
      best = sentence;
      best_shared = shared.size();
    }
  }
  return CollapseWhitespace(best);
}

// `sentence` in at most `chars` code points: whole, or its first piece and
// "…", cut where segments are cut (at whitespace or a clause mark when there
// is one, never inside an emoji sequence or before a combining mark).
std::string FitToChars(std::u32string_view sentence, size_t chars) {
  if (sentence.size() <= chars) return text::EncodeUtf8(sentence);
  const text::Span head = text::SplitSegments(sentence, chars > 1 ? chars - 1 : 1).front();
  return text::EncodeUtf8(sentence.substr(head.begin, head.size())) + "…";
}

// "MM-DD", or "YYYY-MM-DD" when not the year of `now`, in the owner's zone.
std::string DatePrefix(UnixMs at, UnixMs now, const TimeZone& tz) {
  const CivilDate date = tz.LocalDate(at);
  if (date.year == tz.LocalDate(now).year) return fmt::format("{:02}-{:02}", date.month, date.day);
  return date.ToString();
}

// Whether every message the result quotes is in the part of the conversation
// the client sends with this request.
Result<bool> ClientSeesIt(store::Database& db, const MenuRequest& request, const store::WindowRecord& window,
                          const RecallResult& result) {
  if (!request.conversation_row || window.conversation_id != *request.conversation_row || result.message_ids.empty()) {
    return false;
  }
  // The ids are in conversation order: the first is the earliest message.
  store::MessageRepo messages(db);
  const std::string& first = result.message_ids.front();
  CILIA_ASSIGN_OR_RETURN(auto message, FindByPublicId(messages, window.conversation_id, first));
  return message && message->seq >= request.visible_from_seq;
}

// `sentence` after the result's date, cut to fit line_chars.
MenuLine LineOf(const RecallResult& result, const std::u32string& sentence, const MenuRequest& request, UnixMs now,
                const TimeZone& tz) {
  MenuLine line;
  if (sentence.empty()) return line;
  const std::string date = DatePrefix(result.created_at, now, tz);
  const size_t room = static_cast<size_t>(
      std::max<int64_t>(1, int64_t{request.line_chars} - static_cast<int64_t>(text::CodePointCount(date)) - 1));
  line.text = date + " " + FitToChars(sentence, room);
  line.conversation_id = result.conversation_id;
  line.message_ids = result.message_ids;
  line.created_at = result.created_at;
  return line;
}

MenuLine WindowLine(const RecallResult& result, const store::WindowRecord& window,
                    const std::unordered_set<std::string>& terms, const MenuRequest& request, UnixMs now,
                    const TimeZone& tz) {
  return LineOf(result, BestSentence(window.body, terms), request, now, tz);
}

}  // namespace

Result<Menu> BuildMenu(Namespace& ns, const MenuRequest& request) {
  Menu menu;
  const UnixMs now = request.now != 0 ? request.now : ns.clock().Now();
  const std::string query = MenuQuery(request, now, ns.tz());
  if (query.empty() || request.max_lines <= 0) return menu;

  RecallRequest recall;
  recall.query = query;
  // More than fit: some are left out as visible, or as over the budget.
  recall.limit = std::clamp(2 * request.max_lines, 1, ns.options().max_limit);
  recall.now = now;
  CILIA_ASSIGN_OR_RETURN(RecallReply reply, Recall(ns, recall, /*count_access=*/false));
  if (reply.results.empty()) return menu;

  const std::unordered_set<std::string> terms = QueryTerms(ns, query);
  int tokens = 0;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    for (const RecallResult& result : reply.results) {
      if (static_cast<int>(menu.lines.size()) >= request.max_lines) break;
      MenuLine line;
      if (result.layer == "excerpt") {
        // An L1 excerpt's line is its content.
        const std::optional<int64_t> id = ParseExcerptId(result.id);
        if (!id) continue;
        CILIA_ASSIGN_OR_RETURN(auto excerpt, store::ExcerptRepo(db).Get(*id));
        if (!excerpt) continue;  // forgotten since the recall
        line = LineOf(result, text::DecodeUtf8(excerpt->content), request, now, ns.tz());
      } else {
        const std::optional<int64_t> id = ParsePublicId(IdKind::kWindow, result.id);
        if (!id) continue;
        CILIA_ASSIGN_OR_RETURN(auto window, windows.Get(*id));
        if (!window) continue;  // rebuilt since the recall
        CILIA_ASSIGN_OR_RETURN(bool visible, ClientSeesIt(db, request, *window, result));
        if (visible) continue;
        line = WindowLine(result, *window, terms, request, now, ns.tz());
      }
      if (line.text.empty()) continue;
      const int cost = text::EstimateTokens(line.text);
      if (tokens + cost > request.token_budget) continue;
      tokens += cost;
      menu.lines.push_back(std::move(line));
    }
    return Status::Ok();
  }));
  return menu;
}

std::string RenderMenu(const Menu& menu) {
  if (menu.lines.empty()) return "";
  std::string out = "Possibly relevant memories (the `recall` tool returns their full text):";
  for (const MenuLine& line : menu.lines) {
    out += "\n- ";
    out += line.text;
  }
  return out;
}

}  // namespace cilia::memory
