#include "core/config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <type_traits>
#include <variant>

#include "core/log.h"
#include "core/time.h"

extern char** environ;

namespace cilia {

namespace {

// A value on its way from the file or the environment into a field.
using ConfigValue = std::variant<std::string, int64_t, double, bool, std::vector<std::string>>;
enum class ValueType { kString, kInt, kDouble, kBool, kStringList };

const char* ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kString: return "a string";
    case ValueType::kInt: return "an integer";
    case ValueType::kDouble: return "a number";
    case ValueType::kBool: return "true or false";
    case ValueType::kStringList: return "an array of strings";
  }
  return "a value";
}

template <typename T>
constexpr ValueType TypeOf() {
  if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) return ValueType::kString;
  else if constexpr (std::is_same_v<T, int>) return ValueType::kInt;
  else if constexpr (std::is_same_v<T, double>) return ValueType::kDouble;
  else if constexpr (std::is_same_v<T, bool>) return ValueType::kBool;
  else {
    static_assert(std::is_same_v<T, std::vector<std::string>>);
    return ValueType::kStringList;
  }
}

Status ParseEnum(std::string_view text, ProviderKind& out) {
  if (text == "openai") out = ProviderKind::kOpenAI;
  else if (text == "anthropic") out = ProviderKind::kAnthropic;
  else return Status::InvalidArgument(fmt::format("\"{}\" is not a provider kind (kinds: openai, anthropic)", text));
  return Status::Ok();
}

Status ParseEnum(std::string_view text, WireApi& out) {
  if (text == "chat") out = WireApi::kChat;
  else if (text == "responses") out = WireApi::kResponses;
  else return Status::InvalidArgument(fmt::format("\"{}\" is not a wire API (chat, responses)", text));
  return Status::Ok();
}

Status ParseEnum(std::string_view text, EmbedderKind& out) {
  if (text == "hash") out = EmbedderKind::kHash;
  else if (text == "openai") out = EmbedderKind::kOpenAI;
  else if (text == "local") out = EmbedderKind::kLocal;
  else return Status::InvalidArgument(fmt::format("\"{}\" is not an embedder kind (kinds: hash, openai, local)", text));
  return Status::Ok();
}

Status ParseEnum(std::string_view text, StoreKind& out) {
  if (text == "sqlite") out = StoreKind::kSqlite;
  else if (text == "postgres") out = StoreKind::kPostgres;
  else return Status::InvalidArgument(fmt::format("\"{}\" is not a store kind (kinds: sqlite, postgres)", text));
  return Status::Ok();
}

template <typename T>
Status AssignValue(T& field, const ConfigValue& value) {
  if constexpr (std::is_enum_v<T>) {
    return ParseEnum(std::get<std::string>(value), field);
  } else if constexpr (std::is_same_v<T, int>) {
    int64_t wide = std::get<int64_t>(value);
    if (wide < INT_MIN || wide > INT_MAX) return Status::InvalidArgument(fmt::format("{} is out of range", wide));
    field = static_cast<int>(wide);
  } else {
    field = std::get<T>(value);
  }
  return Status::Ok();
}

// One scalar key of a section, bound to its field in Target.
template <typename Target>
struct KeySpec {
  std::string_view name;
  ValueType type;
  std::function<Status(Target&, const ConfigValue&)> assign;
};

template <typename Section, typename T>
KeySpec<Config> Key(std::string_view name, Section Config::*section, T Section::*member) {
  return {name, TypeOf<T>(),
          [section, member](Config& c, const ConfigValue& v) { return AssignValue((c.*section).*member, v); }};
}

// A key of one table of an array of tables ([[providers]], [[prices]]).
template <typename Target, typename T>
KeySpec<Target> MemberKey(std::string_view name, T Target::*member) {
  return {name, TypeOf<T>(), [member](Target& t, const ConfigValue& v) { return AssignValue(t.*member, v); }};
}

struct SectionSpec {
  std::string_view name;
  std::vector<KeySpec<Config>> keys;
};

