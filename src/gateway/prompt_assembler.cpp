#include "gateway/prompt_assembler.h"

#include <algorithm>
#include <array>
#include <locale>
#include <optional>
#include <regex>
#include <tuple>

#include "llm/responses_format.h"
#include "text/utf8.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

constexpr int kMaxMarkers = 4;  // Anthropic's limit per request
constexpr size_t kMaxPerTurnLineCodePoints = 100;
constexpr size_t kNoBlock = static_cast<size_t>(-1);

// ---------------------------------------------------------------------------
// Per-turn lines

std::regex CompileCaseless(const std::string& pattern) {
  std::regex re;
  re.imbue(std::locale::classic());  // bytes ≥ 0x80 are never letters or spaces
  re.assign(pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  return re;
}

// A labelled line: the label bracketed ("【当前时间】…", "[Date] …") or followed
// by a separator (":", "：", "=", "is", "是", "为"); markdown bullets and bold
// around it are allowed. Group 1 is the value.
std::string LabelledLine(const std::string& label) {
  const std::string lead = R"(^\s*(?:(?:[-*+>]|•)\s*)?(?:\*\*|__)?\s*)";
  const std::string bracketed = R"((?:\[|【)\s*(?:)" + label + R"()\s*(?:\]|】)(?:\*\*|__)?\s*(?:[:=]|：)?)";
  const std::string separated =
      "(?:" + label + R"()\s*(?:\*\*|__)?\s*(?:[:=]|：|\bis\b|是|为)\s*(?:\*\*|__)?)";
  return lead + "(?:" + bracketed + "|" + separated + R"()\s*(.+)$)";
}

struct PerTurnPatterns {
  std::regex now_labelled;    // a label that names the present: "Current time", "今天"
  std::regex plain_labelled;  // "Date", "日期": only with a full date after it
  std::regex bare_timestamp;  // "2026-06-19T21:03:00+08:00" alone on its line
  std::regex full_date;
  std::regex date_time_or_weekday;
};

const PerTurnPatterns& Patterns() {
  static const PerTurnPatterns patterns = [] {
    const std::string date_time_words =
        R"(date\s*(?:and|&|/)\s*time|date\s*time|datetime|date|time|timestamp)";
    const std::string now_label =
        R"((?:the\s+)?(?:(?:current|local|system)\s+){1,2}(?:)" + date_time_words +
        R"()|today(?:'|’)?s\s+date|today|now|)"
        "(?:当前|现在|今天|今日|此刻|目前|系统|本地|北京)(?:的)?(?:日期时间|时间日期|日期|时间|时刻)"
        "|现在|今天|今日";
    const std::string plain_label = date_time_words + "|日期时间|时间日期|日期|时间";
    const std::string months = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*";
    const std::string full_date = R"(\d{4}\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,2})"
                                  R"(|\d{1,2}\s*月\s*\d{1,2}\s*(?:日|号))"
                                  R"(|\b)" + months + R"(\.?\s+\d{1,2}\b)"
                                  R"(|\b\d{1,2}\s+)" + months + R"(\b)";
    const std::string clock = R"(\b\d{1,2}:\d{2}\b|\d{1,2}\s*(?:点|时)\s*\d{1,2}\s*分)";
    const std::string weekday =
        R"(\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|(?:星期|礼拜|周)(?:一|二|三|四|五|六|日|天))";
    return PerTurnPatterns{
        CompileCaseless(LabelledLine(now_label)),
        CompileCaseless(LabelledLine(plain_label)),
        CompileCaseless(R"(^\s*(?:(?:[-*+>]|•)\s*)?\d{4}[-/]\d{1,2}[-/]\d{1,2}(?:T|\s+)\d{1,2}:\d{2})"
                        R"((?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?|(?:UTC|GMT)(?:[+-]\d{1,2})?)?\s*$)"),
        CompileCaseless(full_date),
        CompileCaseless(full_date + "|" + clock + "|" + weekday),
    };
  }();
  return patterns;
}

// Cheap tests that keep the regexes off the hundreds of ordinary lines of a
// long system prompt: every pattern starts (after bullets, bold and brackets)
// with a date/time label or a digit, and needs a digit or a weekday.
bool StartsLikeATimeLine(std::string_view line) {
  std::string lower(line.substr(0, 48));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  std::string_view rest = lower;
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view lead : {" ", "\t", "-", "*", "+", ">", "_", "[", "•", "【"}) {
      if (rest.starts_with(lead)) {
        rest.remove_prefix(lead.size());
        stripped = true;
      }
    }
  }
  if (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') return true;
  for (std::string_view label : {"current", "local", "system", "the ", "today", "now", "date", "time", "当前", "现在",
                                 "今天", "今日", "此刻", "目前", "系统", "本地", "北京", "日期", "时间"}) {
    if (rest.starts_with(label)) return true;
  }
  return false;
}

