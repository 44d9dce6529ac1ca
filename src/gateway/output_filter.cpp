#include "gateway/output_filter.h"

#include <algorithm>
#include <map>
#include <utility>

#include "llm/json_access.h"
#include "llm/stream.h"
#include "net/sse.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;
using llm::Dump;

constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";
// The chat fields DeepSeek, OpenRouter and vLLM put reasoning in.
constexpr const char* kReasoningFields[] = {"reasoning_content", "reasoning", "reasoning_details"};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// How many bytes at the end of `text` (from `from` on) are a proper prefix of `tag`.
size_t PartialTagAtEnd(std::string_view text, size_t from, std::string_view tag) {
  const size_t longest = std::min(text.size() - from, tag.size() - 1);
  for (size_t n = longest; n > 0; --n) {
    if (text.substr(text.size() - n) == tag.substr(0, n)) return n;
  }
  return 0;
}

void DropReasoningFields(json& object) {
  for (const char* field : kReasoningFields) object.erase(field);
}

}  // namespace

OutputFilterOptions OutputFilterOptions::For(const FeaturesConfig& features, const GatewayConfig& gateway) {
  OutputFilterOptions options;
  options.strip_reasoning = features.strip_reasoning;
  if (features.rewrite) options.rewrite = gateway.rewrite;
  return options;
}

// ---- TextFilter -----------------------------------------------------------------

TextFilter::TextFilter(std::shared_ptr<const OutputFilterOptions> options) : options_(std::move(options)) {
  if (options_->strip_reasoning) opens_.push_back(kThinkOpen);
  for (const RewriteRule& rule : options_->rewrite) opens_.push_back(rule.from);
  for (std::string_view open : opens_) starts_[static_cast<unsigned char>(open.front())] = true;
}

std::string TextFilter::Feed(std::string_view text) {
  pending_.append(text);
  return Run(/*final=*/false);
}

std::string TextFilter::Finish() { return Run(/*final=*/true); }

std::string TextFilter::Run(bool final) {
  std::string out;
  const std::string_view text = pending_;
  size_t at = 0;
  while (at < text.size()) {
    if (state_ == State::kThinking) {
      const size_t close = text.find(kThinkClose, at);
      if (close == std::string_view::npos) {
        // Hidden; only what may be the start of "</think>" is kept.
        at = final ? text.size() : text.size() - PartialTagAtEnd(text, at, kThinkClose);
        break;
      }
      at = close + kThinkClose.size();
      state_ = State::kAfterThinking;
      continue;
    }
    if (state_ == State::kAfterThinking) {
      while (at < text.size() && IsSpace(text[at])) ++at;
      if (at < text.size()) state_ = State::kText;
      continue;
    }
    if (!starts_[static_cast<unsigned char>(text[at])]) {
      const size_t from = at;
      while (at < text.size() && !starts_[static_cast<unsigned char>(text[at])]) ++at;
      out.append(text.substr(from, at - from));
      continue;
    }
    // The longest open matching here; none while a longer one may still.
    size_t best = 0, best_length = 0;
    bool undecided = false;
    const std::string_view rest = text.substr(at);
    for (size_t i = 0; i < opens_.size(); ++i) {
      const std::string_view open = opens_[i];
      if (open.size() <= rest.size()) {
        if (rest.starts_with(open) && open.size() > best_length) {
          best = i;
          best_length = open.size();
        }
      } else if (!final && open.starts_with(rest)) {
        undecided = true;
      }
    }
    if (undecided) break;
    if (best_length == 0) {
      out += text[at++];
      continue;
    }
    at += best_length;
    if (options_->strip_reasoning && best == 0) {
      state_ = State::kThinking;
    } else {
      out += options_->rewrite[best - (options_->strip_reasoning ? 1 : 0)].to;
    }
  }
  pending_.erase(0, at);
  if (final) pending_.clear();  // an unclosed <think> hides the rest
  return out;
}