// Every scalar key, which is also every key the environment can set.
const std::vector<SectionSpec>& Sections() {
  static const auto* const sections = new std::vector<SectionSpec>{
      {"server",
       {Key("listen", &Config::server, &ServerConfig::listen),
        Key("data_dir", &Config::server, &ServerConfig::data_dir),
        Key("time_zone", &Config::server, &ServerConfig::time_zone),
        Key("threads", &Config::server, &ServerConfig::threads),
        Key("keep_alive_timeout_s", &Config::server, &ServerConfig::keep_alive_timeout_s),
        Key("max_body_mb", &Config::server, &ServerConfig::max_body_mb),
        Key("read_timeout_s", &Config::server, &ServerConfig::read_timeout_s),
        Key("write_timeout_s", &Config::server, &ServerConfig::write_timeout_s),
        Key("request_timeout_s", &Config::server, &ServerConfig::request_timeout_s),
        Key("max_connections", &Config::server, &ServerConfig::max_connections),
        Key("max_connections_per_peer", &Config::server, &ServerConfig::max_connections_per_peer),
        Key("rate_limit_requests_per_minute", &Config::server, &ServerConfig::rate_limit_requests_per_minute),
        Key("rate_limit_tokens_per_minute", &Config::server, &ServerConfig::rate_limit_tokens_per_minute),
        Key("cors_origins", &Config::server, &ServerConfig::cors_origins),
        Key("log_level", &Config::server, &ServerConfig::log_level)}},
      {"models",
       {Key("public_name", &Config::models, &ModelsConfig::public_name),
        Key("chat", &Config::models, &ModelsConfig::chat), Key("extract", &Config::models, &ModelsConfig::extract),
        Key("vision", &Config::models, &ModelsConfig::vision),
        Key("fallback", &Config::models, &ModelsConfig::fallback)}},
      {"embedding",
       {Key("kind", &Config::embedding, &EmbeddingConfig::kind),
        Key("provider", &Config::embedding, &EmbeddingConfig::provider),
        Key("model", &Config::embedding, &EmbeddingConfig::model),
        Key("dimensions", &Config::embedding, &EmbeddingConfig::dimensions),
        Key("batch_size", &Config::embedding, &EmbeddingConfig::batch_size),
        Key("timeout_ms", &Config::embedding, &EmbeddingConfig::timeout_ms),
        Key("threads", &Config::embedding, &EmbeddingConfig::threads),
        Key("query_prefix", &Config::embedding, &EmbeddingConfig::query_prefix),
        Key("passage_prefix", &Config::embedding, &EmbeddingConfig::passage_prefix)}},
      {"index", {Key("hnsw_threshold", &Config::index, &IndexConfig::hnsw_threshold)}},
      {"retrieval",
       {Key("vector_weight", &Config::retrieval, &RetrievalConfig::vector_weight),
        Key("lexical_weight", &Config::retrieval, &RetrievalConfig::lexical_weight),
        Key("rrf_k", &Config::retrieval, &RetrievalConfig::rrf_k),
        Key("recency_days", &Config::retrieval, &RetrievalConfig::recency_days),
        Key("min_vector_similarity", &Config::retrieval, &RetrievalConfig::min_vector_similarity),
        Key("relative_floor", &Config::retrieval, &RetrievalConfig::relative_floor),
        Key("title_weight", &Config::retrieval, &RetrievalConfig::title_weight),
        Key("per_conversation_day_cap", &Config::retrieval, &RetrievalConfig::per_conversation_day_cap),
        Key("default_limit", &Config::retrieval, &RetrievalConfig::default_limit),
        Key("max_limit", &Config::retrieval, &RetrievalConfig::max_limit)}},
      {"features",
       {Key("memory", &Config::features, &FeaturesConfig::memory),
        Key("recall_tool", &Config::features, &FeaturesConfig::recall_tool),
        Key("compression", &Config::features, &FeaturesConfig::compression),
        Key("strip_reasoning", &Config::features, &FeaturesConfig::strip_reasoning),
        Key("rewrite", &Config::features, &FeaturesConfig::rewrite)}},
      {"gateway",
       {Key("recall_rounds", &Config::gateway, &GatewayConfig::recall_rounds),
        Key("recall_results", &Config::gateway, &GatewayConfig::recall_results),
        Key("recall_result_chars", &Config::gateway, &GatewayConfig::recall_result_chars),
        Key("menu_lines", &Config::gateway, &GatewayConfig::menu_lines),
        Key("menu_tokens", &Config::gateway, &GatewayConfig::menu_tokens),
        Key("menu_min_match", &Config::gateway, &GatewayConfig::menu_min_match),
        Key("precious_tokens", &Config::gateway, &GatewayConfig::precious_tokens),
        Key("snippets", &Config::gateway, &GatewayConfig::snippets),
        Key("snippet_chars", &Config::gateway, &GatewayConfig::snippet_chars),
        Key("compression_threshold_tokens", &Config::gateway, &GatewayConfig::compression_threshold_tokens),
        Key("compression_keep_tokens", &Config::gateway, &GatewayConfig::compression_keep_tokens),
        Key("keepalive_s", &Config::gateway, &GatewayConfig::keepalive_s),
        Key("cache_ttl", &Config::gateway, &GatewayConfig::cache_ttl),
        Key("chat_model_sees_images", &Config::gateway, &GatewayConfig::chat_model_sees_images)}},
      {"extraction",
       {Key("interval_minutes", &Config::extraction, &ExtractionConfig::interval_minutes),
        Key("min_messages", &Config::extraction, &ExtractionConfig::min_messages),
        Key("batch_size", &Config::extraction, &ExtractionConfig::batch_size),
        Key("overlap", &Config::extraction, &ExtractionConfig::overlap),
        Key("max_items", &Config::extraction, &ExtractionConfig::max_items),
        Key("review_threshold", &Config::extraction, &ExtractionConfig::review_threshold),
        Key("idle_minutes", &Config::extraction, &ExtractionConfig::idle_minutes),
        Key("similarity_threshold", &Config::extraction, &ExtractionConfig::similarity_threshold),
        Key("daily_token_budget", &Config::extraction, &ExtractionConfig::daily_token_budget),
        Key("max_batches_per_run", &Config::extraction, &ExtractionConfig::max_batches_per_run),
        Key("backfill", &Config::extraction, &ExtractionConfig::backfill)}},
      {"jobs",
       {Key("enabled", &Config::jobs, &JobsConfig::enabled),
        Key("extract_enabled", &Config::jobs, &JobsConfig::extract_enabled),
        Key("nightly_enabled", &Config::jobs, &JobsConfig::nightly_enabled),
        Key("nightly_at", &Config::jobs, &JobsConfig::nightly_at),
        Key("nightly_catch_up_days", &Config::jobs, &JobsConfig::nightly_catch_up_days),
        Key("retention_enabled", &Config::jobs, &JobsConfig::retention_enabled),
        Key("retention_interval_hours", &Config::jobs, &JobsConfig::retention_interval_hours),
        Key("turns_days", &Config::jobs, &JobsConfig::turns_days),
        Key("job_runs_days", &Config::jobs, &JobsConfig::job_runs_days),
        Key("candidates_days", &Config::jobs, &JobsConfig::candidates_days),
        Key("recall_log_days", &Config::jobs, &JobsConfig::recall_log_days)}},
      {"store",
       {Key("kind", &Config::store, &StoreConfig::kind), Key("url", &Config::store, &StoreConfig::url),
        Key("pool_size", &Config::store, &StoreConfig::pool_size),
        Key("statement_timeout_ms", &Config::store, &StoreConfig::statement_timeout_ms),
        Key("unload_idle_s", &Config::store, &StoreConfig::unload_idle_s)}},
  };
  return *sections;
}