bool MayNameADate(std::string_view line) {
  if (std::any_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; })) return true;
  for (std::string_view word : {"day", "Day", "DAY", "星期", "礼拜", "周"}) {
    if (line.find(word) != std::string_view::npos) return true;
  }
  return false;
}

bool IsBlank(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    if (!text::IsWhitespace(text::NextCodePoint(s, &pos))) return false;
  }
  return true;
}

// `text` without its per-turn lines, which are appended to *moved. With
// moved == nullptr nothing is taken out.
std::string MovePerTurnLines(std::string_view text, std::vector<std::string>* moved) {
  if (moved == nullptr) return std::string(text);
  std::string kept;
  size_t begin = 0;
  bool moved_last_line = false;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(begin, end - begin);
    std::string_view body = line;
    if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
    if (!body.empty() && body.back() == '\r') body.remove_suffix(1);
    moved_last_line = IsPerTurnLine(body);
    if (moved_last_line) {
      moved->emplace_back(body);
    } else {
      kept += line;
    }
    begin = end;
  }
  // A moved final line takes the line break before it along, as if it had
  // never been written: "A\nCurrent time: …" keeps "A", not "A\n".
  if (moved_last_line && text.back() != '\n' && !kept.empty() && kept.back() == '\n') {
    kept.pop_back();
    if (!kept.empty() && kept.back() == '\r') kept.pop_back();
  }
  return kept;
}

// ---------------------------------------------------------------------------
// JSON access that never throws

const json* Find(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string_view StringField(const json& object, const char* key) {
  const json* value = Find(object, key);
  return value != nullptr && value->is_string() ? std::string_view(value->get_ref<const std::string&>())
                                                : std::string_view();
}

json TextBlock(std::string text) { return json{{"type", "text"}, {"text", std::move(text)}}; }

bool IsTextBlock(const json& block) {
  const json* text = Find(block, "text");
  return StringField(block, "type") == "text" && text != nullptr && text->is_string();
}

std::string ToolName(const json& tool) {
  if (std::string_view name = StringField(tool, "name"); !name.empty()) return std::string(name);
  const json* function = Find(tool, "function");
  return function != nullptr ? std::string(StringField(*function, "name")) : std::string();
}

// ---------------------------------------------------------------------------
// What cilia adds

std::string Wrapped(std::string_view tag, std::string_view content) {
  if (IsBlank(content)) return "";
  std::string out;
  out.append("<").append(tag).append(">\n");
  out += text::ToValidUtf8(content);
  out.append("\n</").append(tag).append(">");
  return out;
}

std::string EscapeAttribute(std::string_view value) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '<': out += "&lt;"; break;
      default: out += c;
    }
  }
  return out;
}

// The L2 documents in their fixed order; ties (one name twice) fall back to
// the content, so the input order never shows in the output.
std::string ProfileText(const std::vector<std::pair<std::string, std::string>>& profile) {
  static constexpr std::array<std::string_view, 4> kFixedOrder = {"persona", "user", "relationship", "rules"};
  auto rank = [](const std::string& name) {
    return std::find(kFixedOrder.begin(), kFixedOrder.end(), name) - kFixedOrder.begin();
  };
  std::vector<const std::pair<std::string, std::string>*> documents;
  for (const auto& document : profile) {
    if (!IsBlank(document.second)) documents.push_back(&document);
  }
  std::sort(documents.begin(), documents.end(), [&](const auto* a, const auto* b) {
    return std::forward_as_tuple(rank(a->first), a->first, a->second) <
           std::forward_as_tuple(rank(b->first), b->first, b->second);
  });
  std::string out;
  for (const auto* document : documents) {
    if (!out.empty()) out += "\n\n";
    out += "<profile name=\"" + EscapeAttribute(text::ToValidUtf8(document->first)) + "\">\n";
    out += text::ToValidUtf8(document->second);
    out += "\n</profile>";
  }
  return out;
}

