#include "memory/recall/menu.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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
#include "memory/recall/recall_stages.h"
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
  // Context, not the question: a "yesterday" in it must not raise that day.
  auto add_context = [&](std::string_view s) { add(ParseTimeWords(Tail(s, kContextTailChars), now, tz).rest); };
  for (size_t i = request.user_texts.size(); i-- > 1;) add_context(request.user_texts[i - 1]);
  add_context(request.previous_assistant);
  return query;
}

struct QuestionTerms {
  std::unordered_map<std::string, double> weight;  // term -> idf
  double total = 0;  // of the heaviest few (see Floor)
};

// Each term's idf with the turn counted as one more window holding it: the
// turn's own words weigh the same whether its window is indexed yet or not,
// and a word only the turn holds weighs most. The archive counts as at least
// kFloorMinWindows windows: in a young one every word is rare or in half of
// it, and the idf of a handful of windows would weigh by chance. `total` is
// the weight of the `heaviest` heaviest terms.
constexpr double kFloorMinWindows = 100;

QuestionTerms WeighTerms(Namespace& ns, const std::unordered_set<std::string>& terms, size_t heaviest) {
  QuestionTerms out;
  const double n = std::max(kFloorMinWindows, static_cast<double>(ns.words().size() + 1));
  std::vector<double> weights;
  for (const std::string& t : terms) {
    const auto df = static_cast<double>(ns.words().DocumentFrequency(t) + 1);
    const double idf = std::log((n - df + 0.5) / (df + 0.5) + 1.0);
    out.weight.emplace(t, idf);
    weights.push_back(idf);
  }
  heaviest = std::min(heaviest, weights.size());
  std::partial_sort(weights.begin(), weights.begin() + heaviest, weights.end(), std::greater<>());
  for (size_t i = 0; i < heaviest; ++i) out.total += weights[i];
  return out;
}

// What a line must hold a share of (MenuRequest::min_match): the newest user
// text's words, stop words left out, those no window holds too — in
// "我家猫叫什么来着" against an archive without a cat, 猫 is the word that
// matters, and leaving it out would let a line holding only 我家 pass. A long
// message asks several things at once, so the share is of its three heaviest
// words: a line holding what one of them is about is worth its place. A
// newest text that shares no word with the archive ("ok, go on") continues
// the turns before it: then a line needs one of the whole query's terms.
// Absolute, not relative to the best result: a turn nothing bears on gets no
// menu rather than its six nearest neighbours.
QuestionTerms Floor(Namespace& ns, std::string_view newest, const std::unordered_set<std::string>& query_terms) {
  std::unordered_set<std::string> words;
  bool shared = false;
  for (std::string& w : text::WordSegmenter::Get().Words(newest)) {
    if (text::IsStopWord(w)) continue;
    shared = shared || ns.words().DocumentFrequency(w) > 0;
    words.insert(std::move(w));
  }
  return shared ? WeighTerms(ns, words, 3) : WeighTerms(ns, query_terms, 1);
}

// The share of the question's weight that `body` holds.
double Coverage(std::string_view body, const QuestionTerms& question) {
  if (question.total <= 0) return 0;
  std::unordered_set<std::string> held;
  text::WordSegmenter::Get().ForEachWord(body, [&](std::string_view word) {
    std::string w(word);
    if (question.weight.count(w)) held.insert(std::move(w));
  });
  double sum = 0;
  for (const std::string& t : held) sum += question.weight.at(t);
  return std::min(1.0, sum / question.total);
}