const std::vector<KeySpec<ProviderConfig>>& ProviderKeys() {
  static const auto* const keys = new std::vector<KeySpec<ProviderConfig>>{
      MemberKey("name", &ProviderConfig::name),
      MemberKey("kind", &ProviderConfig::kind),
      MemberKey("base_url", &ProviderConfig::base_url),
      MemberKey("api_key_env", &ProviderConfig::api_key_env),
      MemberKey("api_key", &ProviderConfig::api_key),
      MemberKey("connect_timeout_ms", &ProviderConfig::connect_timeout_ms),
      MemberKey("first_byte_timeout_ms", &ProviderConfig::first_byte_timeout_ms),
      MemberKey("idle_timeout_ms", &ProviderConfig::idle_timeout_ms),
      MemberKey("wire_api", &ProviderConfig::wire_api),
  };
  return *keys;
}

const std::vector<KeySpec<PriceConfig>>& PriceKeys() {
  static const auto* const keys = new std::vector<KeySpec<PriceConfig>>{
      MemberKey("model", &PriceConfig::model),           MemberKey("input", &PriceConfig::input),
      MemberKey("output", &PriceConfig::output),         MemberKey("cache_read", &PriceConfig::cache_read),
      MemberKey("cache_write", &PriceConfig::cache_write), MemberKey("currency", &PriceConfig::currency),
  };
  return *keys;
}

constexpr std::string_view kProvidersSection = "providers";
constexpr std::string_view kPricesSection = "prices";
constexpr std::string_view kAliasesKey = "aliases";  // models.aliases, a table, file only
constexpr std::string_view kRewriteKey = "rewrite";  // gateway.rewrite, an array of pairs, file only

// The keys that are not scalars, which the environment cannot set.
bool IsFileOnlyKey(std::string_view section, std::string_view key) {
  return (section == "models" && key == kAliasesKey) || (section == "gateway" && key == kRewriteKey);
}

template <typename Target>
const KeySpec<Target>* FindKey(const std::vector<KeySpec<Target>>& keys, std::string_view name) {
  auto it = std::find_if(keys.begin(), keys.end(), [&](const KeySpec<Target>& k) { return k.name == name; });
  return it == keys.end() ? nullptr : &*it;
}

const SectionSpec* FindSection(std::string_view name) {
  const auto& sections = Sections();
  auto it = std::find_if(sections.begin(), sections.end(), [&](const SectionSpec& s) { return s.name == name; });
  return it == sections.end() ? nullptr : &*it;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string EnvName(std::string_view section, std::string_view key) {
  return fmt::format("CILIA_{}_{}", Upper(section), Upper(key));
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

const char* TomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or time";
  }
}

// The node as a value of `type`, or the reason it is not one.
Result<ConfigValue> FromToml(const toml::node& node, ValueType type) {
  auto mismatch = [&] {
    return Status::InvalidArgument(fmt::format("expected {}, got {}", ValueTypeName(type), TomlTypeName(node)));
  };
  switch (type) {
    case ValueType::kString:
      if (auto s = node.as_string()) return ConfigValue(s->get());
      return mismatch();
    case ValueType::kInt:
      if (auto i = node.as_integer()) return ConfigValue(i->get());
      return mismatch();
    case ValueType::kDouble:
      if (auto d = node.as_floating_point()) return ConfigValue(d->get());
      if (auto i = node.as_integer()) return ConfigValue(static_cast<double>(i->get()));
      return mismatch();
    case ValueType::kBool:
      if (auto b = node.as_boolean()) return ConfigValue(b->get());
      return mismatch();
    case ValueType::kStringList: {
      auto array = node.as_array();
      if (!array) return mismatch();
      std::vector<std::string> items;
      for (const toml::node& item : *array) {
        auto s = item.as_string();
        if (!s) return mismatch();
        items.push_back(s->get());
      }
      return ConfigValue(std::move(items));
    }
  }
  return mismatch();
}

// An environment string as a value of `type`. Lists are comma-separated.
Result<ConfigValue> FromEnv(std::string_view text, ValueType type) {
  auto mismatch = [&] {
    return Status::InvalidArgument(fmt::format("expected {}, got \"{}\"", ValueTypeName(type), text));
  };
  switch (type) {
    case ValueType::kString: return ConfigValue(std::string(text));
    case ValueType::kInt: {
      int64_t value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return mismatch();
      return ConfigValue(value);
    }
    case ValueType::kDouble: {
      double value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(value)) {
        return mismatch();
      }
      return ConfigValue(value);
    }
    case ValueType::kBool: {
      std::string word = Lower(text);
      if (word == "true" || word == "1" || word == "yes" || word == "on") return ConfigValue(true);
      if (word == "false" || word == "0" || word == "no" || word == "off") return ConfigValue(false);
      return mismatch();
    }
    case ValueType::kStringList: {
      std::vector<std::string> items = SplitList(text);
      std::erase(items, "");
      return ConfigValue(std::move(items));
    }
  }
  return mismatch();
}

bool IsProviderNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool IsHttpUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.substr(0, scheme.size()) == scheme && url.size() > scheme.size()) return true;
  }
  return false;
}

// An origin as browsers send it: scheme://host[:port], nothing after.
bool IsOrigin(std::string_view origin) {
  if (origin == "*") return true;
  if (!IsHttpUrl(origin)) return false;
  std::string_view rest = origin.substr(origin.find("//") + 2);
  return rest.find('/') == std::string_view::npos;
}

// Reads the sources into a Config, remembering where each key's value came
// from so a bad value can be blamed on its source.
class Loader {
 public:
  Status ReadFile(const std::string& path);
  Status ReadEnv(const std::map<std::string, std::string>& env);
  void ApplyFlag(std::string_view flag, std::string key, const std::string& value, std::string& field);
  void ResolveDerived(const std::map<std::string, std::string>& env);
  Status Validate() const;

  Config& config() { return config_; }

 private:
  Status ReadSection(const SectionSpec& section, const toml::table& table);
  Status ReadAliases(const toml::node& node);
  Status ReadRewrite(const toml::node& node);
  Status ReadProviders(const toml::node& node);
  // An array of tables, each key of each table one of `keys`.
  template <typename Target>
  Result<std::vector<Target>> ReadTables(const toml::node& node, std::string_view section,
                                         const std::vector<KeySpec<Target>>& keys) const;
  Status SetFromEnv(const SectionSpec& section, const KeySpec<Config>& key, const std::string& var,
                    const std::string& text);

