// L0 windows (DESIGN.md §2, §4): each message is cut into segments of at most
// 350 code points at sentence ends; a conversation's segments are packed
// greedily into windows of at most 700 code points of segment text, each
// window starting on the previous window's last segment (one-segment
// overlap). Headers and speaker labels are added on output only. Client
// harness blocks (text/harness.h) are in no segment: a window holds the
// owner's words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "store/archive_records.h"

namespace cilia::memory {

inline constexpr size_t kSegmentMaxChars = 350;
inline constexpr size_t kWindowMaxChars = 700;
static_assert(2 * kSegmentMaxChars <= kWindowMaxChars,
              "every window must hold two segments, or the one-segment overlap never advances");

struct Segment {
  int64_t message_id = 0;
  int64_t seq = 0;
  int index_in_message = 0;
  size_t begin = 0;  // code points into the message text, [begin, end)
  size_t end = 0;
  std::string text;
  int64_t created_at = 0;
  std::string speaker;  // SpeakerLabel of its message
};

// The segments of messages in order, skipping the first `skip` segments of
// the first message (a window may start inside a message).
std::vector<Segment> SegmentMessages(const std::vector<store::MessageRecord>& messages, int skip = 0);

// Windows as [first, last] index ranges into `segments`.
struct WindowRange {
  size_t first;
  size_t last;  // inclusive
};
std::vector<WindowRange> PackWindows(const std::vector<Segment>& segments, size_t max_chars = kWindowMaxChars);

// A window record (without id) for segments[range]; words is the body
// segmented for the BM25 index, and holds the speaker of
// each message that starts in the window too, as "Speaker: text" lines would
// ("what did Caroline say about…" finds Caroline's lines).
store::WindowRecord MakeWindow(int64_t conversation_row, const std::vector<Segment>& segments, WindowRange range);

// The window's segment spans as stored: [[message id, begin, end], ...].
struct StoredSpan {
  int64_t message_id;
  size_t begin;
  size_t end;
};
std::vector<StoredSpan> ParseSpans(const std::string& spans_json);

// "[2023-05-08 · title]" with the date in the owner's zone; the title with
// whitespace collapsed and cut to 50 code points, else the conversation id.
// With a `last_message_at` on a later day, the days it runs: "[2023-05-08–05-12 · title]"
// ("[2023-12-30–2024-01-02 · …]" across a year).
std::string WindowHeader(UnixMs first_message_at, const TimeZone& tz, const std::string& title,
                         const std::string& conversation_id, std::optional<UnixMs> last_message_at = std::nullopt);

// The label shown before a speaker's lines: the name, else the role.
std::string SpeakerLabel(const std::string& name, const std::string& role);

}  // namespace cilia::memory