// A line whose every word, stop words aside, is already in the turn: the
// turn's own words stored before the menu is built, a "晚安～" answering
// "晚安", a bare "好。". It tells the model nothing.
bool TellsNothingNew(std::u32string_view sentence, const std::unordered_set<std::string>& turn_words) {
  bool news = false;
  text::WordSegmenter::Get().ForEachWord(text::EncodeUtf8(sentence), [&](std::string_view word) {
    news = news || (!text::IsStopWord(word) && turn_words.count(std::string(word)) == 0);
  });
  return !news;
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

// The sentence of `body` sharing the most distinct terms, a statement before
// a question on a tie, else the first; empty when none shares any (a hit of
// the vector lane only: no line).
std::u32string BestSentence(std::string_view body, const std::unordered_set<std::string>& terms) {
  const std::u32string cps = text::DecodeUtf8(body);
  const std::u32string_view all(cps);
  std::u32string_view best;
  size_t best_shared = 0;
  bool best_asks = false;
  for (const text::Span& span : text::SplitSentences(all)) {
    const std::u32string_view sentence = all.substr(span.begin, span.size());
    std::unordered_set<std::string> shared;
    text::WordSegmenter::Get().ForEachWord(text::EncodeUtf8(sentence), [&](std::string_view word) {
      std::string w(word);
      if (terms.count(w)) shared.insert(std::move(w));
    });
    const bool asks = text::IsQuestion(sentence);
    if (shared.size() > best_shared || (shared.size() == best_shared && best_shared > 0 && best_asks && !asks)) {
      best = sentence;
      best_shared = shared.size();
      best_asks = asks;
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

// Whether the result quotes a message of the part of the conversation the
// client sends with this request (the current turn's own among them).
Result<bool> ClientSeesAny(store::Database& db, const MenuRequest& request, int64_t conversation_row,
                           const RecallResult& result) {
  if (!request.conversation_row || conversation_row != *request.conversation_row || result.message_ids.empty()) {
    return false;
  }
  // The ids are in conversation order: the last is the latest message.
  store::MessageRepo messages(db);
  const std::string& last = result.message_ids.back();
  CILIA_ASSIGN_OR_RETURN(auto message, FindByPublicId(messages, conversation_row, last));
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

}  // namespace

Result<Menu> BuildMenu(Namespace& ns, const MenuRequest& request) {
  Menu menu;
  const UnixMs now = request.now != 0 ? request.now : ns.clock().Now();
  const std::string query = MenuQuery(request, now, ns.tz());
  if (query.empty() || request.max_lines <= 0) return menu;

  RecallRequest recall;
  recall.query = query;
  // More than fit: some are left out as visible, below the floor, or over the budget.
  recall.limit = std::clamp(2 * request.max_lines, 1, ns.options().max_limit);
  recall.now = now;
  recall.time_words_filter = false;
  CILIA_ASSIGN_OR_RETURN(RecallReply reply, Recall(ns, recall, /*count_access=*/false));
  if (reply.results.empty()) return menu;

  const std::unordered_set<std::string> terms = QueryTerms(ns, query);
  const std::string newest = request.user_texts.empty() ? std::string() : request.user_texts.back();
  const QuestionTerms floor = Floor(ns, ParseTimeWords(newest, now, ns.tz()).rest, terms);
  std::unordered_set<std::string> turn_words;
  for (std::string& w : text::WordSegmenter::Get().Words(newest)) turn_words.insert(std::move(w));

  struct Candidate {
    MenuLine line;
    bool asks = false;
  };
  std::vector<Candidate> candidates;
  std::unordered_set<std::string> sources;  // message ids a line already stands for
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    for (const RecallResult& result : reply.results) {
      std::u32string sentence;
      int64_t conversation_row = 0;
      if (result.layer == "excerpt") {
        // An L1 excerpt's line is its content.
        const std::optional<int64_t> id = ParseExcerptId(result.id);
        if (!id) continue;
        CILIA_ASSIGN_OR_RETURN(auto excerpt, store::ExcerptRepo(db).Get(*id));
        if (!excerpt) continue;  // forgotten since the recall
        if (Coverage(excerpt->content + "\n" + excerpt->quote, floor) < request.min_match) continue;
        sentence = CollapseWhitespace(text::DecodeUtf8(excerpt->content));
        conversation_row = excerpt->source.conversation_row;
      } else {
        const std::optional<int64_t> id = ParseWindowId(result.id);
        if (!id) continue;
        CILIA_ASSIGN_OR_RETURN(auto window, windows.Get(*id));
        if (!window) continue;  // rebuilt since the recall
        if (Coverage(window->body, floor) < request.min_match) continue;
        sentence = BestSentence(window->body, terms);
        conversation_row = window->conversation_row;
      }
      if (sentence.empty()) continue;
      CILIA_ASSIGN_OR_RETURN(bool visible, ClientSeesAny(db, request, conversation_row, result));
      if (visible) continue;
      if (TellsNothingNew(sentence, turn_words)) continue;
      // One line a source: an excerpt and the window it quotes are one memory.
      if (std::any_of(result.message_ids.begin(), result.message_ids.end(),
                      [&](const std::string& m) { return sources.count(m) > 0; })) {
        continue;
      }
      sources.insert(result.message_ids.begin(), result.message_ids.end());
      Candidate c;
      c.asks = text::IsQuestion(sentence);
      c.line = LineOf(result, sentence, request, now, ns.tz());
      if (!c.line.text.empty()) candidates.push_back(std::move(c));
    }
    return Status::Ok();
  }));
  std::stable_partition(candidates.begin(), candidates.end(), [](const Candidate& c) { return !c.asks; });
  int tokens = 0;
  for (Candidate& c : candidates) {
    if (static_cast<int>(menu.lines.size()) >= request.max_lines) break;
    const int cost = text::EstimateTokens(c.line.text);
    if (tokens + cost > request.token_budget) continue;
    tokens += cost;
    menu.lines.push_back(std::move(c.line));
  }
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
