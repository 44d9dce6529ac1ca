// The archive by the owner's local days, for the admin page's timeline: how
// many messages each day has, and which conversations spoke on one day.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"
#include "store/archive_records.h"

namespace cilia::memory {

struct DayCount {
  std::string day;  // YYYY-MM-DD, the owner's zone
  int64_t messages = 0;
};

// Days with messages, earliest first.
Result<std::vector<DayCount>> MessagesPerDay(Namespace& ns);

struct DayConversation {
  store::ConversationRecord conversation;
  int64_t messages = 0;        // its messages created that day
  store::MessageRecord first;  // the first of them
};

// The conversations with messages created on the local day, by their first
// such message.
Result<std::vector<DayConversation>> ConversationsOfDay(Namespace& ns, CivilDate day);

}  // namespace cilia::memory
