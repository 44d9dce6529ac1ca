#include "api/admin_routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "api/admin_assets.h"
#include "api/import_routes.h"
#include "api/route_support.h"
#include "core/version.h"
#include "memory/archive/archive.h"
#include "memory/archive/timeline.h"
#include "memory/transfer/export.h"
#include "memory/turns.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr int kDefaultUsageDays = 30;
constexpr int kMaxUsageDays = 3660;

// The page talks only to this server: no inline script, no other origin, no
// framing. Styles set from script (CSSOM) are not style attributes and pass.
constexpr const char* kPagePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// Whether If-None-Match names `etag` (weak comparison: W/ ignored; "*" matches).
bool NotModified(const httplib::Request& req, std::string_view etag) {
  if (!req.has_header("If-None-Match")) return false;
  const std::string header = req.get_header_value("If-None-Match");
  for (const std::string& item : SplitList(header)) {
    std::string_view tag = item;
    if (tag == "*") return true;
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
  }
  return false;
}

Result<Reply> ServeAsset(const httplib::Request& req, std::string_view path) {
  const AdminAsset* asset = FindAdminAsset(path);
  if (!asset) return Status::NotFound(fmt::format("the admin page has no file \"{}\"", path));
  const std::string etag = fmt::format("\"{}\"", asset->hash);
  Reply reply = NotModified(req, etag)
                    ? Reply::Text("", "", 304)
                    : Reply::Text(std::string(reinterpret_cast<const char*>(asset->data), asset->size),
                                  AdminContentType(asset->path));
  // Weak: httplib may compress the body, and the bytes then differ per encoding.
  return std::move(reply)
      .WithHeader("ETag", "W/" + etag)
      .WithHeader("Cache-Control", "no-cache")  // always revalidated: a new binary's page shows at once
      .WithHeader("Vary", "Accept-Encoding")
      .WithHeader("X-Content-Type-Options", "nosniff")
      .WithHeader("Referrer-Policy", "no-referrer")
      .WithHeader("Content-Security-Policy", kPagePolicy);
}

// "https://user:secret@host/v1" -> "https://•••@host/v1".
std::string MaskUrlCredentials(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t host = scheme + 3;
  size_t at = url.find('@', host);
  size_t slash = url.find('/', host);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host) + "•••" + url.substr(at);
}

json ProviderJson(const ProviderConfig& p) {
  return {{"name", p.name},
          {"kind", ProviderKindName(p.kind)},
          {"base_url", MaskUrlCredentials(p.base_url)},
          {"api_key_env", p.api_key_env},
          {"api_key", p.api_key.empty() ? "not set" : "set"},
          {"connect_timeout_ms", p.connect_timeout_ms},
          {"first_byte_timeout_ms", p.first_byte_timeout_ms},
          {"idle_timeout_ms", p.idle_timeout_ms}};
}

json PriceJson(const PriceConfig& p) {
  return {{"model", p.model},
          {"input", p.input},
          {"output", p.output},
          {"cache_read", p.cache_read},
          {"cache_write", p.cache_write},
          {"currency", p.currency}};
}

// The namespace's index as the settings view shows it: whether every window
// has a vector of the current embedder, and how big the in-memory indexes are.
json IndexHealthJson(memory::Namespace& ns) {
  const size_t windows = ns.WindowCount();
  const size_t vectors = ns.vectors().size();
  return {{"windows", windows},
          {"vectors", vectors},
          {"windows_without_vector", windows > vectors ? windows - vectors : 0},
          {"vector_search", ns.vectors().uses_graph() ? "hnsw" : "flat"},
          {"lexical_documents", ns.words().size()},
          {"excerpts_indexed", ns.excerpts().size()}};
}

