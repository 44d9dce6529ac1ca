#include "store/insert_sql.h"

#include <fmt/core.h>

#include <algorithm>

namespace cilia::store {

std::string InsertSql(std::string_view table, std::string_view columns, bool with_id) {
  constexpr std::string_view kId = "id, ";
  const std::string_view rest = columns.substr(kId.size());
  const int n = 1 + static_cast<int>(std::count(rest.begin(), rest.end(), ','));
  std::string values = with_id ? fmt::format("?{}", n + 1) : "";
  for (int i = 1; i <= n; ++i) values += fmt::format("{}?{}", values.empty() ? "" : ", ", i);
  return fmt::format("INSERT INTO {}({}) VALUES ({})", table, with_id ? columns : rest, values);
}

}  // namespace cilia::store