std::string JoinNonEmpty(std::initializer_list<std::string> parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

// The per-turn block: one clock (the client's moved lines, in its own words,
// or else cilia's clock line), then cilia's menu and glossary hits.
std::string VolatileText(const std::vector<std::string>& moved_lines, const MemoryBlocks& memory) {
  const std::string clock = moved_lines.empty() ? memory.clock_line : JoinLines(moved_lines);
  const std::string ours = IsBlank(memory.volatile_text) ? "" : memory.volatile_text;
  return Wrapped("turn_context", JoinNonEmpty({clock, ours}, "\n\n"));
}

// BP1's text: the guide, the profile, then the precious passages.
std::string StableHead(const MemoryBlocks& memory) {
  return JoinNonEmpty({Wrapped("memory_guide", memory.guide), ProfileText(memory.profile),
                       Wrapped("precious_passages", memory.precious)},
                      "\n\n");
}

// ---------------------------------------------------------------------------
// The client's request, located

struct Layout {
  size_t system_end = 0;  // OpenAI: the leading system/developer messages are [0, system_end)
  size_t history_begin = 0;
  size_t history_end = 0;         // history sent raw: [history_begin, history_end)
  std::optional<size_t> current;  // the current user turn (the last user message)
};

bool IsToolResultMessage(const json& message, Wire wire) {
  const std::string_view role = StringField(message, "role");
  if (wire == Wire::kOpenAI) return role == "tool" || role == "function";
  const json* content = Find(message, "content");
  return role == "user" && content != nullptr && content->is_array() &&
         std::any_of(content->begin(), content->end(),
                     [](const json& block) { return StringField(block, "type") == "tool_result"; });
}

Result<Layout> Locate(const json& messages, bool has_summary, const AssembleOptions& options) {
  Layout layout;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (!messages[i].is_object()) return Status::InvalidArgument("messages[" + std::to_string(i) + "] is not an object");
  }
  if (options.wire != Wire::kAnthropic) {
    while (layout.system_end < messages.size()) {
      const std::string_view role = StringField(messages[layout.system_end], "role");
      if (role != "system" && role != "developer") break;
      ++layout.system_end;
    }
  }
  for (size_t i = messages.size(); i-- > layout.system_end;) {
    if (StringField(messages[i], "role") == "user") {
      layout.current = i;
      break;
    }
  }
  if (layout.current) {
    const json* content = Find(messages[*layout.current], "content");
    if (content != nullptr && !content->is_null() && !content->is_string() && !content->is_array()) {
      return Status::InvalidArgument("the last user message's content must be a string or an array");
    }
  }
  layout.history_end = layout.current.value_or(messages.size());
  layout.history_begin = layout.system_end;
  if (has_summary) {
    const size_t history_size = layout.history_end - layout.system_end;
    layout.history_begin += std::min(options.history_keep_from, history_size);
    // What is sent starts at a user's own message: never an orphan tool result
    // (the upstream rejects it) and never an assistant message first.
    auto starts_a_turn = [&](size_t i) {
      return StringField(messages[i], "role") == "user" && !IsToolResultMessage(messages[i], options.wire);
    };
    while (layout.history_begin > layout.system_end && layout.history_begin < messages.size() &&
           !starts_a_turn(layout.history_begin)) {
      --layout.history_begin;
    }
  }
  return layout;
}