  Status ValidateServer() const;
  Status ValidateProviders() const;
  Status ValidateModels() const;
  Status ValidateEmbedding() const;
  Status ValidateRetrieval() const;
  Status ValidateGateway() const;
  Status ValidateExtraction() const;
  Status ValidateJobs() const;
  Status ValidateStore() const;
  Status ValidatePrices() const;

  std::string FileSource() const { return "config " + config_.file; }
  // "config ./cilia.toml: unknown key "server.lisen" (line 3)".
  Status FileError(const toml::node& node, std::string_view problem) const {
    return Status::InvalidArgument(fmt::format("{}: {} (line {})", FileSource(), problem, node.source().begin.line));
  }
  // A bad value, blamed on the source that set the key.
  Status Bad(const std::string& key, std::string_view problem) const {
    auto it = origin_.find(key);
    std::string source = it == origin_.end() ? "default" : it->second;
    return Status::InvalidArgument(fmt::format("{}: {}: {}", source, key, problem));
  }
  Status CheckRange(const std::string& key, double value, double min, double max) const {
    if (value >= min && value <= max) return Status::Ok();
    return Bad(key, fmt::format("must be between {} and {}, got {}", min, max, value));
  }
  Status CheckModelRef(const std::string& key, const std::string& ref) const;

  Config config_;
  std::map<std::string, std::string> origin_;
};

Status Loader::ReadFile(const std::string& path) {
  config_.file = path;
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return Status::InvalidArgument(fmt::format("config {}:{}:{}: {}", path, where.line, where.column, e.description()));
  }
  for (auto&& [name, node] : root) {
    std::string_view section_name = name.str();
    if (section_name == kProvidersSection) {
      CILIA_RETURN_IF_ERROR(ReadProviders(node));
      continue;
    }
    if (section_name == kPricesSection) {
      CILIA_ASSIGN_OR_RETURN(config_.prices, ReadTables(node, kPricesSection, PriceKeys()));
      for (size_t i = 0; i < config_.prices.size(); ++i) origin_[fmt::format("prices[{}].model", i)] = FileSource();
      continue;
    }
    const SectionSpec* section = FindSection(section_name);
    if (!section) {
      return FileError(node, fmt::format("unknown {} \"{}\"", node.is_table() ? "section" : "key", section_name));
    }
    const toml::table* table = node.as_table();
    if (!table) return FileError(node, fmt::format("\"{}\" must be a section ([{}])", section_name, section_name));
    CILIA_RETURN_IF_ERROR(ReadSection(*section, *table));
  }
  return Status::Ok();
}

Status Loader::ReadSection(const SectionSpec& section, const toml::table& table) {
  for (auto&& [name, node] : table) {
    std::string key = fmt::format("{}.{}", section.name, name.str());
    if (section.name == "models" && name.str() == kAliasesKey) {
      CILIA_RETURN_IF_ERROR(ReadAliases(node));
      continue;
    }
    if (section.name == "gateway" && name.str() == kRewriteKey) {
      CILIA_RETURN_IF_ERROR(ReadRewrite(node));
      continue;
    }
    const KeySpec<Config>* spec = FindKey(section.keys, name.str());
    if (!spec) return FileError(node, fmt::format("unknown key \"{}\"", key));
    auto value = FromToml(node, spec->type);
    if (!value.ok()) return FileError(node, fmt::format("{}: {}", key, value.status().message()));
    Status assigned = spec->assign(config_, *value);
    if (!assigned.ok()) return FileError(node, fmt::format("{}: {}", key, assigned.message()));
    origin_[key] = FileSource();
  }
  return Status::Ok();
}

Status Loader::ReadAliases(const toml::node& node) {
  const toml::table* table = node.as_table();
  if (!table) return FileError(node, fmt::format("models.aliases: expected a table, got {}", TomlTypeName(node)));
  for (auto&& [alias, target] : *table) {
    std::string key = fmt::format("models.aliases.{}", alias.str());
    auto text = target.as_string();
    if (!text) return FileError(target, fmt::format("{}: expected a string, got {}", key, TomlTypeName(target)));
    config_.models.aliases[std::string(alias.str())] = text->get();
    origin_[key] = FileSource();
  }
  return Status::Ok();
}

// Checked here, where the line of a bad pair is known: the filter relies on
// non-empty, distinct `from`s (gateway/output_filter.h).
Status Loader::ReadRewrite(const toml::node& node) {
  const std::string shape = "gateway.rewrite: expected an array of [\"from\", \"to\"] pairs";
  const toml::array* pairs = node.as_array();
  if (!pairs) return FileError(node, fmt::format("{}, got {}", shape, TomlTypeName(node)));
  if (pairs->size() > kMaxRewriteRules) {
    return FileError(node, fmt::format("gateway.rewrite: at most {} rules, got {}", kMaxRewriteRules, pairs->size()));
  }
  std::vector<RewriteRule> rules;
  std::set<std::string> seen;
  for (size_t i = 0; i < pairs->size(); ++i) {
    const toml::node& item = (*pairs)[i];
    const toml::array* pair = item.as_array();
    if (!pair || pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_string()) {
      return FileError(item, fmt::format("gateway.rewrite[{}]: expected a pair of strings [\"from\", \"to\"]", i));
    }
    RewriteRule rule{(*pair)[0].as_string()->get(), (*pair)[1].as_string()->get()};
    if (rule.from.empty()) return FileError(item, fmt::format("gateway.rewrite[{}]: \"from\" is empty", i));
    if (rule.from.size() > kMaxRewriteFromBytes) {
      return FileError(item, fmt::format("gateway.rewrite[{}]: \"from\" is {} bytes, at most {}", i, rule.from.size(),
                                         kMaxRewriteFromBytes));
    }
    if (rule.to.size() > kMaxRewriteToBytes) {
      return FileError(item, fmt::format("gateway.rewrite[{}]: \"to\" is {} bytes, at most {}", i, rule.to.size(),
                                         kMaxRewriteToBytes));
    }
    if (!seen.insert(rule.from).second) {
      return FileError(item, fmt::format("gateway.rewrite[{}]: \"{}\" is rewritten twice", i, rule.from));
    }
    rules.push_back(std::move(rule));
  }
  config_.gateway.rewrite = std::move(rules);
  origin_["gateway.rewrite"] = FileSource();
  return Status::Ok();
}

