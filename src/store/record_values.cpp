#include "store/record_values.h"

#include <fmt/format.h>

#include <vector>

namespace cilia::store {

Status NotOneOf(std::string_view field, std::string_view text, const std::string_view* names, size_t count,
                std::string_view extra) {
  std::vector<std::string_view> all(names, names + count);
  if (!extra.empty()) all.push_back(extra);
  return Status::InvalidArgument(fmt::format("{}: \"{}\" is not one of {}", field, text, fmt::join(all, ", ")));
}

}  // namespace cilia::store
