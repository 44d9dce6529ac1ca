#include "api/mcp/schema_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/json_read.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

bool HasType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") {
    // 5.0 is an integer to JSON Schema, as it is to a model writing it.
    return value.is_number_integer() || (value.is_number_float() && std::isfinite(value.get<double>()) &&
                                         std::floor(value.get<double>()) == value.get<double>());
  }
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  return true;
}

std::string Article(const std::string& type) {
  if (type == "object" || type == "array" || type == "integer") return "an " + type;
  if (type == "null") return "null";
  if (type == "boolean") return "true or false";
  return "a " + type;
}

std::string TypeList(const std::vector<std::string>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += i + 1 == types.size() ? " or " : ", ";
    out += Article(types[i]);
  }
  return out;
}

std::string Shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

size_t CodePoints(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

Status Error(const std::string& path, const std::string& what) { return cilia::json::FieldError(path, what); }

Status Check(const json& schema, const json& value, const std::string& path);

Status CheckObject(const json& schema, const json& value, const std::string& path) {
  const json empty = json::object();
  const json& properties = schema.contains("properties") ? schema["properties"] : empty;
  if (auto required = schema.find("required"); required != schema.end()) {
    for (const json& name : *required) {
      auto it = value.find(name.get<std::string>());
      if (it == value.end()) {
        std::string what = "is required";
        if (auto p = properties.find(name.get<std::string>()); p != properties.end() && p->contains("description")) {
          what += fmt::format(" ({})", (*p)["description"].get<std::string>());
        }
        return Error(cilia::json::PathKey(path, name.get<std::string>()), what);
      }
    }
  }
  const bool closed = schema.value("additionalProperties", json(true)) == json(false);
  for (const auto& [key, member] : value.items()) {
    auto property = properties.find(key);
    if (property == properties.end()) {
      if (!closed) continue;
      std::vector<std::string> known;
      for (const auto& [name, unused] : properties.items()) known.push_back(name);
      return Error(cilia::json::PathKey(path, key),
                   fmt::format("is not an argument of this tool (it takes: {})", fmt::join(known, ", ")));
    }
    CILIA_RETURN_IF_ERROR(Check(*property, member, cilia::json::PathKey(path, key)));
  }
  return Status::Ok();
}

Status CheckArray(const json& schema, const json& value, const std::string& path) {
  if (auto min = schema.find("minItems"); min != schema.end() && value.size() < min->get<size_t>()) {
    return Error(path, fmt::format("must hold at least {} item(s)", min->get<size_t>()));
  }
  if (auto max = schema.find("maxItems"); max != schema.end() && value.size() > max->get<size_t>()) {
    return Error(path, fmt::format("must hold at most {} items, got {}", max->get<size_t>(), value.size()));
  }
  if (auto items = schema.find("items"); items != schema.end()) {
    for (size_t i = 0; i < value.size(); ++i) {
      CILIA_RETURN_IF_ERROR(Check(*items, value[i], cilia::json::PathIndex(path, i)));
    }
  }
  return Status::Ok();
}

Status Check(const json& schema, const json& value, const std::string& path) {
  if (auto type = schema.find("type"); type != schema.end()) {
    std::vector<std::string> types;
    if (type->is_string()) types.push_back(type->get<std::string>());
    else for (const json& t : *type) types.push_back(t.get<std::string>());
    if (std::none_of(types.begin(), types.end(), [&](const std::string& t) { return HasType(value, t); })) {
      return Error(path, fmt::format("must be {}, got {}", TypeList(types), Shown(value)));
    }
  }
  if (value.is_null()) return Status::Ok();
  if (auto allowed = schema.find("enum"); allowed != schema.end()) {
    if (std::find(allowed->begin(), allowed->end(), value) == allowed->end()) {
      std::vector<std::string> names;
      for (const json& a : *allowed) names.push_back(a.dump());
      return Error(path, fmt::format("must be one of {}, got {}", fmt::join(names, ", "), Shown(value)));
    }
  }
  if (value.is_number()) {
    const double n = value.get<double>();
    if (auto min = schema.find("minimum"); min != schema.end() && n < min->get<double>()) {
      return Error(path, fmt::format("must be at least {}, got {}", min->dump(), value.dump()));
    }
    if (auto max = schema.find("maximum"); max != schema.end() && n > max->get<double>()) {
      return Error(path, fmt::format("must be at most {}, got {}", max->dump(), value.dump()));
    }
  }
  if (value.is_string()) {
    const size_t length = CodePoints(value.get_ref<const std::string&>());
    if (auto min = schema.find("minLength"); min != schema.end() && length < min->get<size_t>()) {
      return Error(path, min->get<size_t>() == 1 ? "must not be empty"
                                                 : fmt::format("must be at least {} characters long", min->get<size_t>()));
    }
    if (auto max = schema.find("maxLength"); max != schema.end() && length > max->get<size_t>()) {
      return Error(path, fmt::format("must be at most {} characters long, got {}", max->get<size_t>(), length));
    }
  }
  if (value.is_object()) return CheckObject(schema, value, path);
  if (value.is_array()) return CheckArray(schema, value, path);
  return Status::Ok();
}

}  // namespace

Status CheckAgainstSchema(const json& schema, const json& value) { return Check(schema, value, ""); }

}  // namespace cilia::api::mcp
