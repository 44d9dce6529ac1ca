#include "memory/excerpts/excerpt_merge.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "memory/excerpts/excerpts.h"
#include "store/excerpt_repo.h"

namespace cilia::memory {
namespace {

// Higher stays: pinned, then who wrote it, then sightings, then age.
std::tuple<bool, int, int64_t, int64_t> Standing(const store::ExcerptRecord& e) {
  const int author = e.author == Author::kOwner ? 2 : e.author == Author::kAgent ? 1 : 0;
  return {e.pinned, author, e.seen_count, -e.id};
}

using Span = std::tuple<int64_t, int64_t, int64_t>;  // message, start, end
Span SpanOf(const store::ExcerptRecord& e) { return {e.source.message_id, e.source.span_start, e.source.span_end}; }

bool MayBeMergedAway(const store::ExcerptRecord& e) { return !e.pinned && e.author == Author::kExtractor; }

}  // namespace

Result<MergeOutcome> MergeDuplicateExcerpts(Namespace& ns) {
  std::vector<store::ExcerptRecord> active;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) {
    return store::ExcerptRepo(db).ForEach([&](const store::ExcerptRecord& e) {
      if (e.status == ExcerptStatus::kActive) active.push_back(e);
    });
  }));
  MergeOutcome out;
  // The excerpt that stays for each content key and each quoted span, as an
  // index into `active`.
  std::map<std::string, size_t> by_content;
  std::map<Span, size_t> by_span;
  Excerpts excerpts(ns);
  for (size_t i = 0; i < active.size(); ++i) {
    const store::ExcerptRecord& e = active[i];
    const std::string key = ExcerptContentKey(e.content);
    const Span span = SpanOf(e);
    std::optional<size_t> same;
    if (auto it = by_content.find(key); !key.empty() && it != by_content.end()) same = it->second;
    if (auto it = by_span.find(span); !same && it != by_span.end()) same = it->second;
    if (!same) {
      if (!key.empty()) by_content.emplace(key, i);
      by_span.emplace(span, i);
      continue;
    }
    const bool newer_stays = Standing(e) > Standing(active[*same]);
    const size_t stays = newer_stays ? i : *same;
    const size_t goes = newer_stays ? *same : i;
    if (!MayBeMergedAway(active[goes])) {
      ++out.kept_apart;
      continue;
    }
    CILIA_RETURN_IF_ERROR(excerpts.MergeInto(active[goes].id, active[stays].id, Author::kExtractor).status());
    out.merged.emplace_back(active[goes].id, active[stays].id);
    active[stays].seen_count += active[goes].seen_count;
    // What comes after meets the one that stays, by either's content or span.
    for (const size_t x : {i, *same}) {
      const std::string x_key = ExcerptContentKey(active[x].content);
      if (!x_key.empty()) by_content[x_key] = stays;
      by_span[SpanOf(active[x])] = stays;
    }
  }
  return out;
}

}  // namespace cilia::memory