json UsageJson(const memory::TurnUsage& u, const Config& config) {
  const PriceConfig* price = config.FindPrice(u.model);
  std::optional<double> cost = UsageCost(u, price);
  return {{"day", u.day},
          {"model", u.model},
          {"requests", u.requests},
          {"failed", u.failed},
          {"input_tokens", u.input_tokens},
          {"output_tokens", u.output_tokens},
          {"cache_read_tokens", u.cache_read_tokens},
          {"cache_write_tokens", u.cache_write_tokens},
          {"reasoning_tokens", u.reasoning_tokens},
          {"hit_rate", u.input_tokens > 0 ? static_cast<double>(u.cache_read_tokens) / u.input_tokens : 0.0},
          {"recall_rounds", u.recall_rounds},
          {"first_byte_ms_avg", u.first_byte_ms_avg < 0 ? json(nullptr) : json(u.first_byte_ms_avg)},
          {"total_ms_avg", u.total_ms_avg},
          {"total_ms_max", u.total_ms_max},
          {"cost", cost ? json(*cost) : json(nullptr)},
          {"currency", price ? json(price->currency) : json(nullptr)}};
}

// Days with messages, in the owner's zone, with how many.
Result<json> TimelineJson(memory::Namespace& ns) {
  CILIA_ASSIGN_OR_RETURN(auto per_day, memory::MessagesPerDay(ns));
  json days = json::array();
  for (const auto& d : per_day) days.push_back({{"day", d.day}, {"messages", d.messages}});
  return json{{"days", std::move(days)}};
}

// The conversations of one local day, each with its first message that day.
Result<json> DayJson(memory::Namespace& ns, CivilDate day) {
  CILIA_ASSIGN_OR_RETURN(auto conversations, memory::ConversationsOfDay(ns, day));
  json list = json::array();
  for (const auto& c : conversations) {
    list.push_back({{"id", c.conversation.external_id},
                    {"title", c.conversation.title},
                    {"messages", c.messages},
                    {"first_message_id", memory::MessagePublicId(c.first)},
                    {"first_at", FormatRfc3339(c.first.created_at, ns.tz().OffsetMinutes(c.first.created_at))}});
  }
  return json{{"day", day.ToString()}, {"conversations", std::move(list)}};
}

// [gateway] rewrite as it is written in the file: [["from", "to"], …].
json RewritePairs(const std::vector<RewriteRule>& rules) {
  json pairs = json::array();
  for (const RewriteRule& rule : rules) pairs.push_back(json::array({rule.from, rule.to}));
  return pairs;
}

}  // namespace

const AdminAsset* FindAdminAsset(std::string_view path) {
  if (path.empty()) path = "index.html";
  for (size_t i = 0; i < kAdminAssetCount; ++i) {
    if (path == kAdminAssets[i].path) return &kAdminAssets[i];
  }
  return nullptr;
}

