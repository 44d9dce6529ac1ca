// Conversations stored at given local times, for the tests of the nightly
// job, the boot pack and the jobs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memory/archive/archive.h"
#include "memory/namespace.h"

namespace cilia::testing {

// UnixMs of "YYYY-MM-DD HH:MM" in the namespace's zone.
inline UnixMs LocalTime(const memory::Namespace& ns, const std::string& day, int hour, int minute = 0) {
  return ns.tz().StartOfDay(*ParseDate(day)) + (hour * 60 + minute) * kMsPerMinute;
}

struct Said {
  std::string id, role, text;
  UnixMs at;
};

inline void Store(memory::Namespace& ns, const std::string& conversation, const std::vector<Said>& messages) {
  ingest::IngestConversation c;
  c.conversation_id = conversation;
  for (const Said& m : messages) c.messages.push_back({m.id, m.role, "", m.text, m.at});
  auto stored = memory::Archive(ns).Store(c);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
}

}  // namespace cilia::testing
