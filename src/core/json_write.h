// Writing JSON for output: an optional field is its value, or null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace cilia {

template <typename T>
nlohmann::json OrNull(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// `to_json(*value)`, or null.
template <typename T, typename F>
nlohmann::json OrNull(const std::optional<T>& value, F&& to_json) {
  return value ? nlohmann::json(to_json(*value)) : nlohmann::json(nullptr);
}

}  // namespace cilia