// The client's tools in their order, then recall unless a client tool already
// has its name (two tools of one name are an upstream error).
Status SetTools(json& body, const json& recall_tool, bool* recall_offered) {
  json tools = json::array();
  const bool client_sent_tools = body.contains("tools");
  if (client_sent_tools) {
    if (!body["tools"].is_array()) return Status::InvalidArgument("tools must be an array");
    tools = body["tools"];
  }
  if (!recall_tool.is_null()) {
    const std::string name = ToolName(recall_tool);
    const bool taken = std::any_of(tools.begin(), tools.end(), [&](const json& tool) { return ToolName(tool) == name; });
    if (!taken) {
      tools.push_back(recall_tool);
      *recall_offered = true;
    }
  }
  if (client_sent_tools || !tools.empty()) body["tools"] = std::move(tools);
  return Status::Ok();
}

// The client's body with its tools and cilia's.
Result<Assembled> WithTools(const json& client, const json& recall_tool) {
  Assembled out;
  out.body = client;
  CILIA_RETURN_IF_ERROR(SetTools(out.body, recall_tool, &out.recall_offered));
  return out;
}

// ---------------------------------------------------------------------------
// Anthropic markers

bool HasMarker(const json& object) {
  const json* marker = Find(object, "cache_control");
  return marker != nullptr && !marker->is_null();
}

// Thinking blocks cannot carry cache_control, and an empty text block is rejected.
bool CanCarryMarker(const json& block) {
  const std::string_view type = StringField(block, "type");
  if (type == "text") return IsTextBlock(block) && !IsBlank(StringField(block, "text"));
  return type == "image" || type == "document" || type == "tool_use" || type == "tool_result";
}

// Calls fn on every object that can hold a marker, in the order the upstream
// reads the prompt: tools, system, then message blocks (a tool_result's inner
// blocks before the tool_result itself).
template <typename Fn>
void ForEachBlock(json& body, Fn&& fn) {
  auto each = [&](json* list) {
    if (list == nullptr || !list->is_array()) return;
    for (json& block : *list) {
      if (StringField(block, "type") == "tool_result") {
        json* inner = block.is_object() && block.contains("content") ? &block["content"] : nullptr;
        if (inner != nullptr && inner->is_array()) {
          for (json& nested : *inner) fn(nested);
        }
      }
      fn(block);
    }
  };
  auto member = [](json& object, const char* key) { return object.contains(key) ? &object[key] : nullptr; };
  each(member(body, "tools"));
  each(member(body, "system"));
  if (json* messages = member(body, "messages"); messages != nullptr && messages->is_array()) {
    for (json& message : *messages) {
      if (message.is_object()) each(member(message, "content"));
    }
  }
}

// Top-level cache_control (automatic caching) takes one of the four slots.
int CountMarkers(json& body) {
  int count = HasMarker(body) ? 1 : 0;
  ForEachBlock(body, [&](const json& block) { count += HasMarker(block) ? 1 : 0; });
  return count;
}

json Marker(bool one_hour) {
  return one_hour ? json{{"type", "ephemeral"}, {"ttl", "1h"}} : json{{"type", "ephemeral"}};
}

bool IsOneHour(const json& marker) { return StringField(marker, "ttl") == "1h"; }

// A place a cilia breakpoint can go: a block, or a message whose string
// content becomes a one-block array once it is marked (the same prompt).
struct Slot {
  json* block = nullptr;
  json* string_content = nullptr;
};

json* Materialize(const Slot& slot) {
  if (slot.block != nullptr) return slot.block;
  *slot.string_content = json::array({TextBlock(slot.string_content->get<std::string>())});
  return &(*slot.string_content)[0];
}

// BP4: the last block that can carry a marker in the history; none when the
// client already marked it.
std::optional<Slot> TailSlot(json& messages, size_t history_count) {
  for (size_t m = history_count; m-- > 0;) {
    if (!messages[m].contains("content")) continue;
    json& content = messages[m]["content"];
    if (content.is_string()) {
      if (!IsBlank(content.get_ref<const std::string&>())) return Slot{nullptr, &content};
      continue;
    }
    if (!content.is_array()) continue;
    for (size_t b = content.size(); b-- > 0;) {
      if (HasMarker(content[b])) return std::nullopt;
      if (CanCarryMarker(content[b])) return Slot{&content[b], nullptr};
    }
  }
  return std::nullopt;
}

