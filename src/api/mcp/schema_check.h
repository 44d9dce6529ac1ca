// Checking tool arguments against the tool's inputSchema before the tool
// runs, so that a model that got an argument wrong is told which one and
// what it must be (an isError result it can act on). The subset of JSON
// Schema that cilia's own schemas use: type (a name or a list of names),
// properties, required, additionalProperties: false, enum, minimum,
// maximum, minLength, maxLength (in code points), items, minItems, maxItems.
// Other keywords are descriptions to this checker.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace cilia::api::mcp {

// Ok, or InvalidArgument "<path>: <what it must be>" for the first value
// that does not fit, e.g. "limit: must be at most 100, got 500" or
// "messages[2].role: must be one of \"user\", \"assistant\", \"system\"".
Status CheckAgainstSchema(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace cilia::api::mcp
