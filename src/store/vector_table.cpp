#include "store/vector_table.h"

#include <fmt/format.h>

#include <cstring>

#include "core/half.h"

namespace cilia::store {

std::string EncodeVector(std::span<const float> vec) {
  std::string blob;
  blob.reserve(2 * vec.size());
  AppendHalves(vec, blob);
  return blob;
}

std::optional<std::vector<float>> DecodeVector(std::string_view blob, size_t dim) {
  std::vector<float> vec(dim);
  if (blob.size() == dim * sizeof(float)) {
    if (dim > 0) std::memcpy(vec.data(), blob.data(), blob.size());  // float32, as written before float16
    return vec;
  }
  if (!DecodeHalves(blob, vec)) return std::nullopt;
  return vec;
}

Status VectorTable::Put(int64_t key, std::string_view embedder, std::span<const float> vec) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("INSERT INTO {0}({1}, embedder, dim, vec) "
                                                                "VALUES (?, ?, ?, ?) ON CONFLICT ({1}) DO UPDATE SET "
                                                                "embedder = excluded.embedder, dim = excluded.dim, "
                                                                "vec = excluded.vec",
                                                                table_, key_)));
  const std::string blob = EncodeVector(vec);
  s->Bind(1, key).Bind(2, embedder).Bind(3, static_cast<int64_t>(vec.size()));
  s->BindBlob(4, blob.data(), blob.size());
  return s->Run();
}

namespace {
std::string_view BlobOf(const Statement& row, int col) {
  return {static_cast<const char*>(row.Blob(col)), static_cast<size_t>(row.BlobSize(col))};
}
}  // namespace

Result<std::vector<KeyedVector>> VectorTable::Of(std::string_view embedder) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT {1}, dim, vec FROM {0} WHERE embedder = ? "
                                                                "ORDER BY {1}",
                                                                table_, key_)));
  s->Bind(1, embedder);
  std::vector<KeyedVector> out;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& row) {
    if (row.Int(1) < 0) return;
    std::optional<std::vector<float>> vec = DecodeVector(BlobOf(row, 2), static_cast<size_t>(row.Int(1)));
    if (vec) out.push_back({row.Int(0), std::move(*vec)});
  }));
  return out;
}

Result<std::optional<std::vector<float>>> VectorTable::Get(int64_t key, std::string_view embedder) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT dim, vec FROM {0} WHERE {1} = ? AND embedder = ?",
                                                                table_, key_)));
  s->Bind(1, key).Bind(2, embedder);
  std::optional<std::vector<float>> out;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& row) {
    if (row.Int(0) >= 0) out = DecodeVector(BlobOf(row, 1), static_cast<size_t>(row.Int(0)));
  }));
  return out;
}

Result<std::optional<int64_t>> VectorTable::Narrow(int64_t after, int limit) {
  struct Row {
    int64_t key;
    std::string embedder;
    std::vector<float> vec;
  };
  CILIA_ASSIGN_OR_RETURN(Statement * find, db_.Prepare(fmt::format("SELECT {1}, embedder, dim, vec FROM {0} "
                                                                   "WHERE {1} > ? AND length(vec) = 4 * dim "
                                                                   "ORDER BY {1} LIMIT ?",
                                                                   table_, key_)));
  find->Bind(1, after).Bind(2, limit);
  std::vector<Row> rows;
  CILIA_RETURN_IF_ERROR(find->Each([&](const Statement& row) {
    const auto dim = static_cast<size_t>(row.Int(2));
    std::vector<float> vec(dim);
    if (dim > 0) std::memcpy(vec.data(), row.Blob(3), dim * sizeof(float));
    rows.push_back({row.Int(0), row.Text(1), std::move(vec)});
  }));
  if (rows.empty()) return std::optional<int64_t>();
  CILIA_ASSIGN_OR_RETURN(Statement * drop, db_.Prepare(fmt::format("DELETE FROM {0} WHERE {1} >= ? AND {1} <= ? "
                                                                   "AND length(vec) = 4 * dim",
                                                                   table_, key_)));
  drop->Bind(1, rows.front().key).Bind(2, rows.back().key);
  CILIA_RETURN_IF_ERROR(drop->Run());
  for (const Row& row : rows) CILIA_RETURN_IF_ERROR(Put(row.key, row.embedder, row.vec));
  return std::optional<int64_t>(rows.back().key);
}

}  // namespace cilia::store
