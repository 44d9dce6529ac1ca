#include "memory/public_id.h"

#include <charconv>

namespace cilia::memory {

namespace {

std::string_view Prefix(IdKind kind) {
  switch (kind) {
    case IdKind::kWindow: return "w_";
    case IdKind::kMessage: return "m_";
    case IdKind::kExcerpt: return "x_";
    case IdKind::kCandidate: return "c_";
    case IdKind::kPrecious: return "p_";
  }
  return "";
}

}  // namespace

std::string FormatPublicId(IdKind kind, int64_t row) { return std::string(Prefix(kind)) + std::to_string(row); }

std::optional<int64_t> ParsePublicId(IdKind kind, std::string_view id) {
  const std::string_view prefix = Prefix(kind);
  if (id.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = id.substr(prefix.size());
  // from_chars would take a sign; a leading zero is not how ids are written.
  if (digits.empty() || digits[0] < '1' || digits[0] > '9') return std::nullopt;
  int64_t row = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), row);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return row;
}

}  // namespace cilia::memory
