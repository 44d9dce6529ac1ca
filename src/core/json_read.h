// Reading outside JSON with errors that say where: parse errors as line and
// column, field errors as a JSON path such as `[3].mapping["a-b"].message`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::json {

// Paths are built outward-in: "" is the document itself.
std::string PathKey(const std::string& parent, std::string_view key);
std::string PathIndex(const std::string& parent, size_t index);

// InvalidArgument "<path>: <what>" (just "<what>" at the root).
Status FieldError(const std::string& path, std::string_view what);

// Line and column (1-based, the column in code points) of a byte offset,
// "line 3, column 7"; `first_line` is the number of the text's first line.
std::string LineColumn(std::string_view text, size_t byte_offset, size_t first_line = 1);

// How much structure a document may have. Nesting is bounded for every
// document, because serialising (and reading) a value recurses once per
// level: JSON nested 58,000 deep overflows the stack. Request bodies bound
// the number of values as well (kRequestLimits); exports read by the CLI
// may be large.
struct ParseLimits {
  size_t max_depth = 128;
  size_t max_values = SIZE_MAX;  // array items and object members, in all
};
inline constexpr ParseLimits kRequestLimits{128, 1'000'000};

// Parses a whole document. A syntax error, including invalid UTF-8, is an
// InvalidArgument such as "line 3, column 7: syntax error while parsing
// object - unexpected '}'; expected string literal"; so are a document over
// `limits` ("line 1, column 129: nested deeper than 128 levels") and a
// number out of range ("1e999").
Result<nlohmann::json> ParseJsonText(std::string_view text, size_t first_line = 1, ParseLimits limits = {});

// Field readers. `path` is the path of `object`; errors name `path`.`key`.
// Absent and null count as "not given".
Result<std::string> OptionalString(const nlohmann::json& object, std::string_view key, const std::string& path);
// A string that must be given and not empty.
Result<std::string> RequiredString(const nlohmann::json& object, std::string_view key, const std::string& path);
// Null when not given.
Result<const nlohmann::json*> OptionalArray(const nlohmann::json& object, std::string_view key,
                                            const std::string& path);
Result<const nlohmann::json*> RequiredArray(const nlohmann::json& object, std::string_view key,
                                            const std::string& path);
Result<const nlohmann::json*> OptionalObject(const nlohmann::json& object, std::string_view key,
                                             const std::string& path);
Result<std::optional<double>> OptionalNumber(const nlohmann::json& object, std::string_view key,
                                             const std::string& path);
Result<bool> OptionalBool(const nlohmann::json& object, std::string_view key, const std::string& path,
                          bool default_value);
// An array of strings; empty when not given. Errors name the item: "aliases[2]: must be a string".
Result<std::vector<std::string>> OptionalStringArray(const nlohmann::json& object, std::string_view key,
                                                     const std::string& path);

}  // namespace cilia::json