std::string FilterText(const std::shared_ptr<const OutputFilterOptions>& options, std::string_view text) {
  TextFilter filter(options);
  std::string out = filter.Feed(text);
  out += filter.Finish();
  return out;
}

// ---- Whole replies --------------------------------------------------------------

namespace {

using SharedOptions = std::shared_ptr<const OutputFilterOptions>;

void FilterChatReply(json& reply, const SharedOptions& options) {
  if (!reply.contains("choices") || !reply["choices"].is_array()) return;
  for (json& choice : reply["choices"]) {
    if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) continue;
    json& message = choice["message"];
    if (options->strip_reasoning) DropReasoningFields(message);
    if (message.contains("content") && message["content"].is_string()) {
      message["content"] = FilterText(options, message["content"].get<std::string>());
    }
  }
}

bool IsThinkingBlock(const json& block) {
  const std::string type = llm::StringOr(block, "type");
  return type == "thinking" || type == "redacted_thinking";
}

void FilterAnthropicReply(json& reply, const SharedOptions& options) {
  if (!reply.contains("content") || !reply["content"].is_array()) return;
  json kept = json::array();
  for (json& block : reply["content"]) {
    if (options->strip_reasoning && IsThinkingBlock(block)) continue;
    if (llm::StringOr(block, "type") == "text") {
      block["text"] = FilterText(options, llm::StringOr(block, "text"));
      if (block["text"].get<std::string>().empty()) continue;  // left empty
    }
    kept.push_back(std::move(block));
  }
  reply["content"] = std::move(kept);
}

void FilterResponsesPart(json& part, const SharedOptions& options) {
  if (llm::StringOr(part, "type") == "output_text" && part.contains("text") && part["text"].is_string()) {
    part["text"] = FilterText(options, part["text"].get<std::string>());
  }
}

// A Responses output item: a message's output_text parts filtered.
void FilterResponsesItem(json& item, const SharedOptions& options) {
  if (llm::StringOr(item, "type") != "message" || !item.contains("content") || !item["content"].is_array()) return;
  for (json& part : item["content"]) FilterResponsesPart(part, options);
}

bool IsReasoningItem(const json& item) { return llm::StringOr(item, "type") == "reasoning"; }

// A Response object: reasoning items dropped (when stripping), messages filtered.
void FilterResponsesResponse(json& response, const SharedOptions& options) {
  if (!response.contains("output") || !response["output"].is_array()) return;
  json kept = json::array();
  for (json& item : response["output"]) {
    if (options->strip_reasoning && IsReasoningItem(item)) continue;
    FilterResponsesItem(item, options);
    kept.push_back(std::move(item));
  }
  response["output"] = std::move(kept);
}

}  // namespace

json FilterReply(json reply, Wire wire, const OutputFilterOptions& options) {
  if (!options.active() || !reply.is_object()) return reply;
  const auto shared = std::make_shared<const OutputFilterOptions>(options);
  switch (wire) {
    case Wire::kOpenAI:
      FilterChatReply(reply, shared);
      break;
    case Wire::kAnthropic:
      FilterAnthropicReply(reply, shared);
      break;
    case Wire::kResponses:
      FilterResponsesResponse(reply, shared);
      break;
  }
  return reply;
}

// ---- Streams --------------------------------------------------------------------

namespace {

// What the three formats share: the parsing of the frames, the options and
// the visible text. An inactive filter passes bytes untouched.
class StreamFilterBase : public StreamFilter {
 public:
  explicit StreamFilterBase(OutputFilterOptions options)
      : options_(std::make_shared<const OutputFilterOptions>(std::move(options))) {}

  std::string Feed(std::string_view frames) override {
    if (!active()) return std::string(frames);
    std::string out;
    parser_.Feed(frames, [&](const net::SseEvent& event) { OnEvent(event, out); });
    return out;
  }
  std::string Finish() override {
    std::string out;
    if (active()) FlushAll(out);
    return out;
  }
  bool active() const override { return options_->active(); }
  const std::string& visible_text() const override { return visible_; }