template <typename Target>
Result<std::vector<Target>> Loader::ReadTables(const toml::node& node, std::string_view section,
                                               const std::vector<KeySpec<Target>>& keys) const {
  const std::string shape = fmt::format("{} must be an array of tables ([[{}]])", section, section);
  const toml::array* array = node.as_array();
  if (!array) return FileError(node, shape);
  std::vector<Target> items;
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = (*array)[i];
    const toml::table* table = item.as_table();
    if (!table) return FileError(item, shape);
    Target target;
    for (auto&& [name, value_node] : *table) {
      std::string key = fmt::format("{}[{}].{}", section, i, name.str());
      const KeySpec<Target>* spec = FindKey(keys, name.str());
      if (!spec) return FileError(value_node, fmt::format("unknown key \"{}\"", key));
      auto value = FromToml(value_node, spec->type);
      if (!value.ok()) return FileError(value_node, fmt::format("{}: {}", key, value.status().message()));
      Status assigned = spec->assign(target, *value);
      if (!assigned.ok()) return FileError(value_node, fmt::format("{}: {}", key, assigned.message()));
    }
    items.push_back(std::move(target));
  }
  return items;
}

Status Loader::ReadProviders(const toml::node& node) {
  CILIA_ASSIGN_OR_RETURN(auto providers, ReadTables(node, kProvidersSection, ProviderKeys()));
  for (size_t i = 0; i < providers.size(); ++i) {
    if (!providers[i].api_key_env.empty() && !providers[i].api_key.empty()) {
      return FileError(*node.as_array()->get(i),
                       fmt::format("providers[{}]: set either api_key_env or api_key, not both", i));
    }
  }
  for (ProviderConfig& provider : providers) config_.providers.push_back(std::move(provider));
  return Status::Ok();
}

Status Loader::SetFromEnv(const SectionSpec& section, const KeySpec<Config>& key, const std::string& var,
                          const std::string& text) {
  std::string source = "environment " + var;
  auto value = FromEnv(text, key.type);
  if (!value.ok()) return Status::InvalidArgument(fmt::format("{}: {}", source, value.status().message()));
  Status assigned = key.assign(config_, *value);
  if (!assigned.ok()) return Status::InvalidArgument(fmt::format("{}: {}", source, assigned.message()));
  origin_[fmt::format("{}.{}", section.name, key.name)] = source;
  return Status::Ok();
}

Status Loader::ReadEnv(const std::map<std::string, std::string>& env) {
  // The short form first, so that CILIA_SERVER_LOG_LEVEL wins when both are set.
  if (auto it = env.find("CILIA_LOG_LEVEL"); it != env.end()) {
    const SectionSpec* server = FindSection("server");
    CILIA_RETURN_IF_ERROR(SetFromEnv(*server, *FindKey(server->keys, "log_level"), it->first, it->second));
  }
  for (const auto& [var, text] : env) {
    for (const SectionSpec& section : Sections()) {
      std::string prefix = EnvName(section.name, "");
      if (var.compare(0, prefix.size(), prefix) != 0) continue;
      std::string name = Lower(std::string_view(var).substr(prefix.size()));
      if (const KeySpec<Config>* key = FindKey(section.keys, name)) {
        CILIA_RETURN_IF_ERROR(SetFromEnv(section, *key, var, text));
      } else if (IsFileOnlyKey(section.name, name)) {
        return Status::InvalidArgument(
            fmt::format("environment {}: {}.{} is set in the config file only", var, section.name, name));
      } else {
        return Status::InvalidArgument(
            fmt::format("environment {}: unknown key \"{}.{}\"", var, section.name, name));
      }
    }
  }
  return Status::Ok();
}

void Loader::ApplyFlag(std::string_view flag, std::string key, const std::string& value, std::string& field) {
  field = value;
  origin_[std::move(key)] = fmt::format("flag --{}", flag);
}

void Loader::ResolveDerived(const std::map<std::string, std::string>& env) {
  for (ProviderConfig& provider : config_.providers) {
    if (provider.api_key_env.empty()) continue;
    auto it = env.find(provider.api_key_env);
    if (it != env.end()) provider.api_key = it->second;
  }
  if (config_.models.extract.empty()) config_.models.extract = config_.models.chat;
  // The hash embedder's vector lane costs LoCoMo recall and gains zh-dev
  // nothing at k=5 (bench/RESULTS.md, the ablation): unless the weight is
  // set, it does not run.
  if (config_.embedding.kind == EmbedderKind::kHash && !origin_.count("retrieval.vector_weight")) {
    config_.retrieval.vector_weight = 0;
  }
  if (config_.embedding.kind == EmbedderKind::kHash && config_.embedding.dimensions == 0) {
    config_.embedding.dimensions = 256;
  }
  if (auto it = env.find("CILIA_API_KEY"); it != env.end()) config_.client_api_key = it->second;
}

Status Loader::Validate() const {
  CILIA_RETURN_IF_ERROR(ValidateServer());
  CILIA_RETURN_IF_ERROR(ValidateProviders());
  CILIA_RETURN_IF_ERROR(ValidateModels());
  CILIA_RETURN_IF_ERROR(ValidateEmbedding());
  CILIA_RETURN_IF_ERROR(ValidateGateway());
  CILIA_RETURN_IF_ERROR(ValidateExtraction());
  CILIA_RETURN_IF_ERROR(ValidateJobs());
  CILIA_RETURN_IF_ERROR(ValidateStore());
  CILIA_RETURN_IF_ERROR(ValidatePrices());
  CILIA_RETURN_IF_ERROR(CheckRange("index.hnsw_threshold", config_.index.hnsw_threshold, 0, INT_MAX));
  return ValidateRetrieval();
}

