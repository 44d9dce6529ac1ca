// What the namespace-scoped REST routes share: bounded integer query
// parameters, and answering a handler's result for the caller's namespace.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/http_util.h"
#include "core/status.h"
#include "memory/registry.h"

namespace cilia::api {

// Query parameter `name` as an integer in [lo, hi]; absent gives `fallback`.
// Anything else is an InvalidArgument naming the parameter and the range.
Result<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback, int64_t lo, int64_t hi);

// Runs `body(ns)` for the caller's namespace and answers its Result<json>
// with 200, or its error.
template <typename F>
void ReplyForNamespace(memory::Registry& registry, const Principal& who, httplib::Response& res, F&& body) {
  auto ns = registry.Get(who.name_space);
  if (!ns.ok()) return ReplyError(res, ns.status());
  Result<nlohmann::json> out = body(**ns);
  if (!out.ok()) return ReplyError(res, out.status());
  ReplyJson(res, 200, *out);
}

}  // namespace cilia::api
