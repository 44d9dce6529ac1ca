// Vector rows as cilia wrote them before float16 (store/vector_table.h):
// float32 in native byte order, for the tests that read and convert them.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/db.h"

namespace cilia::testing {

inline Status PutFloat32Vector(store::Database& db, std::string_view table, std::string_view key_column, int64_t key,
                               std::string_view embedder, const std::vector<float>& vec) {
  CILIA_ASSIGN_OR_RETURN(store::Statement * s,
                         db.Prepare(fmt::format("INSERT INTO {}({}, embedder, dim, vec) VALUES (?, ?, ?, ?)", table,
                                                key_column)));
  s->Bind(1, key).Bind(2, embedder).Bind(3, static_cast<int64_t>(vec.size()));
  s->BindBlob(4, vec.data(), vec.size() * sizeof(float));
  return s->Run();
}

// The length in bytes of the vector blob of `key`.
inline int64_t VectorBytes(store::Database& db, std::string_view table, std::string_view key_column, int64_t key) {
  auto s = db.Prepare(fmt::format("SELECT length(vec) FROM {} WHERE {} = ?", table, key_column));
  if (!s.ok()) return -1;
  (*s)->Bind(1, key);
  Result<int64_t> bytes = (*s)->OneInt(-1);
  return bytes.ok() ? *bytes : -1;
}

}  // namespace cilia::testing