 protected:
  virtual void OnEvent(const net::SseEvent& event, std::string& out) = 0;
  // Lets out the text every open filter holds.
  virtual void FlushAll(std::string& out) = 0;

  const SharedOptions options_;
  std::string visible_;

 private:
  net::SseParser parser_;
};

// OpenAI Chat Completions chunks: one text filter per choice, for the whole
// stream (the splicer already joined the rounds into one).
class ChatStreamFilter : public StreamFilterBase {
 public:
  using StreamFilterBase::StreamFilterBase;

 private:
  void OnEvent(const net::SseEvent& event, std::string& out) override {
    json chunk = json::parse(event.data, nullptr, false);
    if (event.data == "[DONE]" || !chunk.is_object() || chunk.contains("error")) {
      FlushAll(out);
      out += llm::SseFrame(event.data, event.event == "message" ? "" : event.event);
      return;
    }
    if (!chunk.contains("choices") || !chunk["choices"].is_array()) {
      out += llm::SseFrame(Dump(chunk));
      return;
    }
    header_ = chunk;
    header_.erase("choices");
    header_.erase("usage");
    const bool had_choices = !chunk["choices"].empty();
    json kept = json::array();
    for (json& choice : chunk["choices"]) {
      if (FilterChoice(choice, out)) kept.push_back(std::move(choice));
    }
    if (had_choices && kept.empty() && !(chunk.contains("usage") && chunk["usage"].is_object())) return;
    chunk["choices"] = std::move(kept);
    out += llm::SseFrame(Dump(chunk));
  }

  // False when nothing of the choice is left to send. The words a finishing
  // choice lets out go in a chunk of their own before it.
  bool FilterChoice(json& choice, std::string& out) {
    if (!choice.is_object() || !choice.contains("delta") || !choice["delta"].is_object()) return true;
    const int64_t index = llm::IntOr(choice, "index");
    json& delta = choice["delta"];
    if (options_->strip_reasoning) DropReasoningFields(delta);
    const bool finishing = choice.contains("finish_reason") && !choice["finish_reason"].is_null();
    const bool has_content = delta.contains("content") && delta["content"].is_string();
    std::string words;
    if (has_content) words = TextOf(index).Feed(delta["content"].get<std::string>());
    if (finishing) {
      words += TextOf(index).Finish();
      delta.erase("content");
      if (!words.empty()) SendWords(index, words, out);
      return true;
    }
    if (has_content && words.empty() && !delta["content"].get<std::string>().empty()) {
      delta.erase("content");
    } else if (has_content) {
      delta["content"] = words;
      if (index == 0) visible_ += words;
    }
    return !delta.empty() || llm::Member(choice, "logprobs") != nullptr;
  }

  void SendWords(int64_t index, const std::string& words, std::string& out) {
    json chunk = header_;
    chunk["choices"] = json::array({{{"index", index}, {"delta", {{"content", words}}}, {"finish_reason", nullptr}}});
    out += llm::SseFrame(Dump(chunk));
    if (index == 0) visible_ += words;
  }

  void FlushAll(std::string& out) override {
    for (auto& [index, filter] : texts_) {
      if (const std::string words = filter.Finish(); !words.empty()) SendWords(index, words, out);
    }
  }

  TextFilter& TextOf(int64_t index) { return texts_.try_emplace(index, options_).first->second; }

  std::map<int64_t, TextFilter> texts_;  // by choice index
  json header_ = json::object();         // the last chunk's id, object, created, model
};

// Anthropic Messages events: thinking blocks dropped, text blocks filtered
// (one filter each) and shown only once they have text, and the blocks the
// client sees numbered from 0.
class MessagesStreamFilter : public StreamFilterBase {
 public:
  using StreamFilterBase::StreamFilterBase;

 private:
  struct Block {
    int64_t client_index = -1;  // -1: not shown (yet)
    bool hidden = false;
    bool open = true;
    json start;                           // a text block's content_block_start, until it is shown
    std::unique_ptr<TextFilter> text;     // text blocks only
  };

