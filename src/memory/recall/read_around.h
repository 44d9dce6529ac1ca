// Reading on around a recall result: the model reads a result's short id
// (w_<n>, x_<n>) and asks for the passage with what was said just before
// and after it, without conversation or message ids in its context.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"
#include "memory/recall/recall.h"

namespace cilia::memory {

// The window `id` names (w_<n>; for x_<n>, the window holding the message
// the excerpt quotes) with up to `before` windows before it and `after`
// windows after it in its conversation, in conversation order, each
// rendered as recall renders windows. NotFound for an id that names
// nothing; InvalidArgument, naming "id", for one that is no such id.
Result<std::vector<RecallResult>> ReadAround(Namespace& ns, std::string_view id, int before = 1, int after = 1);

}  // namespace cilia::memory
