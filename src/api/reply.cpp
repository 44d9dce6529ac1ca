#include "api/reply.h"

namespace cilia::api {

Reply Reply::Json(const nlohmann::json& body, int status) {
  return Text(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json", status);
}

Reply Reply::Text(std::string body, std::string content_type, int status) {
  Reply reply;
  reply.status = status;
  reply.content_type = std::move(content_type);
  reply.body = std::move(body);
  return reply;
}

Reply Reply::Stream(std::string content_type, Producer produce, StreamEnd on_end) {
  Reply reply;
  reply.content_type = std::move(content_type);
  reply.stream = std::move(produce);
  reply.on_stream_end = std::move(on_end);
  return reply;
}

Reply&& Reply::WithHeader(std::string name, std::string value) && {
  headers.emplace(std::move(name), std::move(value));
  return std::move(*this);
}

}  // namespace cilia::api