Status Loader::ValidateServer() const {
  const ServerConfig& s = config_.server;
  if (auto address = ParseListenAddress(s.listen); !address.ok()) {
    return Bad("server.listen", address.status().message());
  }
  if (s.data_dir.empty()) return Bad("server.data_dir", "must not be empty");
  if (auto zone = TimeZone::Load(s.time_zone); !zone.ok()) return Bad("server.time_zone", zone.status().message());
  CILIA_RETURN_IF_ERROR(CheckRange("server.threads", s.threads, 1, 10000));
  CILIA_RETURN_IF_ERROR(CheckRange("server.keep_alive_timeout_s", s.keep_alive_timeout_s, 1, 300));
  CILIA_RETURN_IF_ERROR(CheckRange("server.max_body_mb", s.max_body_mb, 1, 4096));
  CILIA_RETURN_IF_ERROR(CheckRange("server.read_timeout_s", s.read_timeout_s, 1, 3600));
  CILIA_RETURN_IF_ERROR(CheckRange("server.write_timeout_s", s.write_timeout_s, 1, 3600));
  CILIA_RETURN_IF_ERROR(CheckRange("server.request_timeout_s", s.request_timeout_s, 1, 3600));
  CILIA_RETURN_IF_ERROR(CheckRange("server.max_connections", s.max_connections, 1, 1'000'000));
  CILIA_RETURN_IF_ERROR(CheckRange("server.max_connections_per_peer", s.max_connections_per_peer, 0, 1'000'000));
  CILIA_RETURN_IF_ERROR(
      CheckRange("server.rate_limit_requests_per_minute", s.rate_limit_requests_per_minute, 0, 100'000'000));
  CILIA_RETURN_IF_ERROR(CheckRange("server.rate_limit_tokens_per_minute", s.rate_limit_tokens_per_minute, 0, 2'000'000'000));
  for (const std::string& origin : s.cors_origins) {
    if (!IsOrigin(origin)) {
      return Bad("server.cors_origins",
                 fmt::format("\"{}\" is not an origin like https://chat.example.com (scheme and host, no path), or \"*\"",
                             origin));
    }
  }
  if (auto level = ParseLogLevel(s.log_level); !level.ok()) return Bad("server.log_level", level.status().message());
  return Status::Ok();
}

Status Loader::ValidateProviders() const {
  std::set<std::string_view> names;
  for (size_t i = 0; i < config_.providers.size(); ++i) {
    const ProviderConfig& p = config_.providers[i];
    auto bad = [&](std::string_view field, std::string_view problem) {
      return Status::InvalidArgument(fmt::format("{}: providers[{}].{}: {}", FileSource(), i, field, problem));
    };
    if (p.name.empty()) return bad("name", "is required");
    if (!std::all_of(p.name.begin(), p.name.end(), IsProviderNameChar)) {
      return bad("name", fmt::format("\"{}\" may hold only letters, digits, '_', '-' and '.'", p.name));
    }
    if (!names.insert(p.name).second) return bad("name", fmt::format("\"{}\" is defined twice", p.name));
    if (!IsHttpUrl(p.base_url)) {
      return bad("base_url", fmt::format("\"{}\" is not an http:// or https:// URL", p.base_url));
    }
    for (auto [field, value] : {std::pair{"connect_timeout_ms", p.connect_timeout_ms},
                                {"first_byte_timeout_ms", p.first_byte_timeout_ms},
                                {"idle_timeout_ms", p.idle_timeout_ms}}) {
      if (value < 0) return bad(field, fmt::format("must be 0 (no limit) or more, got {}", value));
    }
    if (p.wire_api == WireApi::kResponses && p.kind != ProviderKind::kOpenAI) {
      return bad("wire_api", "\"responses\" is for kind \"openai\" only");
    }
  }
  return Status::Ok();
}

Status Loader::CheckModelRef(const std::string& key, const std::string& ref) const {
  size_t slash = ref.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ref.size()) {
    return Bad(key, fmt::format("\"{}\" is not \"<provider>/<model id>\"", ref));
  }
  std::string provider = ref.substr(0, slash);
  if (config_.FindProvider(provider)) return Status::Ok();
  std::vector<std::string_view> defined;
  for (const ProviderConfig& p : config_.providers) defined.push_back(p.name);
  std::string known = defined.empty() ? "no [[providers]] are defined"
                                      : fmt::format("defined: {}", fmt::join(defined, ", "));
  return Bad(key, fmt::format("provider \"{}\" is not defined ({})", provider, known));
}

Status Loader::ValidateModels() const {
  const ModelsConfig& m = config_.models;
  if (m.public_name.empty()) return Bad("models.public_name", "must not be empty");
  for (auto [key, ref] : {std::pair{"models.chat", &m.chat}, {"models.extract", &m.extract},
                          {"models.vision", &m.vision}, {"models.fallback", &m.fallback}}) {
    if (!ref->empty()) CILIA_RETURN_IF_ERROR(CheckModelRef(key, *ref));
  }
  for (const auto& [alias, ref] : m.aliases) CILIA_RETURN_IF_ERROR(CheckModelRef("models.aliases." + alias, ref));
  return Status::Ok();
}

Status Loader::ValidatePrices() const {
  std::set<std::string_view> models;
  for (size_t i = 0; i < config_.prices.size(); ++i) {
    const PriceConfig& p = config_.prices[i];
    auto bad = [&](std::string_view field, std::string_view problem) {
      return Status::InvalidArgument(fmt::format("{}: prices[{}].{}: {}", FileSource(), i, field, problem));
    };
    if (p.model.empty()) return bad("model", "is required: the upstream model, \"<provider>/<model id>\"");
    if (Status ref = CheckModelRef(fmt::format("prices[{}].model", i), p.model); !ref.ok()) return ref;
    if (!models.insert(p.model).second) return bad("model", fmt::format("\"{}\" is priced twice", p.model));
    for (auto [field, value] : {std::pair{"input", p.input}, {"output", p.output}, {"cache_read", p.cache_read},
                                {"cache_write", p.cache_write}}) {
      if (value < 0) return bad(field, fmt::format("must be 0 or more (a price per million tokens), got {}", value));
    }
  }
  return Status::Ok();
}

Status Loader::ValidateEmbedding() const {
  const EmbeddingConfig& e = config_.embedding;
  if (e.kind == EmbedderKind::kOpenAI) {
    if (e.provider.empty()) return Bad("embedding.kind", "kind \"openai\" needs embedding.provider");
    if (!config_.FindProvider(e.provider)) {
      return Bad("embedding.provider", fmt::format("provider \"{}\" is not defined", e.provider));
    }
    if (e.model.empty()) return Bad("embedding.kind", "kind \"openai\" needs embedding.model");
  }
  if (e.kind == EmbedderKind::kLocal && e.model.empty()) {
    return Bad("embedding.kind", "kind \"local\" needs embedding.model (the model file)");
  }
  CILIA_RETURN_IF_ERROR(CheckRange("embedding.dimensions", e.dimensions, e.kind == EmbedderKind::kHash ? 1 : 0, 65536));
  CILIA_RETURN_IF_ERROR(CheckRange("embedding.batch_size", e.batch_size, 1, 4096));
  CILIA_RETURN_IF_ERROR(CheckRange("embedding.threads", e.threads, 0, 256));
  if (e.kind != EmbedderKind::kLocal && !(e.query_prefix.empty() && e.passage_prefix.empty())) {
    return Bad(e.query_prefix.empty() ? "embedding.passage_prefix" : "embedding.query_prefix",
               "the prefixes are for kind \"local\"");
  }
  return CheckRange("embedding.timeout_ms", e.timeout_ms, 1, INT_MAX);
}

Status Loader::ValidateRetrieval() const {
  const RetrievalConfig& r = config_.retrieval;
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.vector_weight", r.vector_weight, 0, 1000));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.lexical_weight", r.lexical_weight, 0, 1000));
  if (r.vector_weight + r.lexical_weight <= 0) {
    return Bad("retrieval.vector_weight", "vector_weight and lexical_weight must not both be 0");
  }
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.rrf_k", r.rrf_k, 1, 100000));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.recency_days", r.recency_days, 0.001, 1e6));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.min_vector_similarity", r.min_vector_similarity, -1, 1));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.relative_floor", r.relative_floor, 0, 1));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.title_weight", r.title_weight, 0, 1000));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.per_conversation_day_cap", r.per_conversation_day_cap, 0, 1000));
  CILIA_RETURN_IF_ERROR(CheckRange("retrieval.max_limit", r.max_limit, 1, 1000));
  return CheckRange("retrieval.default_limit", r.default_limit, 1, r.max_limit);
}

