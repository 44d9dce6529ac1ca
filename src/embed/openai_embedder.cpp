#include "embed/openai_embedder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "net/http_client.h"

namespace cilia::embed {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

constexpr int kAttempts = 3;
constexpr milliseconds kFirstBackoff{250};  // then ×4 per attempt
constexpr milliseconds kLongestBackoff{10000};
constexpr int kConnectTimeoutMs = 10000;
constexpr size_t kUpstreamMessageLimit = 300;
constexpr const char* kProbeText = "dimension probe";

bool WorthRetrying(long http_status) { return http_status == 429 || http_status >= 500; }
bool WorthRetrying(const Status& transport) {
  return transport.code() == Code::kTimeout || transport.code() == Code::kUnavailable;
}

// Retry-After in seconds when the upstream sent one, else exponential backoff.
milliseconds RetryDelay(const net::HttpResponse* response, int attempt) {
  if (response != nullptr) {
    const std::string retry_after = response->Header("Retry-After");
    char* end = nullptr;
    const long seconds = std::strtol(retry_after.c_str(), &end, 10);
    if (!retry_after.empty() && *end == '\0' && seconds >= 0)
      return std::min(milliseconds(seconds * 1000), kLongestBackoff);
  }
  return kFirstBackoff * (1 << (2 * attempt));
}

// The upstream's own error text (OpenAI's {"error":{"message":...}} when it
// is that shape), cut short, with the key masked should a server echo it.
std::string UpstreamMessage(const std::string& body, const std::string& api_key) {
  std::string message = body;
  const json parsed = json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("error")) {
    const json& error = parsed["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      message = error["message"].get<std::string>();
    } else if (error.is_string()) {
      message = error.get<std::string>();
    }
  }
  if (!api_key.empty()) {
    for (size_t at = message.find(api_key); at != std::string::npos; at = message.find(api_key, at)) {
      message.replace(at, api_key.size(), "***");
    }
  }
  if (message.size() > kUpstreamMessageLimit) message = message.substr(0, kUpstreamMessageLimit) + "…";
  return message;
}

Status HttpFailure(long http_status, const std::string& detail) {
  const std::string message = fmt::format("HTTP {}: {}", http_status, detail);
  switch (http_status) {
    case 400:
    case 422:
      return Status::InvalidArgument(message);
    case 401:
      return Status::Unauthenticated(message);
    case 403:
      return Status::PermissionDenied(message);
    case 404:
      return Status::NotFound(message);
    default:
      return Status::Unavailable(message);
  }
}

void L2Normalize(std::vector<float>& v) {
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm <= 0) return;
  const float scale = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& x : v) x *= scale;
}

}  // namespace

OpenAIEmbedder::OpenAIEmbedder(OpenAIEmbedderOptions options) : options_(std::move(options)) {
  std::string base = options_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  url_ = base + "/embeddings";
}

Result<std::unique_ptr<OpenAIEmbedder>> OpenAIEmbedder::Create(OpenAIEmbedderOptions options) {
  if (options.base_url.empty()) return Status::InvalidArgument("openai embedder: base_url is empty");
  if (options.model.empty()) return Status::InvalidArgument("openai embedder: model is empty");
  if (options.dimensions < 0) return Status::InvalidArgument("openai embedder: dimensions must be 0 or more");
  if (options.batch_size < 1) return Status::InvalidArgument("openai embedder: batch_size must be at least 1");
  if (options.timeout_ms < 1) return Status::InvalidArgument("openai embedder: timeout_ms must be at least 1");

  std::unique_ptr<OpenAIEmbedder> embedder(new OpenAIEmbedder(std::move(options)));
  OpenAIEmbedderOptions& o = embedder->options_;
  if (o.dimensions == 0) {
    CILIA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> probe, embedder->EmbedBatch({kProbeText}, 0));
    o.dimensions = static_cast<int>(probe.front().size());
  }
  embedder->id_ = fmt::format("openai:{}:{}", o.model, o.dimensions);
  return embedder;
}

