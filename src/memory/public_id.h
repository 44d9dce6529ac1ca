// The ids the API shows for rows of a namespace: w_<window>, m_<message>
// (a message stored without a caller id), x_<excerpt>, c_<candidate>,
// p_<precious passage>. A row id is a positive integer, and only the form
// FormatPublicId writes is read back: "x_0", "x_-1", "x_01", "x_ 1" and
// "x_1a" are no ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cilia::memory {

enum class IdKind { kWindow, kMessage, kExcerpt, kCandidate, kPrecious };

std::string FormatPublicId(IdKind kind, int64_t row);
// The row id, or nullopt when `id` is not an id of `kind`.
std::optional<int64_t> ParsePublicId(IdKind kind, std::string_view id);

inline std::string WindowPublicId(int64_t id) { return FormatPublicId(IdKind::kWindow, id); }
inline std::string ExcerptPublicId(int64_t id) { return FormatPublicId(IdKind::kExcerpt, id); }
inline std::string CandidatePublicId(int64_t id) { return FormatPublicId(IdKind::kCandidate, id); }
inline std::string PreciousPublicId(int64_t id) { return FormatPublicId(IdKind::kPrecious, id); }
inline std::optional<int64_t> ParseWindowId(std::string_view id) { return ParsePublicId(IdKind::kWindow, id); }
inline std::optional<int64_t> ParseExcerptId(std::string_view id) { return ParsePublicId(IdKind::kExcerpt, id); }
inline std::optional<int64_t> ParseCandidateId(std::string_view id) { return ParsePublicId(IdKind::kCandidate, id); }
inline std::optional<int64_t> ParsePreciousId(std::string_view id) { return ParsePublicId(IdKind::kPrecious, id); }

}  // namespace cilia::memory
