// cilia's configuration: defaults, then the TOML file, then CILIA_* environment
// variables, then command-line flags, each overriding the one before. Every
// key is documented, with its default, in docs/configuration.md.
//
// Mistakes are loud: an unknown key or section, a value of the wrong type or
// out of range, a model that names a provider nobody defined — each is one
// InvalidArgument that names the key and where the value came from, e.g.
//   config ./cilia.toml: unknown key "server.lisen"
//   environment CILIA_SERVER_THREADS: expected an integer, got "many"
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia {

struct ServerConfig {
  std::string listen = "127.0.0.1:8420";  // HOST:PORT; [v6]:PORT for IPv6
  std::string data_dir = "./data";
  std::string time_zone = "Asia/Shanghai";  // the owner's IANA zone
  // HTTP worker threads. cpp-httplib gives every open connection (and every
  // stream) a thread until it closes, so this is the concurrency ceiling.
  int threads = 256;
  int keep_alive_timeout_s = 5;
  int max_body_mb = 32;
  int read_timeout_s = 30;
  int write_timeout_s = 30;
  // A request's head and body must arrive within this of its first byte.
  int request_timeout_s = 30;
  // Open connections at once, in all and from one address (0: no cap);
  // one more is refused with 503 before it takes a worker.
  int max_connections = 1024;
  int max_connections_per_peer = 128;
  // Per key, over any minute; 0: no limit. Tokens are those of the chat
  // requests' bodies, estimated as they arrive.
  int rate_limit_requests_per_minute = 0;
  int rate_limit_tokens_per_minute = 0;
  std::vector<std::string> cors_origins;  // exact origins, or "*"; empty: no CORS
  std::string log_level = "info";          // debug, info, warn, error
};

enum class ProviderKind { kOpenAI, kAnthropic };
// What an OpenAI-compatible provider is spoken to with: Chat Completions
// (POST /chat/completions), or the Responses API (POST /responses).
enum class WireApi { kChat, kResponses };

struct ProviderConfig {
  std::string name;  // what models.* refer to as "<name>/<model id>"
  ProviderKind kind = ProviderKind::kOpenAI;
  std::string base_url;     // e.g. "https://api.example.com/v1"
  std::string api_key_env;  // the environment variable holding the key
  // The key: from the file (discouraged) or, after loading, the value of
  // api_key_env. Empty when neither gave one. Never log it.
  std::string api_key;
  int connect_timeout_ms = 10000;
  int first_byte_timeout_ms = 120000;
  int idle_timeout_ms = 120000;
  WireApi wire_api = WireApi::kChat;  // kind openai only
};

struct ModelsConfig {
  std::string public_name = "companion";  // the model name clients send
  std::string chat;     // "<provider>/<model id>"; empty: no chat gateway
  std::string extract;  // cheap model for excerpts and digests; left empty, it is models.chat
  std::string vision;   // describes images; empty: none
  // Client model name -> "<provider>/<model id>"; a name with `*` is a
  // pattern (llm/routing.h says which of several wins).
  std::map<std::string, std::string> aliases;
  std::string fallback;  // where an unknown model name goes; empty: a 400
};

enum class EmbedderKind { kHash, kOpenAI, kLocal };

struct EmbeddingConfig {
  EmbedderKind kind = EmbedderKind::kHash;
  std::string provider;  // kind openai: the provider serving /v1/embeddings
  std::string model;     // kind openai: model id; kind local: model file path
  // Vector size. For hash it defaults to 256; for openai and local 0 means
  // "what the model returns".
  int dimensions = 0;
  int batch_size = 64;   // texts per request (openai) or per batch (local)
  int timeout_ms = 30000;
  int threads = 0;       // kind local: CPU threads; 0 means one per core
  // kind local: put before every query / stored text, as the model family expects
  // (docs/embedding.md: "query: " and "passage: " for e5).
  std::string query_prefix;
  std::string passage_prefix;
};

struct IndexConfig {
  int hnsw_threshold = 50000;  // vectors per namespace past which HNSW replaces the flat scan
};

struct RetrievalConfig {
  // Tuned on bench data (bench/RESULTS.md): with the built-in hash embedder
  // the lexical lane carries the evidence, and the vector lane is off (0)
  // unless vector_weight is set; with another embedder 0.3.
  double vector_weight = 0.3;
  double lexical_weight = 0.7;
  int rrf_k = 60;
  double recency_days = 60;           // e-folding time of the recency multiplier
  double min_vector_similarity = 0.1;  // vector-only hits below this cosine are dropped
  double relative_floor = 0.15;        // results under this share of the best score are dropped
  double title_weight = 0.5;           // of the conversation title's BM25 in its windows' lexical score
  int per_conversation_day_cap = 2;  // windows per conversation and day in one answer; 0: no cap
  int default_limit = 10;
  int max_limit = 100;
};

struct FeaturesConfig {
  bool memory = true;       // inject memory into chat turns
  bool recall_tool = true;  // offer the model the `recall` tool
  bool compression = true;  // summarise long conversations
  bool strip_reasoning = false;  // hide <think> text and reasoning fields from the client (gateway/output_filter.h)
  bool rewrite = true;           // apply gateway.rewrite to what the client receives
};

// One literal replacement of [gateway] rewrite: `from` (1–256 bytes) becomes
// `to` (at most 4096 bytes) in the text the client receives.
struct RewriteRule {
  std::string from;
  std::string to;

  bool operator==(const RewriteRule&) const = default;
};

// The chat gateway's own knobs (docs/gateway.md says what each does and why).
struct GatewayConfig {
  int recall_rounds = 3;            // recall tool calls cilia runs in one turn before it asks for an answer
  int recall_results = 5;           // results a recall tool call returns by default
  int recall_result_chars = 6000;   // the tool result's length limit, in code points
  int menu_lines = 6;               // lines of the per-turn menu
  int menu_tokens = 150;            // the menu's budget in estimated tokens
  double menu_min_match = 0.4;      // share of the newest message's word weight a menu line must hold
  int precious_tokens = 800;        // precious passages in the cached prefix, in estimated tokens (0: none)
  int snippets = 3;                 // with recall_tool off: top recall results injected instead (0: none)
  int snippet_chars = 600;          // each injected snippet's length limit, in code points
  int compression_threshold_tokens = 60000;  // history past this (estimated) is summarised
  int compression_keep_tokens = 20000;       // the recent part sent raw after a summary
  int keepalive_s = 15;             // SSE comment sent to the client after this much upstream silence
  std::string cache_ttl;            // "" (the 5-minute default) or "1h" for cilia's cache markers
  bool chat_model_sees_images = false;  // false: requests with images go to models.vision when set
  std::vector<RewriteRule> rewrite;     // [["from", "to"], …], file only; at most kMaxRewriteRules
};

inline constexpr size_t kMaxRewriteRules = 64;
inline constexpr size_t kMaxRewriteFromBytes = 256;
inline constexpr size_t kMaxRewriteToBytes = 4096;

// The extraction job (docs/memory.md): L1 excerpts from new messages.
struct ExtractionConfig {
  int interval_minutes = 10;       // how often the scheduler runs it
  int min_messages = 4;            // a conversation is extracted once it has this many new messages
  int batch_size = 30;             // messages sent to the model in one call
  int overlap = 2;                 // already extracted messages repeated at a batch's start, for context
  int max_items = 5;               // excerpts kept from one batch
  double review_threshold = 0.76;  // items less confident than this go to the candidates queue
  int idle_minutes = 120;          // a tail below min_messages is extracted once the chat is this quiet
  double similarity_threshold = 0.85;  // cosine from which an old excerpt is compared with a new item
  // What extraction may spend (docs/configuration.md "[extraction]"): model
  // tokens (input and output) per local day in server.time_zone, counted from
  // the job runs' recorded usage (0: no limit), and batches sent per run.
  int daily_token_budget = 500'000;
  int max_batches_per_run = 20;
  // Imported history (messages of chat exports and files: source "import")
  // is extracted only when the owner says so: this, or `cilia jobs run
  // extract --backfill` for what is stored at that moment.
  bool backfill = false;
};

// The background jobs of `cilia serve` (docs/upkeep.md). The extraction
// job's interval is extraction.interval_minutes.
struct JobsConfig {
  bool enabled = true;             // false: `cilia serve` runs no job by itself (`cilia jobs run` still works)
  bool extract_enabled = true;
  bool nightly_enabled = true;
  std::string nightly_at = "04:10";  // HH:MM in server.time_zone
  int nightly_catch_up_days = 7;     // days before yesterday a first or late run still writes logs for
  bool retention_enabled = true;
  int retention_interval_hours = 24;
  // Ages past which operational data is dropped; 0 keeps it for ever.
  int turns_days = 90;       // per-turn records (usage, what was injected)
  int job_runs_days = 90;
  int candidates_days = 30;  // decided (approved, discarded, merged) candidates; pending ones never
  int recall_log_days = 180;
};

// Where the memory lives (docs/scaling.md). SQLite, the default: one file per
// namespace under server.data_dir. PostgreSQL: one database shared by any
// number of gateways; the data dir keeps each gateway's local caches and
// its key store.
enum class StoreKind { kSqlite, kPostgres };

struct StoreConfig {
  StoreKind kind = StoreKind::kSqlite;
  // A libpq connection string or postgresql:// URL; required for postgres.
  // It may hold a password: print it only through RedactedStoreUrl().
  std::string url;
  int pool_size = 8;                   // connections per gateway, shared by all namespaces
  int statement_timeout_ms = 30'000;  // a longer statement is cancelled (503)
  // A namespace no request has used for this long gives its in-memory
  // indexes back (reloaded at its next use); 0: kept while serve runs.
  int unload_idle_s = 1800;
};

// What an upstream model costs, per million tokens, for the usage figures
// (docs/configuration.md "[[prices]]"). Only what is configured is priced.
struct PriceConfig {
  std::string model;        // "<provider>/<model id>", as in models.*
  double input = 0;         // prompt tokens not read from or written to the cache
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
  std::string currency = "USD";  // a label shown beside the cost
};

struct Config {
  ServerConfig server;
  std::vector<ProviderConfig> providers;
  ModelsConfig models;
  EmbeddingConfig embedding;
  IndexConfig index;
  RetrievalConfig retrieval;
  FeaturesConfig features;
  GatewayConfig gateway;
  ExtractionConfig extraction;
  JobsConfig jobs;
  StoreConfig store;
  std::vector<PriceConfig> prices;

  // CILIA_API_KEY: a client key the server accepts with full scopes for
  // namespace "default". Only ever compared, never stored or logged.
  std::string client_api_key;
  // The config file that was read, or "" when none was.
  std::string file;

  // The provider of that name, or nullptr.
  const ProviderConfig* FindProvider(std::string_view name) const;
  // The price of an upstream model ("<provider>/<model id>"), or nullptr.
  const PriceConfig* FindPrice(std::string_view model) const;
};

struct ConfigSources {
  // An explicit --config path; it must exist.
  std::optional<std::string> file;
  // Read when `file` is not given and this file exists.
  std::string default_file = "./cilia.toml";
  // The environment (ProcessEnvironment() in production, a map in tests).
  std::map<std::string, std::string> env;
  // Command-line flags: --data and --listen.
  std::optional<std::string> data_dir;
  std::optional<std::string> listen;
};

Result<Config> LoadConfig(const ConfigSources& sources);

// "04:10" (HH:MM, 24 hours) as minutes after midnight.
Result<int> ParseTimeOfDay(std::string_view text);

// The process environment as a map.
std::map<std::string, std::string> ProcessEnvironment();

const char* ProviderKindName(ProviderKind kind);
const char* EmbedderKindName(EmbedderKind kind);
const char* StoreKindName(StoreKind kind);

// A store URL fit for messages and logs: the password of a postgresql:// URL
// (user:password@) or of a connection string (password=…), in either form's
// query or keywords, replaced by "***".
std::string RedactedStoreUrl(std::string_view url);

// The items of a comma-separated list, each trimmed of whitespace; empty
// items are kept ("a,,b" has three), so callers decide what they mean.
std::vector<std::string> SplitList(std::string_view text);

struct ListenAddress {
  std::string host;  // without brackets for IPv6
  int port = 0;      // 0: any free port
};

// "127.0.0.1:8420", "localhost:80", "[::1]:8420", "0.0.0.0:0".
Result<ListenAddress> ParseListenAddress(std::string_view text);
// localhost, 127.0.0.0/8 and ::1.
bool IsLoopbackHost(std::string_view host);

}  // namespace cilia
