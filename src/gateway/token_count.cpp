#include "gateway/token_count.h"

#include <climits>
#include <string>

#include "core/json_read.h"
#include "llm/json_access.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "text/tokens.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

// Sums without overflow: the estimate saturates like EstimateTokens does.
void Add(int& total, int tokens) { total = tokens > INT_MAX - total ? INT_MAX : total + tokens; }

void AddText(int& total, const json& value) {
  if (value.is_string()) Add(total, text::EstimateTokens(value.get_ref<const std::string&>()));
}

// A string content, or the blocks of a content array.
void AddContent(int& total, const json& content) {
  if (content.is_string()) return AddText(total, content);
  if (!content.is_array()) return;
  for (const json& block : content) {
    if (!block.is_object()) continue;
    const std::string type = llm::StringOr(block, "type");
    if (type == "text") {
      AddText(total, llm::MemberOr(block, "text", nullptr));
    } else if (type == "thinking") {
      AddText(total, llm::MemberOr(block, "thinking", nullptr));
    } else if (type == "tool_use" || type == "server_tool_use") {
      AddText(total, llm::MemberOr(block, "name", nullptr));
      if (const json* input = llm::Member(block, "input")) Add(total, text::EstimateTokens(llm::Dump(*input)));
    } else if (type == "tool_result") {
      if (const json* result = llm::Member(block, "content")) AddContent(total, *result);
    }
  }
}

Status CheckBody(const json& body) {
  if (!body.is_object()) return cilia::json::FieldError("", "the body must be a JSON object");
  CILIA_RETURN_IF_ERROR(cilia::json::RequiredString(body, "model", "").status());
  CILIA_ASSIGN_OR_RETURN(const json* messages, cilia::json::RequiredArray(body, "messages", ""));
  for (size_t i = 0; i < messages->size(); ++i) {
    const std::string path = cilia::json::PathIndex("messages", i);
    const json& message = (*messages)[i];
    if (!message.is_object()) return cilia::json::FieldError(path, "must be an object");
    CILIA_RETURN_IF_ERROR(cilia::json::RequiredString(message, "role", path).status());
  }
  return Status::Ok();
}

// A provider that lacks the endpoint: many Anthropic-compatible ones do.
bool LacksCountTokens(const Status& status) {
  if (!llm::IsUpstreamFailure(status)) return false;
  const int http = llm::UpstreamErrorOf(status).http_status;
  return http == 404 || http == 405;
}

TokenCount Estimate(const json& body) { return {{{"input_tokens", EstimateRequestTokens(body)}}, false}; }

}  // namespace

int EstimateRequestTokens(const json& body) {
  int total = 0;
  if (const json* system = llm::Member(body, "system")) AddContent(total, *system);
  if (const json* messages = llm::Member(body, "messages"); messages != nullptr && messages->is_array()) {
    for (const json& message : *messages) {
      if (const json* content = llm::Member(message, "content")) AddContent(total, *content);
    }
  }
  if (const json* tools = llm::Member(body, "tools"); tools != nullptr && tools->is_array()) {
    for (const json& tool : *tools) Add(total, text::EstimateTokens(llm::Dump(tool)));
  }
  return total;
}

Result<TokenCount> CountTokens(const Config& config, json body, const net::Headers& forward_headers) {
  CILIA_RETURN_IF_ERROR(CheckBody(body));
  CILIA_ASSIGN_OR_RETURN(const llm::Route route, llm::ResolveModel(config, body["model"].get<std::string>()));
  if (route.provider->kind != ProviderKind::kAnthropic) return Estimate(body);
  body["model"] = route.model;
  auto counted = llm::UpstreamClient(*route.provider).CountTokens(body, forward_headers);
  if (counted.ok()) return TokenCount{std::move(*counted), true};
  if (LacksCountTokens(counted.status())) return Estimate(body);
  return counted.status();
}

}  // namespace cilia::gateway