  void OnEvent(const net::SseEvent& event, std::string& out) override {
    json data = json::parse(event.data, nullptr, false);
    const std::string type = llm::StringOr(data, "type", event.event);
    if (!data.is_object()) {
      out += llm::SseFrame(event.data, event.event == "message" ? "" : event.event);
      return;
    }
    if (type == "content_block_start") return OnStart(std::move(data), out);
    if (type == "content_block_delta" || type == "content_block_stop") {
      auto found = blocks_.find(llm::IntOr(data, "index"));
      if (found == blocks_.end()) {
        out += llm::SseFrame(Dump(data), type);  // a block nobody started: as it came
        return;
      }
      Block& block = found->second;
      if (block.hidden) return;
      if (type == "content_block_stop") return OnStop(block, std::move(data), out);
      return OnDelta(block, std::move(data), out);
    }
    if (type == "message_delta" || type == "message_stop" || type == "error") FlushAll(out);
    out += llm::SseFrame(Dump(data), type);
  }

  void OnStart(json data, std::string& out) {
    Block& block = blocks_[llm::IntOr(data, "index")] = Block{};
    const json content = llm::MemberOr(data, "content_block", json::object());
    if (options_->strip_reasoning && IsThinkingBlock(content)) {
      block.hidden = true;
      return;
    }
    if (llm::StringOr(content, "type") != "text") return Show(block, std::move(data), out);
    // Its text goes out as deltas, filtered; the block waits for the first.
    const std::string text = llm::StringOr(content, "text");
    data["content_block"]["text"] = "";
    block.start = std::move(data);
    block.text = std::make_unique<TextFilter>(options_);
    SendText(block, block.text->Feed(text), out);
  }

  void OnDelta(Block& block, json data, std::string& out) {
    const json delta = llm::MemberOr(data, "delta", json::object());
    if (block.text && llm::StringOr(delta, "type") == "text_delta") {
      return SendText(block, block.text->Feed(llm::StringOr(delta, "text")), out);
    }
    if (block.client_index < 0) Show(block, block.start, out);
    data["index"] = block.client_index;
    out += llm::SseFrame(Dump(data), "content_block_delta");
  }

  void OnStop(Block& block, json data, std::string& out) {
    block.open = false;
    if (block.text) SendText(block, block.text->Finish(), out);
    if (block.client_index < 0) return;  // a text block left empty
    data["index"] = block.client_index;
    out += llm::SseFrame(Dump(data), "content_block_stop");
  }

  // Numbers the block and sends its start.
  void Show(Block& block, json start, std::string& out) {
    block.client_index = next_index_++;
    start["index"] = block.client_index;
    out += llm::SseFrame(Dump(start), "content_block_start");
  }

  void SendText(Block& block, const std::string& words, std::string& out) {
    if (words.empty()) return;
    if (block.client_index < 0) Show(block, block.start, out);
    const json delta = {{"type", "content_block_delta"},
                        {"index", block.client_index},
                        {"delta", {{"type", "text_delta"}, {"text", words}}}};
    out += llm::SseFrame(Dump(delta), "content_block_delta");
    visible_ += words;
  }

  void FlushAll(std::string& out) override {
    for (auto& [index, block] : blocks_) {
      if (block.open && block.text) SendText(block, block.text->Finish(), out);
    }
  }

  std::map<int64_t, Block> blocks_;  // by the index the events carry
  int64_t next_index_ = 0;
};

// OpenAI Responses events: reasoning items and their events dropped, the
// items the client sees numbered from 0, each output_text part filtered (one
// filter each), sequence_number counting from 0 over what goes out.
class ResponsesStreamFilter : public StreamFilterBase {
 public:
  using StreamFilterBase::StreamFilterBase;

 private:
  using PartKey = std::pair<int64_t, int64_t>;  // the upstream's output_index, content_index
  struct Part {
    std::string item_id;
    int64_t output_index = 0;  // the client's
    int64_t content_index = 0;
    std::unique_ptr<TextFilter> text;
  };