Result<std::vector<std::vector<float>>> OpenAIEmbedder::Embed(const std::vector<std::string>& texts, Purpose) const {
  std::vector<std::vector<float>> vectors(texts.size(), std::vector<float>(static_cast<size_t>(dimension()), 0.0f));
  // Empty texts keep their zero vector: the API refuses empty input.
  std::vector<size_t> to_send;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!texts[i].empty()) to_send.push_back(i);
  }
  const size_t batch_size = static_cast<size_t>(options_.batch_size);
  for (size_t begin = 0; begin < to_send.size(); begin += batch_size) {
    const size_t end = std::min(begin + batch_size, to_send.size());
    std::vector<std::string> batch;
    batch.reserve(end - begin);
    for (size_t k = begin; k < end; ++k) batch.push_back(texts[to_send[k]]);
    CILIA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> embedded, EmbedBatch(batch, dimension()));
    for (size_t k = begin; k < end; ++k) vectors[to_send[k]] = std::move(embedded[k - begin]);
  }
  return vectors;
}

Result<std::vector<std::vector<float>>> OpenAIEmbedder::EmbedBatch(const std::vector<std::string>& texts,
                                                                   int expected_dimension) const {
  const std::string context = fmt::format("embeddings of model {}", options_.model);
  json body = {{"model", options_.model}, {"input", texts}};
  if (options_.dimensions > 0) body["dimensions"] = options_.dimensions;

  net::HttpRequest request;
  request.url = url_;
  request.headers = {{"Content-Type", "application/json"}};
  if (!options_.api_key.empty()) request.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  // Ill-formed UTF-8 in a text becomes U+FFFD rather than failing the batch.
  request.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  request.connect_timeout_ms = std::min(options_.timeout_ms, kConnectTimeoutMs);
  request.first_byte_timeout_ms = options_.timeout_ms;
  request.idle_timeout_ms = options_.timeout_ms;
  request.total_timeout_ms = options_.timeout_ms;

  Result<net::HttpResponse> response = Status::Internal("no attempt made");
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(RetryDelay(response.ok() ? &*response : nullptr, attempt - 1));
    response = net::Send(request);
    const bool retry = response.ok() ? WorthRetrying(response->status) : WorthRetrying(response.status());
    if (!retry) break;
  }
  if (!response.ok()) return response.status().With(context);
  if (response->status < 200 || response->status >= 300) {
    return HttpFailure(response->status, UpstreamMessage(response->body, options_.api_key)).With(context);
  }

  const json reply = json::parse(response->body, nullptr, false);
  if (!reply.is_object() || !reply.contains("data") || !reply["data"].is_array()) {
    return Status::Unavailable(context + ": the reply has no \"data\" array");
  }
  const json& data = reply["data"];
  if (data.size() != texts.size()) {
    return Status::Unavailable(
        fmt::format("{}: {} vectors came back for {} texts", context, data.size(), texts.size()));
  }

  std::vector<std::vector<float>> vectors(texts.size());
  std::vector<bool> filled(texts.size(), false);
  size_t dimension = static_cast<size_t>(expected_dimension);
  for (size_t position = 0; position < data.size(); ++position) {
    const json& item = data[position];
    if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
      return Status::Unavailable(context + ": a reply item has no \"embedding\" array");
    }
    // Servers may answer out of order; "index" says which input each belongs to.
    size_t index = position;
    if (item.contains("index")) {
      if (!item["index"].is_number_unsigned()) return Status::Unavailable(context + ": an \"index\" is not a number");
      index = item["index"].get<size_t>();
    }
    if (index >= texts.size() || filled[index]) {
      return Status::Unavailable(fmt::format("{}: index {} is out of range or repeated", context, index));
    }
    const json& embedding = item["embedding"];
    if (dimension == 0) dimension = embedding.size();
    if (embedding.empty() || embedding.size() != dimension) {
      return Status::InvalidArgument(fmt::format(
          "{}: a {}-dimension vector came back where {} were expected; set embedding.dimensions to what model {} "
          "returns (changing it re-embeds everything)",
          context, embedding.size(), dimension, options_.model));
    }
    std::vector<float>& vector = vectors[index];
    vector.reserve(dimension);
    for (const json& x : embedding) {
      if (!x.is_number()) return Status::Unavailable(context + ": an embedding holds a non-number");
      vector.push_back(x.get<float>());
    }
    L2Normalize(vector);
    filled[index] = true;
  }
  return vectors;
}

}  // namespace cilia::embed
