// Time words in a recall query ("last week", "上周三", "三月初", "recently"),
// resolved against the moment the question is asked, in the owner's zone.
// The phrases understood and what each resolves to: docs/time-words.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"

namespace cilia {

struct TimeHint {
  // [from, to): a hard filter, set when a phrase names a day or a span. With
  // several such phrases, the span covering all of them.
  std::optional<UnixMs> from;
  std::optional<UnixMs> to;
  // A vague phrase ("recently", "最近", "那阵子"): boost recent results, no filter.
  bool recent = false;
  // The recognised phrases, as written in the query, in order.
  std::vector<std::string> phrases;
  // The query without the recognised phrases (whitespace tidied where they
  // were cut out); the query itself when nothing was recognised.
  std::string rest;
};

TimeHint ParseTimeWords(std::string_view query, UnixMs now, const TimeZone& tz);

// Whether `rest` (a query without its time words) asks for nothing but what
// was said or done then: empty, or only stop words and the words of such a
// question ("聊了什么", "我说了什么", "发生了什么", "what did we talk about",
// "anything", "what happened"). Such a query is answered by the span itself.
bool AsksOnlyWhatWasSaid(std::string_view rest);

}  // namespace cilia
