#include "memory/archive/windowing.h"

#include <nlohmann/json.hpp>

#include "text/harness.h"
#include "text/segmenter.h"
#include "text/sentences.h"
#include "text/utf8.h"

namespace cilia::memory {

std::vector<Segment> SegmentMessages(const std::vector<store::MessageRecord>& messages, int skip) {
  std::vector<Segment> out;
  bool first = true;
  for (const auto& m : messages) {
    std::u32string cps = text::DecodeUtf8(m.text);
    // Only the owner's words are windowed: harness blocks stay in the message,
    // out of every window's body, and so out of the lexical and vector indexes.
    std::vector<text::Span> spans;
    for (const text::Span& own : text::OwnWordSpans(cps)) {
      for (text::Span s : text::SplitSegments(std::u32string_view(cps).substr(own.begin, own.size()), kSegmentMaxChars)) {
        spans.push_back({own.begin + s.begin, own.begin + s.end});
      }
    }
    for (size_t i = first ? static_cast<size_t>(std::max(skip, 0)) : 0; i < spans.size(); ++i) {
      Segment s;
      s.message_id = m.id;
      s.seq = m.seq;
      s.index_in_message = static_cast<int>(i);
      s.begin = spans[i].begin;
      s.end = spans[i].end;
      s.text = text::EncodeUtf8(std::u32string_view(cps).substr(s.begin, s.end - s.begin));
      s.created_at = m.created_at;
      s.speaker = SpeakerLabel(m.name, m.role);
      out.push_back(std::move(s));
    }
    first = false;
  }
  return out;
}

std::vector<WindowRange> PackWindows(const std::vector<Segment>& segments, size_t max_chars) {
  std::vector<WindowRange> out;
  size_t i = 0;
  while (i < segments.size()) {
    size_t total = 0;
    size_t j = i;
    while (j < segments.size()) {
      size_t len = segments[j].end - segments[j].begin;
      if (j > i && total + len > max_chars) break;
      total += len;
      ++j;
    }
    out.push_back({i, j - 1});
    if (j >= segments.size()) break;
    i = std::max(j - 1, i + 1);  // overlap one segment; always advance
  }
  return out;
}

store::WindowRecord MakeWindow(int64_t conversation_row, const std::vector<Segment>& segments, WindowRange range) {
  store::WindowRecord w;
  w.conversation_row = conversation_row;
  const Segment& first = segments[range.first];
  const Segment& last = segments[range.last];
  w.first_seq = first.seq;
  w.first_segment = first.index_in_message;
  w.last_seq = last.seq;
  w.created_at = first.created_at;
  w.ended_at = last.created_at;
  nlohmann::json spans = nlohmann::json::array();
  for (size_t k = range.first; k <= range.last; ++k) {
    const Segment& s = segments[k];
    if (!w.body.empty()) w.body += '\n';
    w.body += s.text;
    spans.push_back({s.message_id, s.begin, s.end});
  }
  w.spans = spans.dump();
  w.words = text::IndexText(w.body);
  for (size_t k = range.first; k <= range.last; ++k) {
    if (segments[k].index_in_message == 0) w.words += " " + text::IndexText(segments[k].speaker);
  }
  return w;
}

std::vector<StoredSpan> ParseSpans(const std::string& spans_json) {
  std::vector<StoredSpan> out;
  nlohmann::json j = nlohmann::json::parse(spans_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    // Spans are written by MakeWindow, but a damaged row must not throw.
    if (!e.is_array() || e.size() != 3 || !e[0].is_number_integer() || !e[1].is_number_unsigned() ||
        !e[2].is_number_unsigned()) {
      continue;
    }
    out.push_back({e[0].get<int64_t>(), e[1].get<size_t>(), e[2].get<size_t>()});
  }
  return out;
}

std::string WindowHeader(UnixMs first_message_at, const TimeZone& tz, const std::string& title,
                         const std::string& conversation_id, std::optional<UnixMs> last_message_at) {
  std::string label;
  bool space = false;
  size_t count = 0;
  for (char32_t c : text::DecodeUtf8(title)) {
    bool ws = c == U' ' || c == U'\t' || c == U'\n' || c == U'\r' || c == U'\u3000';
    if (ws) {
      space = !label.empty();
      continue;
    }
    if (count >= 50) break;
    if (space) {
      label += ' ';
      ++count;
      space = false;
    }
    text::AppendUtf8(label, c);
    ++count;
  }
  if (label.empty()) label = conversation_id;
  std::string days = tz.FormatLocal(first_message_at, false);
  if (last_message_at) {
    const std::string last = tz.FormatLocal(*last_message_at, false);
    if (last != days) days += "–" + (last.substr(0, 5) == days.substr(0, 5) ? last.substr(5) : last);
  }
  return "[" + days + " · " + label + "]";
}

std::string SpeakerLabel(const std::string& name, const std::string& role) {
  if (!name.empty()) return name;
  if (role == "user") return "User";
  if (role == "assistant") return "Assistant";
  return "System";
}

}  // namespace cilia::memory
