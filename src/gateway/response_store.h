// The responses a Responses client may chain from (previous_response_id) or
// read again (GET /v1/responses/{id}). The newest ones are kept in memory
// with the chat messages they continue; every response id also names its
// conversation, so a chain outlives them (and a restart) through the
// archive, which holds every turn anyway.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/thread_annotations.h"
#include "core/time.h"

namespace cilia::gateway {

struct StoredResponse {
  nlohmann::json response;      // the Response object as the client got it
  nlohmann::json messages;      // chat messages up to and with its output: what a follow-up continues
  std::string conversation_id;  // "" when the turn kept no memory
  // Passed through to an upstream that speaks Responses: the input items up
  // to and with its output, as sent (encrypted reasoning included), for a
  // follow-up passed through too; null for a converted turn.
  nlohmann::json items;
};

class ResponseStore {
 public:
  static constexpr size_t kDefaultCapacity = 2000;
  explicit ResponseStore(size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  void Put(const std::string& name_space, const std::string& id, StoredResponse response);
  std::optional<StoredResponse> Get(const std::string& name_space, const std::string& id);
  // True when there was one.
  bool Erase(const std::string& name_space, const std::string& id);

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, id
  const size_t capacity_;
  std::mutex mu_;
  std::list<Key> order_ CILIA_GUARDED_BY(mu_);  // most recently used first
  std::map<Key, std::pair<StoredResponse, std::list<Key>::iterator>> entries_ CILIA_GUARDED_BY(mu_);
};

// "resp_<conversation id in hex>_<16 hex digits>"; `seed` makes ids of the
// same conversation and millisecond differ.
std::string NewResponseId(std::string_view conversation_id, UnixMs now, std::string_view seed);
// The conversation a response id names; "" when it names none or is not one of cilia's.
std::string ConversationOfResponseId(std::string_view id);

}  // namespace cilia::gateway
