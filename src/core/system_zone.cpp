#include "core/system_zone.h"

#include <unicode/timezone.h>
#include <unicode/ucal.h>

#include <memory>

namespace cilia {

namespace {

bool Known(const icu::TimeZone* zone) {
  icu::UnicodeString id;
  return zone != nullptr && zone->getID(id) != icu::UnicodeString(UCAL_UNKNOWN_ZONE_ID);
}

std::unique_ptr<icu::TimeZone> Create(std::string_view name) {
  return std::unique_ptr<icu::TimeZone>(icu::TimeZone::createTimeZone(
      icu::UnicodeString::fromUTF8(icu::StringPiece(name.data(), static_cast<int32_t>(name.size())))));
}

}  // namespace

std::string SystemZoneName() {
  std::unique_ptr<icu::TimeZone> zone(icu::TimeZone::detectHostTimeZone());
  if (!Known(zone.get())) return "";
  icu::UnicodeString id;
  std::string out;
  zone->getID(id).toUTF8String(out);
  return out;
}

bool SameZoneRules(std::string_view a, std::string_view b) {
  std::unique_ptr<icu::TimeZone> first = Create(a);
  std::unique_ptr<icu::TimeZone> second = Create(b);
  return Known(first.get()) && Known(second.get()) && first->hasSameRules(*second);
}

}  // namespace cilia
