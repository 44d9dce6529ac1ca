// What the namespace-scoped REST routes share: the one reader of integer
// (and switch) query parameters, and answering a handler's JSON for the caller's namespace.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/reply.h"
#include "core/status.h"
#include "memory/registry.h"

namespace cilia::api {

// Query parameter `name` as an integer in [lo, hi], written as plain digits
// (a leading "-" allowed): no spaces, no "+", nothing after. Absent gives
// `fallback`; anything else is an InvalidArgument naming the parameter and
// the range.
Result<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback, int64_t lo, int64_t hi);

// Query parameter `name` as a switch: "true" or "false" exactly. Absent
// gives `fallback`; anything else is an InvalidArgument naming it.
Result<bool> BoolParam(const httplib::Request& req, const char* name, bool fallback);

// Runs `body(ns)` for the caller's namespace; its Result<json> is the 200
// reply, or the error.
template <typename F>
Result<Reply> ForNamespace(memory::Registry& registry, const Principal& who, F&& body) {
  CILIA_ASSIGN_OR_RETURN(std::shared_ptr<memory::Namespace> ns, registry.Get(who.name_space));
  CILIA_ASSIGN_OR_RETURN(nlohmann::json out, body(*ns));
  return Reply::Json(out);
}

}  // namespace cilia::api
