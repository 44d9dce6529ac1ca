#include "core/json_read.h"

#include <algorithm>

namespace cilia::json {
namespace {

bool IsIdentifier(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// nlohmann's message reads "[json.exception.parse_error.101] parse error at
// line 1, column 5: syntax error ...; last read: '...'". Its position counts
// bytes and is off by one after a newline, so we keep only the reason and put
// our own position in front; "last read" may hold raw invalid bytes.
std::string ParseErrorReason(const std::string& what) {
  std::string reason = what;
  size_t column = reason.find("column ");
  size_t colon = column == std::string::npos ? reason.find(": ") : reason.find(": ", column);
  if (colon != std::string::npos) reason = reason.substr(colon + 2);
  size_t last_read = reason.find("; last read:");
  if (last_read != std::string::npos) reason.resize(last_read);
  return reason;
}

// Checks nesting and the number of values without parsing: strings are
// skipped, brackets and commas counted. Syntax errors are the parser's.
Status CheckShape(std::string_view text, size_t first_line, const ParseLimits& limits) {
  size_t depth = 0;
  size_t values = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > limits.max_depth) {
          return Status::InvalidArgument(LineColumn(text, i, first_line) + ": nested deeper than " +
                                         std::to_string(limits.max_depth) + " levels");
        }
        [[fallthrough]];
      case ',':
        if (++values > limits.max_values) {
          return Status::InvalidArgument(LineColumn(text, i, first_line) + ": more than " +
                                         std::to_string(limits.max_values) + " values");
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return Status::Ok();
}

// "[json.exception.out_of_range.406] number overflow parsing '1e999'" ->
// "number overflow parsing '1e999'".
std::string WithoutTag(const std::string& what) {
  size_t tag_end = what.rfind("] ", what.find(' '));
  return tag_end == std::string::npos || what.empty() || what[0] != '[' ? what : what.substr(tag_end + 2);
}

// The member, or null when it is absent or JSON null.
const nlohmann::json* Member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

}  // namespace

std::string PathKey(const std::string& parent, std::string_view key) {
  if (IsIdentifier(key)) return parent.empty() ? std::string(key) : parent + "." + std::string(key);
  std::string quoted = nlohmann::json(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return parent + "[" + quoted + "]";
}

std::string PathIndex(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

Status FieldError(const std::string& path, std::string_view what) {
  return Status::InvalidArgument(path.empty() ? std::string(what) : path + ": " + std::string(what));
}

std::string LineColumn(std::string_view text, size_t byte_offset, size_t first_line) {
  size_t line = first_line;
  size_t column = 1;
  byte_offset = std::min(byte_offset, text.size());
  for (size_t i = 0; i < byte_offset; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {  // count code points, not continuation bytes
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

Result<nlohmann::json> ParseJsonText(std::string_view text, size_t first_line, ParseLimits limits) {
  CILIA_RETURN_IF_ERROR(CheckShape(text, first_line, limits));
  try {
    return nlohmann::json::parse(text.data(), text.data() + text.size());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts the bytes read, so the offending byte is the one before.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    return Status::InvalidArgument(LineColumn(text, offset, first_line) + ": " + ParseErrorReason(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    return Status::InvalidArgument(WithoutTag(e.what()) + " (a number out of range)");
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("not valid JSON: ") + WithoutTag(e.what()));
  }
}

Result<std::string> OptionalString(const nlohmann::json& object, std::string_view key, const std::string& path) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return std::string();
  if (!value->is_string()) return FieldError(PathKey(path, key), "must be a string");
  return value->get<std::string>();
}

Result<std::string> RequiredString(const nlohmann::json& object, std::string_view key, const std::string& path) {
  if (Member(object, key) == nullptr) return FieldError(PathKey(path, key), "is required");
  CILIA_ASSIGN_OR_RETURN(std::string value, OptionalString(object, key, path));
  if (value.empty()) return FieldError(PathKey(path, key), "must not be empty");
  return value;
}

Result<const nlohmann::json*> OptionalArray(const nlohmann::json& object, std::string_view key,
                                            const std::string& path) {
  const nlohmann::json* value = Member(object, key);
  if (value != nullptr && !value->is_array()) {
    return FieldError(PathKey(path, key), "must be an array");
  }
  return value;
}

Result<const nlohmann::json*> RequiredArray(const nlohmann::json& object, std::string_view key,
                                            const std::string& path) {
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* value, OptionalArray(object, key, path));
  if (value == nullptr) return FieldError(PathKey(path, key), "is required");
  return value;
}

Result<const nlohmann::json*> OptionalObject(const nlohmann::json& object, std::string_view key,
                                             const std::string& path) {
  const nlohmann::json* value = Member(object, key);
  if (value != nullptr && !value->is_object()) {
    return FieldError(PathKey(path, key), "must be an object");
  }
  return value;
}

Result<std::optional<double>> OptionalNumber(const nlohmann::json& object, std::string_view key,
                                             const std::string& path) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return std::optional<double>();
  if (!value->is_number()) return FieldError(PathKey(path, key), "must be a number");
  return std::optional<double>(value->get<double>());
}

Result<bool> OptionalBool(const nlohmann::json& object, std::string_view key, const std::string& path,
                          bool default_value) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return default_value;
  if (!value->is_boolean()) return FieldError(PathKey(path, key), "must be true or false");
  return value->get<bool>();
}

Result<std::vector<std::string>> OptionalStringArray(const nlohmann::json& object, std::string_view key,
                                                     const std::string& path) {
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* array, OptionalArray(object, key, path));
  std::vector<std::string> out;
  if (array == nullptr) return out;
  const std::string array_path = PathKey(path, key);
  for (size_t i = 0; i < array->size(); ++i) {
    const nlohmann::json& item = (*array)[i];
    if (!item.is_string()) return FieldError(PathIndex(array_path, i), "must be a string");
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace cilia::json
