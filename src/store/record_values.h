// The closed sets of values the store's records hold in text columns —
// statuses, authors, kinds — as enums, and the one place that turns each
// value into its string and back. The strings are what the database holds,
// what dumps carry and what the API answers (../shared/CONTRACT.md): they
// never change. Values are written into JSON by to_json below and read from
// outside input (query parameters, tool arguments, dumps) by Parse, whose
// error names the field, the bad value and the values there are.
#pragma once

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::store {

// An excerpt's life: active until superseded by another or archived by hand.
enum class ExcerptStatus { kActive, kSuperseded, kArchived };
// A candidate waits (pending) until a review approves, discards or merges it.
enum class CandidateStatus { kPending, kApproved, kDiscarded, kMerged };
// An extraction batch: done, to be tried again, or given up.
enum class BatchStatus { kOk, kPending, kFailed };
// A nightly work item (a day, week or month): written, nothing to write,
// to be tried again, or given up.
enum class NightlyStatus { kOk, kEmpty, kPending, kFailed };
// A rollup of daily logs: an ISO week or a month.
enum class RollupKind { kWeek, kMonth };
// Who wrote or changed a record: the extraction job, an agent (a
// memory:write key, REST or MCP) or the owner (an admin key). Precious
// passages are the owner's or an agent's only.
enum class Author { kExtractor, kAgent, kOwner };
// A background job's run: running until it ends ok, partial (it did its work
// but some items failed: they are tried again), skipped or failed.
enum class JobOutcome { kRunning, kOk, kPartial, kSkipped, kFailed };

// The strings, in the order of the enum's values.
template <typename E>
struct ValueNames;
template <>
struct ValueNames<ExcerptStatus> {
  static constexpr std::array<std::string_view, 3> kNames{"active", "superseded", "archived"};
};
template <>
struct ValueNames<CandidateStatus> {
  static constexpr std::array<std::string_view, 4> kNames{"pending", "approved", "discarded", "merged"};
};
template <>
struct ValueNames<BatchStatus> {
  static constexpr std::array<std::string_view, 3> kNames{"ok", "pending", "failed"};
};
template <>
struct ValueNames<NightlyStatus> {
  static constexpr std::array<std::string_view, 4> kNames{"ok", "empty", "pending", "failed"};
};
template <>
struct ValueNames<RollupKind> {
  static constexpr std::array<std::string_view, 2> kNames{"week", "month"};
};
template <>
struct ValueNames<Author> {
  static constexpr std::array<std::string_view, 3> kNames{"extractor", "agent", "owner"};
};
template <>
struct ValueNames<JobOutcome> {
  static constexpr std::array<std::string_view, 5> kNames{"running", "ok", "partial", "skipped", "failed"};
};

template <typename E>
concept RecordValue = requires { ValueNames<E>::kNames; };

// The value's string.
template <RecordValue E>
constexpr std::string_view Name(E value) {
  return ValueNames<E>::kNames[static_cast<size_t>(value)];
}

// Every value's string, in order; with `all`, then "all" (a listing
// filter's choices, as the MCP tools' schemas list them).
template <RecordValue E>
std::vector<std::string> Names(bool all = false) {
  std::vector<std::string> out(ValueNames<E>::kNames.begin(), ValueNames<E>::kNames.end());
  if (all) out.emplace_back("all");
  return out;
}

// An optional value's string, "" for none (a column that is empty until
// set; a listing filter that allows every value).
template <RecordValue E>
constexpr std::string_view NameOrEmpty(const std::optional<E>& value) {
  return value ? Name(*value) : std::string_view("");  // not a null pointer: SQLite binds that as NULL
}

// InvalidArgument: `<field>: "<text>" is not one of a, b, c` (with `extra`
// appended to the list when given).
Status NotOneOf(std::string_view field, std::string_view text, const std::string_view* names, size_t count,
                std::string_view extra = {});

// The value whose string is `text` exactly; else NotOneOf.
template <RecordValue E>
Result<E> Parse(std::string_view text, std::string_view field) {
  const auto& names = ValueNames<E>::kNames;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return NotOneOf(field, text, names.data(), names.size());
}

// A column's value, as the store reads it back. Only the store writes these
// columns, from the enums (most tables' CHECK constraints hold them to the
// strings too), so no other string can be read; one would read as the first
// value.
template <RecordValue E>
E StoredValue(std::string_view text) {
  const auto& names = ValueNames<E>::kNames;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return static_cast<E>(0);
}

// A listing's filter: one value, or "all" (nullopt) for every value.
template <RecordValue E>
Result<std::optional<E>> ParseFilter(std::string_view text, std::string_view field) {
  if (text == "all") return std::optional<E>();
  const auto& names = ValueNames<E>::kNames;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return std::optional<E>(static_cast<E>(i));
  }
  return NotOneOf(field, text, names.data(), names.size(), "all");
}

// JSON replies and dumps carry the string (found by nlohmann::json through
// argument-dependent lookup, before its own enum-as-integer conversion).
template <RecordValue E>
void to_json(nlohmann::json& j, E value) {
  j = std::string(Name(value));
}

// gtest prints the string too (and fmt, by the formatter below).
template <RecordValue E>
std::ostream& operator<<(std::ostream& out, E value) {
  return out << Name(value);
}

}  // namespace cilia::store

template <cilia::store::RecordValue E>
struct fmt::formatter<E, char> : fmt::formatter<std::string_view, char> {
  template <typename FormatContext>
  auto format(E value, FormatContext& ctx) const {
    return fmt::formatter<std::string_view, char>::format(cilia::store::Name(value), ctx);
  }
};