const char* AdminContentType(std::string_view path) {
  static constexpr std::pair<std::string_view, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"},       {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},         {".svg", "image/svg+xml"},
      {".json", "application/json"},               {".webmanifest", "application/manifest+json"},
      {".png", "image/png"},                       {".ico", "image/x-icon"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (path.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

json SettingsConfigJson(const Config& c) {
  json providers = json::array();
  for (const ProviderConfig& p : c.providers) providers.push_back(ProviderJson(p));
  json prices = json::array();
  for (const PriceConfig& p : c.prices) prices.push_back(PriceJson(p));
  return {
      {"file", c.file},
      {"server",
       {{"listen", c.server.listen},
        {"data_dir", c.server.data_dir},
        {"time_zone", c.server.time_zone},
        {"threads", c.server.threads},
        {"keep_alive_timeout_s", c.server.keep_alive_timeout_s},
        {"max_body_mb", c.server.max_body_mb},
        {"read_timeout_s", c.server.read_timeout_s},
        {"write_timeout_s", c.server.write_timeout_s},
        {"cors_origins", c.server.cors_origins},
        {"log_level", c.server.log_level}}},
      {"providers", std::move(providers)},
      {"models",
       {{"public_name", c.models.public_name},
        {"chat", c.models.chat},
        {"extract", c.models.extract},
        {"vision", c.models.vision},
        {"aliases", c.models.aliases},
        {"fallback", c.models.fallback}}},
      {"embedding",
       {{"kind", EmbedderKindName(c.embedding.kind)},
        {"provider", c.embedding.provider},
        {"model", c.embedding.model},
        {"dimensions", c.embedding.dimensions},
        {"batch_size", c.embedding.batch_size},
        {"timeout_ms", c.embedding.timeout_ms}}},
      {"index", {{"hnsw_threshold", c.index.hnsw_threshold}}},
      {"retrieval",
       {{"vector_weight", c.retrieval.vector_weight},
        {"lexical_weight", c.retrieval.lexical_weight},
        {"rrf_k", c.retrieval.rrf_k},
        {"recency_days", c.retrieval.recency_days},
        {"min_vector_similarity", c.retrieval.min_vector_similarity},
        {"relative_floor", c.retrieval.relative_floor},
        {"per_conversation_day_cap", c.retrieval.per_conversation_day_cap},
        {"default_limit", c.retrieval.default_limit},
        {"max_limit", c.retrieval.max_limit}}},
      {"features",
       {{"memory", c.features.memory},
        {"recall_tool", c.features.recall_tool},
        {"compression", c.features.compression},
        {"strip_reasoning", c.features.strip_reasoning},
        {"rewrite", c.features.rewrite}}},
      {"gateway",
       {{"recall_rounds", c.gateway.recall_rounds},
        {"recall_results", c.gateway.recall_results},
        {"recall_result_chars", c.gateway.recall_result_chars},
        {"menu_lines", c.gateway.menu_lines},
        {"menu_tokens", c.gateway.menu_tokens},
        {"precious_tokens", c.gateway.precious_tokens},
        {"snippets", c.gateway.snippets},
        {"snippet_chars", c.gateway.snippet_chars},
        {"compression_threshold_tokens", c.gateway.compression_threshold_tokens},
        {"compression_keep_tokens", c.gateway.compression_keep_tokens},
        {"keepalive_s", c.gateway.keepalive_s},
        {"cache_ttl", c.gateway.cache_ttl},
        {"chat_model_sees_images", c.gateway.chat_model_sees_images},
        {"rewrite", RewritePairs(c.gateway.rewrite)}}},
      {"extraction",
       {{"interval_minutes", c.extraction.interval_minutes},
        {"min_messages", c.extraction.min_messages},
        {"batch_size", c.extraction.batch_size},
        {"overlap", c.extraction.overlap},
        {"max_items", c.extraction.max_items},
        {"review_threshold", c.extraction.review_threshold},
        {"idle_minutes", c.extraction.idle_minutes},
        {"similarity_threshold", c.extraction.similarity_threshold},
        {"daily_token_budget", c.extraction.daily_token_budget},
        {"max_batches_per_run", c.extraction.max_batches_per_run},
        {"backfill", c.extraction.backfill}}},
      {"jobs",
       {{"enabled", c.jobs.enabled},
        {"extract_enabled", c.jobs.extract_enabled},
        {"nightly_enabled", c.jobs.nightly_enabled},
        {"nightly_at", c.jobs.nightly_at},
        {"nightly_catch_up_days", c.jobs.nightly_catch_up_days},
        {"retention_enabled", c.jobs.retention_enabled},
        {"retention_interval_hours", c.jobs.retention_interval_hours},
        {"turns_days", c.jobs.turns_days},
        {"job_runs_days", c.jobs.job_runs_days},
        {"candidates_days", c.jobs.candidates_days},
        {"recall_log_days", c.jobs.recall_log_days}}},
      {"prices", std::move(prices)},
  };
}

std::optional<double> UsageCost(const memory::TurnUsage& u, const PriceConfig* price) {
  if (!price) return std::nullopt;
  // input_tokens counts cached tokens too (store/turn_repo.h); they are priced apart.
  const int64_t uncached = std::max<int64_t>(0, u.input_tokens - u.cache_read_tokens - u.cache_write_tokens);
  return (static_cast<double>(uncached) * price->input + static_cast<double>(u.output_tokens) * price->output +
          static_cast<double>(u.cache_read_tokens) * price->cache_read +
          static_cast<double>(u.cache_write_tokens) * price->cache_write) /
         1e6;
}

void RegisterAdminRoutes(ApiServer& server, memory::Registry& registry) {
  for (const char* index : {"/admin", "/admin/"}) {
    server.HandlePublic("GET", index, [](const Request& req) { return ServeAsset(req.http, "index.html"); });
  }
  server.HandlePublic("GET", R"(/admin/(.+))", [](const Request& req) { return ServeAsset(req.http, req.captures[0]); });

  // Any valid key may ask what it is: the page hides what its scopes forbid.
  server.HandlePublic("GET", "/v1/whoami", [&server](const Request& req) -> Result<Reply> {
    CILIA_ASSIGN_OR_RETURN(Principal who, server.authenticator().Authenticate(req.http, /*allow_query_token=*/false));
    return Reply::Json({{"key_id", who.key_id}, {"namespace", who.name_space}, {"scopes", ScopeNames(who.scopes)}});
  });

  server.Handle("GET", "/v1/export", Scope::kAdmin, [&registry](const Request& req) -> Result<Reply> {
    CILIA_ASSIGN_OR_RETURN(std::shared_ptr<memory::Namespace> ns, registry.Get(req.who.name_space));
    // Whole before the answer starts, so that a failure is a shaped error
    // and never a truncated dump under a 200.
    std::ostringstream dump;
    CILIA_RETURN_IF_ERROR(memory::ExportNamespace(*ns, dump));
    const std::string day = registry.tz().LocalDate(registry.clock().Now()).ToString();
    return Reply::Text(std::move(dump).str(), "application/x-ndjson; charset=utf-8")
        .WithHeader("Content-Disposition",
                    fmt::format("attachment; filename=\"cilia-{}-{}.jsonl\"", req.who.name_space, day));
  });

  // The page's import; the CLI's too (import_routes.h).
  RegisterImportRoutes(server, registry);

  server.Handle("GET", "/v1/timeline", Scope::kMemoryRead, [&registry](const Request& req) {
    return ForNamespace(registry, req.who, [](memory::Namespace& ns) { return TimelineJson(ns); });
  });

  server.Handle("GET", R"(/v1/timeline/([^/]+))", Scope::kMemoryRead, [&registry](const Request& req) -> Result<Reply> {
    auto day = ParseDate(req.captures[0]);
    if (!day.ok()) return Status::InvalidArgument("day: " + day.status().message());
    return ForNamespace(registry, req.who, [&](memory::Namespace& ns) { return DayJson(ns, *day); });
  });

  server.Handle("GET", "/v1/settings", Scope::kAdmin, [&registry](const Request& req) {
    return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
      const embed::Embedder& embedder = ns.embedder();
      return json{{"version", kVersion},
                  {"namespace", ns.name()},
                  {"config", SettingsConfigJson(registry.config())},
                  {"embedder", {{"id", embedder.id()}, {"dimension", embedder.dimension()}, {"remote", embedder.remote()}}},
                  {"index", IndexHealthJson(ns)}};
    });
  });

  server.Handle("GET", "/v1/stats/usage", Scope::kAdmin, [&registry](const Request& req) -> Result<Reply> {
    CILIA_ASSIGN_OR_RETURN(const int64_t days, IntParam(req.http, "days", kDefaultUsageDays, 1, kMaxUsageDays));
    const std::string first_day =
        AddDays(registry.tz().LocalDate(registry.clock().Now()), -static_cast<int>(days - 1)).ToString();
    return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
      CILIA_ASSIGN_OR_RETURN(auto usage, memory::UsageSince(ns, first_day));
      json list = json::array();
      for (const auto& row : usage) list.push_back(UsageJson(row, registry.config()));
      return json{{"first_day", first_day}, {"days", std::move(list)}};
    });
  });
}

}  // namespace cilia::api