  void OnEvent(const net::SseEvent& event, std::string& out) override {
    json data = json::parse(event.data, nullptr, false);
    if (!data.is_object()) {
      out += llm::SseFrame(event.data, event.event == "message" ? "" : event.event);
      return;
    }
    const std::string type = llm::StringOr(data, "type", event.event);
    data["type"] = type;
    if (data.contains("response") && data["response"].is_object()) {
      FlushAll(out);  // the response's end, or its start
      FilterResponsesResponse(data["response"], options_);
    }
    if (type == "error") FlushAll(out);
    const json* index = llm::Member(data, "output_index");
    if (index == nullptr || !index->is_number_integer()) return Emit(std::move(data), out);
    const int64_t upstream_index = index->get<int64_t>();
    auto found = items_.find(upstream_index);
    if (found == items_.end()) {
      const bool hidden = options_->strip_reasoning && IsReasoningItem(llm::MemberOr(data, "item", json::object()));
      found = items_.emplace(upstream_index, hidden ? -1 : next_index_++).first;
    }
    if (found->second < 0) return;
    data["output_index"] = found->second;
    if (data.contains("item") && data["item"].is_object()) FilterResponsesItem(data["item"], options_);
    if (type == "response.output_text.delta") return OnTextDelta(upstream_index, std::move(data), out);
    if (type == "response.output_text.done") {
      Part& part = PartOf(upstream_index, data);
      SendText(part, part.text->Finish(), out);
      parts_.erase(PartKey{upstream_index, part.content_index});
      if (data.contains("text") && data["text"].is_string()) {
        data["text"] = FilterText(options_, data["text"].get<std::string>());
      }
    }
    if (data.contains("part") && data["part"].is_object()) FilterResponsesPart(data["part"], options_);
    Emit(std::move(data), out);
  }

  void OnTextDelta(int64_t upstream_index, json data, std::string& out) {
    Part& part = PartOf(upstream_index, data);
    const std::string words = part.text->Feed(llm::StringOr(data, "delta"));
    if (words.empty()) return;
    data["delta"] = words;
    visible_ += words;
    Emit(std::move(data), out);
  }

  Part& PartOf(int64_t upstream_index, const json& data) {
    const int64_t content_index = llm::IntOr(data, "content_index");
    auto [found, added] = parts_.try_emplace(PartKey{upstream_index, content_index});
    if (added) {
      found->second = {llm::StringOr(data, "item_id"), llm::IntOr(data, "output_index"), content_index,
                       std::make_unique<TextFilter>(options_)};
    }
    return found->second;
  }

  void SendText(const Part& part, const std::string& words, std::string& out) {
    if (words.empty()) return;
    Emit({{"type", "response.output_text.delta"},
          {"item_id", part.item_id},
          {"output_index", part.output_index},
          {"content_index", part.content_index},
          {"delta", words}},
         out);
    visible_ += words;
  }

  void Emit(json data, std::string& out) {
    data["sequence_number"] = sequence_++;
    const std::string type = llm::StringOr(data, "type");
    out += llm::SseFrame(Dump(data), type);
  }

  void FlushAll(std::string& out) override {
    for (auto& [key, part] : parts_) SendText(part, part.text->Finish(), out);
    parts_.clear();
  }

  std::map<int64_t, int64_t> items_;                    // output_index -> the client's, -1 hidden
  std::map<PartKey, Part> parts_;  // the open text parts
  int64_t next_index_ = 0;
  int64_t sequence_ = 0;
};

}  // namespace

std::unique_ptr<StreamFilter> StreamFilter::Create(Wire wire, OutputFilterOptions options) {
  switch (wire) {
    case Wire::kOpenAI:
      return std::make_unique<ChatStreamFilter>(std::move(options));
    case Wire::kAnthropic:
      return std::make_unique<MessagesStreamFilter>(std::move(options));
    case Wire::kResponses:
      return std::make_unique<ResponsesStreamFilter>(std::move(options));
  }
  return std::make_unique<ChatStreamFilter>(std::move(options));
}

}  // namespace cilia::gateway
