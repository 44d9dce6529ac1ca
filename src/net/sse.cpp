#include "net/sse.h"

namespace cilia::net {

void SseParser::Feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event) {
  size_t pos = 0;
  if (skip_line_feed_ && !bytes.empty()) {
    if (bytes.front() == '\n') pos = 1;
    skip_line_feed_ = false;
  }
  while (pos < bytes.size()) {
    const size_t end = bytes.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(pos));
      return;
    }
    if (line_.empty()) {
      ProcessLine(bytes.substr(pos, end - pos), on_event);
    } else {
      line_.append(bytes.substr(pos, end - pos));
      ProcessLine(line_, on_event);
      line_.clear();
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos == bytes.size()) {
        skip_line_feed_ = true;  // its "\n" may open the next piece
      } else if (bytes[pos] == '\n') {
        ++pos;
      }
    }
  }
}

void SseParser::ProcessLine(std::string_view line, const std::function<void(const SseEvent&)>& on_event) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
    if (line.starts_with(kByteOrderMark)) line.remove_prefix(kByteOrderMark.size());
  }
  if (line.empty()) {
    if (!pending_.data.empty()) {
      pending_.data.pop_back();  // the "\n" after the last data line
      if (pending_.event.empty()) pending_.event = "message";
      on_event(pending_);
    }
    pending_.data.clear();
    pending_.event.clear();
    return;
  }
  if (line.front() == ':') return;  // a comment, e.g. a keep-alive ping

  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);

  if (field == "data") {
    pending_.data.append(value);
    pending_.data.push_back('\n');
  } else if (field == "event") {
    pending_.event.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) pending_.id.assign(value);
  }
}

}  // namespace cilia::net
