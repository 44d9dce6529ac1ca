#include "gateway/memory_blocks.h"

#include <fmt/format.h>

#include <array>

#include "core/log.h"
#include "gateway/compression.h"
#include "gateway/recall_tool.h"
#include "memory/archive/conversation_reads.h"
#include "memory/public_id.h"
#include "memory/recall/glossary.h"
#include "memory/recall/menu.h"
#include "memory/recall/recall.h"
#include "memory/upkeep/digests.h"
#include "memory/upkeep/precious.h"
#include "text/utf8.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

void AddSources(store::TurnRecord& record, const std::string& conversation, const std::vector<std::string>& ids) {
  for (const std::string& id : ids) record.sources.emplace_back(conversation, id);
}

std::string GlossaryLines(memory::Namespace& ns, const ClientTurn& client, store::TurnRecord& record) {
  if (!client.current) return "";
  const std::vector<std::string> terms = memory::GlossaryHits(ns, client.current->text);
  if (terms.empty()) return "";
  std::string out = "Terms in this message:";
  for (const std::string& line : terms) out += "\n- " + line;
  record.injected["glossary"] = terms;
  return out;
}

std::string MenuLines(memory::Namespace& ns, const VolatileInputs& in, const MenuQuery& query, store::TurnRecord& record) {
  memory::MenuRequest request;
  request.user_texts = query.user_texts;
  request.previous_assistant = query.previous_assistant;
  request.now = in.now;
  if (in.identity.conversation_row != 0) {
    request.conversation_row = in.identity.conversation_row;
    request.visible_from_seq = in.identity.visible_from_seq;
  }
  request.max_lines = in.gateway.menu_lines;
  request.token_budget = in.gateway.menu_tokens;
  request.min_match = in.gateway.menu_min_match;
  auto menu = memory::BuildMenu(ns, request);
  if (!menu.ok()) {
    LogWarn("menu of namespace {}: {}", ns.name(), menu.status().ToString());
    return "";
  }
  if (menu->lines.empty()) return "";
  json lines = json::array();
  for (const memory::MenuLine& line : menu->lines) {
    lines.push_back(line.text);
    AddSources(record, line.conversation_id, line.message_ids);
  }
  record.injected["menu"] = std::move(lines);
  return memory::RenderMenu(*menu);
}

