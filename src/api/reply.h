// What a route handler answers: JSON or text with a status, or a stream.
// A failure is not a Reply but the handler's non-OK Result: the server shapes
// it like the errors of the route's API (ErrorReply), in one place.
#pragma once

#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace cilia::api {

struct Reply {
  // Writes the stream's bytes to the sink until it ends; false cuts the
  // connection. Runs on the connection's thread after the headers are out.
  using Producer = std::function<bool(httplib::DataSink&)>;
  // Told whether the stream reached its end (false: the client went away).
  using StreamEnd = std::function<void(bool success)>;

  int status = 200;
  std::string content_type;
  std::string body;  // unused by a stream
  httplib::Headers headers;
  Producer stream;   // set: a chunked stream instead of `body`
  StreamEnd on_stream_end;

  // Invalid UTF-8 in a string is replaced (U+FFFD), never thrown.
  static Reply Json(const nlohmann::json& body, int status = 200);
  static Reply Text(std::string body, std::string content_type, int status = 200);
  static Reply Stream(std::string content_type, Producer produce, StreamEnd on_end = nullptr);

  Reply&& WithHeader(std::string name, std::string value) &&;
};

}  // namespace cilia::api