std::optional<Slot> SystemSlot(json& body, size_t index) {
  if (index == kNoBlock || !body.contains("system")) return std::nullopt;
  json& block = body["system"][index];
  if (HasMarker(block) || !CanCarryMarker(block)) return std::nullopt;
  return Slot{&block, nullptr};
}

// Anthropic requires TTLs not to grow along the prompt (1h entries before 5m
// ones). cilia's markers take the wanted TTL where that holds, 5m after a
// client 5m marker, and 1h before a client 1h marker.
void SettleTtls(json& body, const std::vector<const json*>& ours, bool want_one_hour) {
  struct Entry {
    json* holder;
    bool ours;
  };
  std::vector<Entry> entries;
  ForEachBlock(body, [&](json& block) {
    if (HasMarker(block)) entries.push_back({&block, std::find(ours.begin(), ours.end(), &block) != ours.end()});
  });
  if (HasMarker(body)) entries.push_back({&body, false});  // automatic caching marks the very end

  std::vector<bool> client_hour_later(entries.size() + 1, false);
  for (size_t i = entries.size(); i-- > 0;) {
    client_hour_later[i] = client_hour_later[i + 1] || (!entries[i].ours && IsOneHour((*entries[i].holder)["cache_control"]));
  }
  bool hour_allowed = true;
  for (size_t i = 0; i < entries.size(); ++i) {
    json& marker = (*entries[i].holder)["cache_control"];
    if (entries[i].ours) marker = Marker(hour_allowed && (want_one_hour || client_hour_later[i + 1]));
    hour_allowed = hour_allowed && IsOneHour(marker);
  }
}

// ---------------------------------------------------------------------------
// The two wires

Status AppendClientSystem(const json& client_system, json& blocks, std::vector<std::string>* moved) {
  if (client_system.is_null()) return Status::Ok();
  if (client_system.is_string()) {
    std::string kept = MovePerTurnLines(client_system.get_ref<const std::string&>(), moved);
    if (!IsBlank(kept)) blocks.push_back(TextBlock(std::move(kept)));
    return Status::Ok();
  }
  if (!client_system.is_array()) return Status::InvalidArgument("system must be a string or an array of text blocks");
  for (const json& block : client_system) {
    if (!IsTextBlock(block)) {
      blocks.push_back(block);
      continue;
    }
    const size_t moved_before = moved != nullptr ? moved->size() : 0;
    std::string kept = MovePerTurnLines(block["text"].get_ref<const std::string&>(), moved);
    if (moved == nullptr || moved->size() == moved_before) {
      blocks.push_back(block);
    } else if (!IsBlank(kept)) {
      json edited = block;
      edited["text"] = std::move(kept);
      blocks.push_back(std::move(edited));
    }
    // A block of nothing but per-turn lines is dropped, with any marker on it:
    // that prefix changed every turn and could never be read back.
  }
  return Status::Ok();
}

// The new block's index, or kNoBlock when there is nothing to add.
size_t AppendBlock(json& blocks, std::string text) {
  if (text.empty()) return kNoBlock;
  blocks.push_back(TextBlock(std::move(text)));
  return blocks.size() - 1;
}

// The volatile block as its own text block at the end of the user turn, so
// the user's blocks stay byte-identical.
void AppendAnthropicText(json& message, std::string text) {
  json& content = message["content"];
  if (content.is_array()) {
    content.push_back(TextBlock(std::move(text)));
  } else if (content.is_string() && !content.get_ref<const std::string&>().empty()) {
    content = json::array({TextBlock(content.get<std::string>()), TextBlock(std::move(text))});
  } else {
    content = json::array({TextBlock(std::move(text))});
  }
}

// A text part (of `part_type`) for array content; for string content,
// appended after a blank line (text-only OpenAI-compatible APIs accept only
// strings, and some reject two user messages in a row).
void AppendText(json& content, const std::string& text, const char* part_type = "text") {
  if (content.is_array()) {
    content.push_back(json{{"type", part_type}, {"text", text}});
  } else if (content.is_string() && !content.get_ref<const std::string&>().empty()) {
    content = content.get<std::string>() + "\n\n" + text;
  } else {
    content = text;
  }
}