// Models without tools: the best passages themselves, a few and short.
std::string PassageLines(memory::Namespace& ns, const VolatileInputs& in, const MenuQuery& query,
                         store::TurnRecord& record) {
  const GatewayConfig& gw = in.gateway;
  if (gw.snippets <= 0 || query.user_texts.empty()) return "";
  memory::RecallRequest request;
  request.query = query.user_texts.back();
  request.limit = gw.snippets + 3;  // room for what the client sends anyway
  request.now = in.now;
  auto reply = memory::Recall(ns, request, /*count_access=*/false);
  if (!reply.ok()) {
    LogWarn("passages for namespace {}: {}", ns.name(), reply.status().ToString());
    return "";
  }
  std::vector<memory::RecallResult> kept;
  for (memory::RecallResult r : reply->results) {
    if (in.identity.ClientSends(r) || kept.size() >= static_cast<size_t>(gw.snippets)) continue;
    if (text::CodePointCount(r.text) > static_cast<size_t>(gw.snippet_chars)) {
      r.text = text::SubstrCodePoints(r.text, 0, gw.snippet_chars) + "…";
    }
    AddSources(record, r.conversation_id, r.message_ids);
    kept.push_back(std::move(r));
  }
  if (kept.empty()) return "";
  record.injected["snippets"] = kept.size();
  return "Passages from earlier conversations that may be relevant:\n" +
         RenderRecallResults(kept, static_cast<size_t>(gw.snippets * (gw.snippet_chars + 200)));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ProfileBlock(memory::Namespace& ns, store::TurnRecord& record) {
  std::vector<std::pair<std::string, std::string>> out;
  auto profile = memory::ProfileDocuments(ns);
  if (!profile.ok()) {
    LogWarn("profile of namespace {}: {}", ns.name(), profile.status().ToString());
    return out;
  }
  json names = json::array();
  for (const store::ProfileDocument& doc : *profile) {
    out.emplace_back(doc.name, doc.content);
    names.push_back(doc.name);
  }
  if (!names.empty()) record.injected["profile"] = std::move(names);
  return out;
}

std::string PreciousBlock(memory::Namespace& ns, int token_budget, store::TurnRecord& record) {
  if (token_budget <= 0) return "";
  auto passages = memory::PreciousForPrompt(ns, token_budget);
  if (!passages.ok()) {
    LogWarn("precious passages of namespace {}: {}", ns.name(), passages.status().ToString());
    return "";
  }
  std::string out;
  json ids = json::array();
  for (const memory::PassageInPrompt& p : *passages) {
    if (!out.empty()) out += "\n\n";
    // A passage may hold blank lines of its own: the date frames each one.
    out += fmt::format("<passage date=\"{}\">\n{}\n</passage>", ns.tz().FormatLocal(p.said_at, false),
                       p.passage.content);
    ids.push_back(memory::PreciousPublicId(p.passage.id));
  }
  if (!ids.empty()) record.injected["precious"] = std::move(ids);
  return out;
}

std::string DailyPackBlock(memory::Namespace& ns, UnixMs now, store::TurnRecord& record) {
  std::string pack = memory::DailyPack(ns, now);
  if (!pack.empty()) record.injected["daily_pack"] = true;
  return pack;
}

std::optional<SummaryInUse> SummaryBlock(memory::Namespace& ns, int64_t conversation_row, const json& upstream_body,
                                         Wire upstream, const ClientTurn& client) {
  if (conversation_row == 0) return std::nullopt;
  auto summary = memory::LatestSummary(ns, conversation_row);
  if (!summary.ok()) {
    LogWarn("summary of conversation {} in {}: {}", conversation_row, ns.name(), summary.status().ToString());
    return std::nullopt;
  }
  if (!summary->has_value()) return std::nullopt;
  const store::ConversationSummary& found = **summary;
  const std::optional<size_t> keep_from = FindKeptFrom(upstream_body, upstream, found.kept_from_key);
  if (!keep_from) return std::nullopt;
  SummaryInUse out{found.text, *keep_from, 0};
  // The same message in the client's own list: where the raw part begins.
  for (size_t i = client.history.size(); i-- > 0;) {
    if (MessageKey(client.history[i].role, client.history[i].text) == found.kept_from_key) {
      out.raw_from = i;
      break;
    }
  }
  return out;
}

std::string MemoryGuide(bool recall_tool) {
  std::string guide =
      "The blocks tagged profile, precious_passages, recent_days, conversation_summary and turn_context are "
      "your memory of earlier conversations with this user, kept by the system: not what the user just said. "
      "Use them as background; do not recite them or say you were given them. Where two facts disagree, the "
      "newer wins. The precious passages are words from those conversations kept verbatim because they matter "
      "to the user, each dated when it was said: quote them exactly when you quote them.";
  if (recall_tool) {
    guide += " The lines under \"Possibly relevant memories\" are hints only: call `recall` for the full text "
             "before you rely on one.";
  }
  return guide;
}

std::string ClockLine(const TimeZone& tz, UnixMs now) {
  static constexpr std::array<std::string_view, 7> kWeekdays = {"Monday", "Tuesday", "Wednesday", "Thursday",
                                                                "Friday",  "Saturday", "Sunday"};
  return fmt::format("Current time: {} {} ({})", kWeekdays[Weekday(tz.LocalDate(now)) - 1], tz.FormatLocal(now, true),
                     tz.name());
}

std::string VolatileBlock(memory::Namespace& ns, const VolatileInputs& in, store::TurnRecord& record) {
  const MenuQuery query = MenuQueryOf(in.client);
  std::string glossary = GlossaryLines(ns, in.client, record);
  std::string memories = in.recall_tool ? MenuLines(ns, in, query, record) : PassageLines(ns, in, query, record);
  if (glossary.empty() || memories.empty()) return glossary + memories;
  return glossary + "\n\n" + memories;
}

}  // namespace cilia::gateway
