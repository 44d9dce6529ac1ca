// Reading fields of outside JSON without exceptions: a field of the wrong
// type reads as absent. Internal to src/llm.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace cilia::llm {

// The member `key` of `object`, or nullptr when `object` is not an object or
// the member is absent or null.
inline const nlohmann::json* Member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

inline std::string StringOr(const nlohmann::json& object, const char* key, std::string fallback = "") {
  const nlohmann::json* value = Member(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : fallback;
}

inline int64_t IntOr(const nlohmann::json& object, const char* key, int64_t fallback = 0) {
  const nlohmann::json* value = Member(object, key);
  return value != nullptr && value->is_number() ? value->get<int64_t>() : fallback;
}

// Serialised compactly; invalid UTF-8 in strings becomes U+FFFD instead of an exception.
inline std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A copy of the member, or `fallback` where Member gives nullptr.
inline nlohmann::json MemberOr(const nlohmann::json& object, const char* key, nlohmann::json fallback) {
  const nlohmann::json* value = Member(object, key);
  return value != nullptr ? *value : std::move(fallback);
}

// The member when it is an array, else an empty array.
inline const nlohmann::json& ArrayOrEmpty(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json* value = Member(object, key);
  return value != nullptr && value->is_array() ? *value : kEmpty;
}

// to[to_key] = from[from_key] when that member is there and not null.
inline void CopyIfPresent(const nlohmann::json& from, const char* from_key, nlohmann::json& to, const char* to_key) {
  if (const nlohmann::json* value = Member(from, from_key)) to[to_key] = *value;
}

}  // namespace cilia::llm