Result<Assembled> AssembleAnthropic(const json& client, const Layout& layout, const MemoryBlocks& memory,
                                    const json& recall_tool, const AssembleOptions& options) {
  CILIA_ASSIGN_OR_RETURN(Assembled out, WithTools(client, recall_tool));
  std::vector<std::string>* moved = layout.current ? &out.moved_lines : nullptr;

  json system = json::array();
  const json* client_system = Find(client, "system");
  CILIA_RETURN_IF_ERROR(AppendClientSystem(client_system != nullptr ? *client_system : json(), system, moved));
  AppendBlock(system, StableHead(memory));
  const size_t bp1 = system.empty() ? kNoBlock : system.size() - 1;
  const size_t bp2 = AppendBlock(system, Wrapped("recent_days", memory.daily_pack));
  const size_t bp3 = AppendBlock(system, Wrapped("conversation_summary", memory.summary));
  if (system.empty()) {
    out.body.erase("system");
  } else {
    out.body["system"] = std::move(system);
  }

  const json& client_messages = client["messages"];
  json messages = json::array();
  for (size_t i = layout.history_begin; i < client_messages.size(); ++i) messages.push_back(client_messages[i]);
  const size_t history_count = layout.history_end - layout.history_begin;
  if (layout.current) {
    std::string turn_context = VolatileText(out.moved_lines, memory);
    if (!turn_context.empty()) AppendAnthropicText(messages[history_count], std::move(turn_context));
  }
  out.body["messages"] = std::move(messages);

  // Markers go on the finished body; from here on nothing moves in it.
  const int client_markers = CountMarkers(out.body);
  const int budget = options.add_markers ? std::max(0, kMaxMarkers - client_markers) : 0;
  std::vector<const json*> ours;
  for (const std::optional<Slot>& slot : {TailSlot(out.body["messages"], history_count), SystemSlot(out.body, bp1),
                                          SystemSlot(out.body, bp2), SystemSlot(out.body, bp3)}) {
    if (static_cast<int>(ours.size()) == budget) break;
    if (!slot) continue;
    json* block = Materialize(*slot);
    (*block)["cache_control"] = Marker(false);
    ours.push_back(block);
  }
  SettleTtls(out.body, ours, options.ttl == "1h");
  out.markers_added = static_cast<int>(ours.size());
  out.markers_total = client_markers + out.markers_added;
  return out;
}

void MoveOpenAISystemLines(json& message, std::vector<std::string>* moved) {
  if (!message.contains("content")) return;
  json& content = message["content"];
  if (content.is_string()) {
    content = MovePerTurnLines(content.get_ref<const std::string&>(), moved);
  } else if (content.is_array()) {
    for (json& part : content) {
      if (IsTextBlock(part)) part["text"] = MovePerTurnLines(part["text"].get_ref<const std::string&>(), moved);
    }
  }
}

Result<Assembled> AssembleOpenAI(const json& client, const Layout& layout, const MemoryBlocks& memory,
                                 const json& recall_tool) {
  CILIA_ASSIGN_OR_RETURN(Assembled out, WithTools(client, recall_tool));
  std::vector<std::string>* moved = layout.current ? &out.moved_lines : nullptr;

  const json& client_messages = client["messages"];
  json messages = json::array();
  for (size_t i = 0; i < layout.system_end; ++i) {
    messages.push_back(client_messages[i]);
    MoveOpenAISystemLines(messages.back(), moved);
  }
  // One system message, not several: some chat templates accept only one.
  const std::string stable = JoinNonEmpty({StableHead(memory), Wrapped("recent_days", memory.daily_pack),
                                           Wrapped("conversation_summary", memory.summary)},
                                          "\n\n");
  if (!stable.empty()) {
    if (messages.empty()) {
      messages.push_back(json{{"role", "system"}, {"content", stable}});
    } else {
      AppendText(messages.back()["content"], stable);
    }
  }
  std::optional<size_t> current;
  for (size_t i = layout.history_begin; i < client_messages.size(); ++i) {
    if (layout.current == i) current = messages.size();
    messages.push_back(client_messages[i]);
  }
  if (current) {
    const std::string turn_context = VolatileText(out.moved_lines, memory);
    if (!turn_context.empty()) AppendText(messages[*current]["content"], turn_context);
  }
  out.body["messages"] = std::move(messages);
  return out;
}

