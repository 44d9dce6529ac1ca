#include "gateway/response_store.h"

#include <fmt/format.h>

#include "core/codec.h"

namespace cilia::gateway {
namespace {

constexpr std::string_view kPrefix = "resp_";
constexpr char kDigits[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

void ResponseStore::Put(const std::string& name_space, const std::string& id, StoredResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  Key key{name_space, id};
  if (auto it = entries_.find(key); it != entries_.end()) {
    order_.erase(it->second.second);
    entries_.erase(it);
  }
  order_.push_front(key);
  entries_.emplace(std::move(key), std::make_pair(std::move(response), order_.begin()));
  while (entries_.size() > capacity_) {
    entries_.erase(order_.back());
    order_.pop_back();
  }
}

std::optional<StoredResponse> ResponseStore::Get(const std::string& name_space, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(Key{name_space, id});
  if (it == entries_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second.second);
  return it->second.first;
}

bool ResponseStore::Erase(const std::string& name_space, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(Key{name_space, id});
  if (it == entries_.end()) return false;
  order_.erase(it->second.second);
  entries_.erase(it);
  return true;
}

std::string NewResponseId(std::string_view conversation_id, UnixMs now, std::string_view seed) {
  std::string id(kPrefix);
  for (unsigned char c : conversation_id) {
    id += kDigits[c >> 4];
    id += kDigits[c & 0xf];
  }
  return id + "_" + Hex64(Fnv1a64(fmt::format("{}:{}:{}", conversation_id, now, seed)));
}

std::string ConversationOfResponseId(std::string_view id) {
  if (id.substr(0, kPrefix.size()) != kPrefix) return "";
  id.remove_prefix(kPrefix.size());
  const size_t end = id.rfind('_');
  if (end == std::string_view::npos || end % 2 != 0) return "";
  std::string conversation;
  for (size_t i = 0; i < end; i += 2) {
    const int high = HexValue(id[i]), low = HexValue(id[i + 1]);
    if (high < 0 || low < 0) return "";
    conversation += static_cast<char>(high * 16 + low);
  }
  return conversation;
}

}  // namespace cilia::gateway
