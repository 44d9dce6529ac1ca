// The two tables of vectors, `window_vectors` and `excerpt_vectors`: one row
// per window or excerpt (key, embedder, dim, vec), the same shape and code
// for both.
//
// `vec` holds the vector as IEEE float16, two little-endian bytes a value
// (core/half.h): half of float32's size, at recall@10 0.999 against it
// (bench/RESULTS.md, issue 16). Rows written before that hold float32 in
// native byte order, four bytes a value; the length of the blob tells the
// two apart (2 * dim or 4 * dim), so archives of either kind read the same
// without a migration, and Narrow rewrites the old rows a batch at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

// The stored form of a vector (float16).
std::string EncodeVector(std::span<const float> vec);
// A blob of either form as a vector of `dim`; none when its length is
// neither 2 * dim nor 4 * dim (a torn row: re-embedded later).
std::optional<std::vector<float>> DecodeVector(std::string_view blob, size_t dim);

struct KeyedVector {
  int64_t key;  // window id or excerpt id
  std::vector<float> vec;
};

class VectorTable {
 public:
  static VectorTable Windows(Database& db) { return VectorTable(db, "window_vectors", "window_id"); }
  static VectorTable Excerpts(Database& db) { return VectorTable(db, "excerpt_vectors", "excerpt_id"); }

  // Adds or replaces the vector of `key`.
  Status Put(int64_t key, std::string_view embedder, std::span<const float> vec);
  // Every readable vector made by `embedder`, by key.
  Result<std::vector<KeyedVector>> Of(std::string_view embedder);
  // The vector of `key` made by `embedder`; none when it has none (or a
  // torn one).
  Result<std::optional<std::vector<float>>> Get(int64_t key, std::string_view embedder);
  // Rewrites up to `limit` float32 rows with keys above `after` as float16,
  // in key order, and returns the highest key it looked at; none when no
  // float32 row is left above `after`. Each row is deleted and inserted
  // again rather than updated: an update that halves a row leaves its page
  // half empty (SQLite rebalances a page only below a third full), while the
  // deleted pages go to the free list, which a checkpoint's
  // `incremental_vacuum` gives back. Run it in the caller's transaction.
  Result<std::optional<int64_t>> Narrow(int64_t after, int limit);

 private:
  VectorTable(Database& db, const char* table, const char* key) : db_(db), table_(table), key_(key) {}
  Database& db_;
  const char* table_;
  const char* key_;
};

}  // namespace cilia::store