Result<Assembled> AssembleResponses(const json& client, const Layout& layout, const MemoryBlocks& memory,
                                    const json& recall_tool) {
  CILIA_ASSIGN_OR_RETURN(Assembled out, WithTools(client, recall_tool));
  std::vector<std::string>* moved = layout.current ? &out.moved_lines : nullptr;
  const std::string client_instructions = MovePerTurnLines(StringField(client, "instructions"), moved);
  const std::string instructions =
      JoinNonEmpty({client_instructions, StableHead(memory), Wrapped("recent_days", memory.daily_pack)}, "\n\n");
  if (!instructions.empty() || Find(client, "instructions") != nullptr) out.body["instructions"] = instructions;
  if (layout.current) {
    const std::string turn_context = VolatileText(out.moved_lines, memory);
    json& input = out.body["input"];
    json& content = input.is_array() ? input[*layout.current]["content"] : input;
    if (!turn_context.empty()) AppendText(content, turn_context, "input_text");
  }
  return out;
}

}  // namespace

bool IsPerTurnLine(std::string_view line) {
  if (line.size() > 4 * kMaxPerTurnLineCodePoints || !StartsLikeATimeLine(line) || !MayNameADate(line) ||
      text::CodePointCount(line) > kMaxPerTurnLineCodePoints) {
    return false;
  }
  const PerTurnPatterns& patterns = Patterns();
  try {
    const std::string subject(line);
    std::smatch match;
    if (std::regex_match(subject, match, patterns.now_labelled) &&
        std::regex_search(match[1].first, match[1].second, patterns.date_time_or_weekday)) {
      return true;
    }
    if (std::regex_match(subject, match, patterns.plain_labelled) &&
        std::regex_search(match[1].first, match[1].second, patterns.full_date)) {
      return true;
    }
    return std::regex_match(subject, patterns.bare_timestamp);
  } catch (const std::regex_error&) {
    return false;  // too complex to decide: keep the line where it is
  }
}

Result<Assembled> Assemble(const json& client_body, const MemoryBlocks& memory, const json& recall_tool,
                           const AssembleOptions& options) {
  if (!client_body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  if (!options.ttl.empty() && options.ttl != "1h") {
    return Status::InvalidArgument("cache ttl must be empty (5 minutes) or \"1h\", not \"" + options.ttl + "\"");
  }
  if (!recall_tool.is_null() && !recall_tool.is_object()) return Status::InvalidArgument("the recall tool must be an object");
  const bool responses = options.wire == Wire::kResponses;
  const json* messages = Find(client_body, responses ? "input" : "messages");
  if (responses && (messages == nullptr || !(messages->is_string() || messages->is_array()))) {
    return Status::InvalidArgument("input must be a string or an array of items");
  }
  if (!responses && (messages == nullptr || !messages->is_array())) {
    return Status::InvalidArgument("messages must be an array");
  }
  try {
    if (responses) {
      // No summary here: the items are the client's, and an encrypted reasoning chain must stay whole.
      CILIA_ASSIGN_OR_RETURN(const Layout layout, Locate(llm::InputItems(*messages), false, options));
      return AssembleResponses(client_body, layout, memory, recall_tool);
    }
    CILIA_ASSIGN_OR_RETURN(const Layout layout, Locate(*messages, !IsBlank(memory.summary), options));
    if (options.wire == Wire::kOpenAI) return AssembleOpenAI(client_body, layout, memory, recall_tool);
    return AssembleAnthropic(client_body, layout, memory, recall_tool, options);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("malformed request: ") + e.what());
  }
}

std::string WithoutPerTurnLines(std::string_view text) {
  std::vector<std::string> moved;
  return MovePerTurnLines(text, &moved);
}

}  // namespace cilia::gateway
