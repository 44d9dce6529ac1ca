// Server-sent events (the WHATWG "event stream" format), read incrementally
// from the pieces an HTTP transfer delivers.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace cilia::net {

struct SseEvent {
  std::string event;  // "message" when the stream named no type
  std::string data;   // the data lines joined with "\n"
  std::string id;     // the last id seen in the stream so far
};

// Feed it bytes in pieces of any size; it calls on_event for each complete
// event. Lines end in "\n", "\r\n" or "\r" (also when a "\r\n" is split
// between pieces); comment lines (":...") and "retry" are ignored; an event
// without data lines is not dispatched. An event cut off by the end of the
// stream is dropped, as the format requires. Any bytes are safe to feed.
class SseParser {
 public:
  void Feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event);

 private:
  void ProcessLine(std::string_view line, const std::function<void(const SseEvent&)>& on_event);

  std::string line_;             // the unfinished line of the last piece
  bool skip_line_feed_ = false;  // the last piece ended in "\r"
  bool at_stream_start_ = true;  // a byte order mark may still come
  SseEvent pending_;             // data kept with a "\n" after each line
};

}  // namespace cilia::net
