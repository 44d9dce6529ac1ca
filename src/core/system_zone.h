// This machine's time zone, for `cilia doctor` to compare server.time_zone with.
#pragma once

#include <string>
#include <string_view>

namespace cilia {

// The zone ICU detects for this machine (TZ, else /etc/localtime), e.g.
// "Europe/Berlin"; "" when it cannot tell.
std::string SystemZoneName();

// Whether two IANA zones have the same offsets and daylight rules, whatever
// their names (Asia/Chongqing and Asia/Shanghai do). False when either is unknown.
bool SameZoneRules(std::string_view a, std::string_view b);

}  // namespace cilia