Status Loader::ValidateGateway() const {
  const GatewayConfig& g = config_.gateway;
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.recall_rounds", g.recall_rounds, 0, 20));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.recall_results", g.recall_results, 1, 100));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.recall_result_chars", g.recall_result_chars, 200, 1000000));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.menu_lines", g.menu_lines, 0, 50));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.menu_tokens", g.menu_tokens, 0, 10000));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.menu_min_match", g.menu_min_match, 0, 1));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.precious_tokens", g.precious_tokens, 0, 100000));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.snippets", g.snippets, 0, 20));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.snippet_chars", g.snippet_chars, 50, 100000));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.compression_threshold_tokens", g.compression_threshold_tokens, 1000, 10000000));
  CILIA_RETURN_IF_ERROR(
      CheckRange("gateway.compression_keep_tokens", g.compression_keep_tokens, 100, g.compression_threshold_tokens));
  CILIA_RETURN_IF_ERROR(CheckRange("gateway.keepalive_s", g.keepalive_s, 1, 3600));
  if (!g.cache_ttl.empty() && g.cache_ttl != "1h") {
    return Bad("gateway.cache_ttl", fmt::format("must be \"\" or \"1h\", got \"{}\"", g.cache_ttl));
  }
  return Status::Ok();
}

Status Loader::ValidateExtraction() const {
  const ExtractionConfig& x = config_.extraction;
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.interval_minutes", x.interval_minutes, 1, 10080));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.batch_size", x.batch_size, 2, 200));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.min_messages", x.min_messages, 1, x.batch_size));
  // At least one new message per batch, or the cursor could never move.
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.overlap", x.overlap, 0, x.batch_size - 1));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.max_items", x.max_items, 1, 50));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.review_threshold", x.review_threshold, 0, 1));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.idle_minutes", x.idle_minutes, 1, 525600));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.daily_token_budget", x.daily_token_budget, 0, INT_MAX));
  CILIA_RETURN_IF_ERROR(CheckRange("extraction.max_batches_per_run", x.max_batches_per_run, 1, 1000));
  return CheckRange("extraction.similarity_threshold", x.similarity_threshold, 0, 1);
}

Status Loader::ValidateJobs() const {
  const JobsConfig& j = config_.jobs;
  if (auto at = ParseTimeOfDay(j.nightly_at); !at.ok()) return Bad("jobs.nightly_at", at.status().message());
  CILIA_RETURN_IF_ERROR(CheckRange("jobs.nightly_catch_up_days", j.nightly_catch_up_days, 0, 366));
  CILIA_RETURN_IF_ERROR(CheckRange("jobs.retention_interval_hours", j.retention_interval_hours, 1, 8760));
  for (auto [key, days] : {std::pair{"jobs.turns_days", j.turns_days}, {"jobs.job_runs_days", j.job_runs_days},
                           {"jobs.candidates_days", j.candidates_days}, {"jobs.recall_log_days", j.recall_log_days}}) {
    CILIA_RETURN_IF_ERROR(CheckRange(key, days, 0, 36500));
  }
  return Status::Ok();
}

