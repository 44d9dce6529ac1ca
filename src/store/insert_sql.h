// The INSERT text of a row whose id the database usually chooses.
#pragma once

#include <string>
#include <string_view>

namespace cilia::store {

// "INSERT INTO table(...) VALUES (...)" for `columns`, which name the id
// first ("id, a, b"): the others are ?1..?n, and the id, when `with_id` (a
// row keeping a known id), is ?n+1. Without it the id is left out, not bound
// NULL: PostgreSQL's identity column refuses an explicit NULL where SQLite
// chooses the next id. Callers append RETURNING or ON CONFLICT.
std::string InsertSql(std::string_view table, std::string_view columns, bool with_id);

}  // namespace cilia::store