Status Loader::ValidateStore() const {
  const StoreConfig& st = config_.store;
  if (st.kind == StoreKind::kPostgres && st.url.empty()) {
    return Bad("store.kind", "kind \"postgres\" needs store.url (postgresql://user@host/db, or CILIA_STORE_URL)");
  }
  if (st.kind == StoreKind::kSqlite && !st.url.empty()) {
    return Bad("store.url", "is for kind \"postgres\"; set store.kind = \"postgres\" to use it");
  }
  CILIA_RETURN_IF_ERROR(CheckRange("store.pool_size", st.pool_size, 1, 1000));
  CILIA_RETURN_IF_ERROR(CheckRange("store.unload_idle_s", st.unload_idle_s, 0, INT_MAX));
  return CheckRange("store.statement_timeout_ms", st.statement_timeout_ms, 1, INT_MAX);
}

}  // namespace

Result<int> ParseTimeOfDay(std::string_view text) {
  auto digit = [&](size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() != 5 || text[2] != ':' || !digit(0) || !digit(1) || !digit(3) || !digit(4)) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not a time of day HH:MM (e.g. \"04:10\")", text));
  }
  const int hours = (text[0] - '0') * 10 + (text[1] - '0');
  const int minutes = (text[3] - '0') * 10 + (text[4] - '0');
  if (hours > 23 || minutes > 59) {
    return Status::InvalidArgument(fmt::format("\"{}\" is not a time of day: hours 00-23, minutes 00-59", text));
  }
  return hours * 60 + minutes;
}

const ProviderConfig* Config::FindProvider(std::string_view name) const {
  for (const ProviderConfig& provider : providers) {
    if (provider.name == name) return &provider;
  }
  return nullptr;
}

const PriceConfig* Config::FindPrice(std::string_view model) const {
  for (const PriceConfig& price : prices) {
    if (price.model == model) return &price;
  }
  return nullptr;
}

Result<Config> LoadConfig(const ConfigSources& sources) {
  Loader loader;
  std::error_code ec;
  if (sources.file) {
    if (!std::filesystem::is_regular_file(*sources.file, ec)) {
      return Status::InvalidArgument(fmt::format("config {}: no such file", *sources.file));
    }
    CILIA_RETURN_IF_ERROR(loader.ReadFile(*sources.file));
  } else if (!sources.default_file.empty() && std::filesystem::is_regular_file(sources.default_file, ec)) {
    CILIA_RETURN_IF_ERROR(loader.ReadFile(sources.default_file));
  }
  CILIA_RETURN_IF_ERROR(loader.ReadEnv(sources.env));
  if (sources.data_dir) loader.ApplyFlag("data", "server.data_dir", *sources.data_dir, loader.config().server.data_dir);
  if (sources.listen) loader.ApplyFlag("listen", "server.listen", *sources.listen, loader.config().server.listen);
  loader.ResolveDerived(sources.env);
  CILIA_RETURN_IF_ERROR(loader.Validate());
  return std::move(loader.config());
}

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return env;
}

const char* ProviderKindName(ProviderKind kind) {
  return kind == ProviderKind::kAnthropic ? "anthropic" : "openai";
}

const char* EmbedderKindName(EmbedderKind kind) {
  switch (kind) {
    case EmbedderKind::kHash: return "hash";
    case EmbedderKind::kOpenAI: return "openai";
    case EmbedderKind::kLocal: return "local";
  }
  return "hash";
}

const char* StoreKindName(StoreKind kind) { return kind == StoreKind::kPostgres ? "postgres" : "sqlite"; }

std::string RedactedStoreUrl(std::string_view url) {
  std::string out(url);
  // postgresql://user:password@host: the part between the first ':' after
  // the scheme and the last '@' of the authority.
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = std::min(out.find_first_of("/?", start), out.size());
    const size_t at = out.rfind('@', end);
    if (at != std::string::npos && at >= start) {
      const size_t colon = out.find(':', start);
      if (colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=… as a URL query parameter or a connection-string keyword
  // (its value up to '&', or up to whitespace, or quoted).
  for (size_t at = out.find("password"); at != std::string::npos; at = out.find("password", at + 1)) {
    const bool starts_word = at == 0 || out[at - 1] == '?' || out[at - 1] == '&' || std::isspace(static_cast<unsigned char>(out[at - 1]));
    size_t eq = at + 8;
    while (eq < out.size() && out[eq] == ' ') ++eq;
    if (!starts_word || eq >= out.size() || out[eq] != '=') continue;
    size_t begin = eq + 1;
    while (begin < out.size() && out[begin] == ' ') ++begin;
    size_t end = begin;
    if (end < out.size() && out[end] == '\'') {
      for (++end; end < out.size() && out[end] != '\''; ++end) {
        if (out[end] == '\\') ++end;
      }
      end = std::min(end + 1, out.size());
    } else {
      while (end < out.size() && out[end] != '&' && !std::isspace(static_cast<unsigned char>(out[end]))) ++end;
    }
    out.replace(begin, end - begin, "***");
  }
  return out;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = std::min(text.find(',', start), text.size());
    items.emplace_back(Trim(text.substr(start, comma - start)));
    if (comma == text.size()) return items;
    start = comma + 1;
  }
}

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  auto bad = [&] { return Status::InvalidArgument(fmt::format("\"{}\" is not HOST:PORT (e.g. 127.0.0.1:8420)", text)); };
  ListenAddress address;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') return bad();
    address.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad();
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    bool host_ok = std::all_of(address.host.begin(), address.host.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    });
    if (!host_ok) return bad();
  }
  if (address.host.empty() || port.empty() || port.size() > 5) return bad();
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (ec != std::errc() || end != port.data() + port.size() || address.port < 0 || address.port > 65535) return bad();
  return address;
}

bool IsLoopbackHost(std::string_view host) {
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

}  // namespace cilia
