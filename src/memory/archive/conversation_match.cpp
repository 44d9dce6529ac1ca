#include "memory/archive/conversation_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "ingest/context_parts.h"
#include "store/conversation_match_repo.h"
#include "store/message_repo.h"

namespace cilia::memory {

namespace {

// History messages looked up through the index: the first few find a
// conversation whose whole history is resent, the last few one of which only
// the tail is sent (and the turn just before this one).
constexpr size_t kHeadProbes = 3;
constexpr size_t kTailProbes = 5;
// Stored copies taken per looked-up message, newest first: short texts
// ("hi", "ok") recur in many conversations.
constexpr int kCopiesPerProbe = 16;
// Candidates read and aligned in full, most promising first.
constexpr size_t kAlignedCandidates = 4;
// Between two history messages a conversation may have stored more messages
// than the client shows (replies regenerated several times): up to
// kStretch per history message, plus kSlack.
constexpr int64_t kStretch = 3;
constexpr int64_t kSlack = 8;

// A history message found in a conversation: its index in the history and
// the seq of the stored copy.
struct Hit {
  size_t index = 0;
  int64_t seq = 0;
};

bool CanFollow(const Hit& earlier, const Hit& later) {
  if (later.index <= earlier.index || later.seq <= earlier.seq) return false;
  return later.seq - earlier.seq <= kStretch * static_cast<int64_t>(later.index - earlier.index) + kSlack;
}

struct Candidate {
  int64_t conversation_row = 0;
  int64_t updated_at = 0;
  std::vector<Hit> hits;
  // The longest in-order run of hits whose gaps are plausible.
  int chain = 0;
  Hit chain_first;
  Hit chain_last;
};

void FindLongestChain(Candidate& c) {
  std::sort(c.hits.begin(), c.hits.end(),
            [](const Hit& a, const Hit& b) { return std::tie(a.index, a.seq) < std::tie(b.index, b.seq); });
  const size_t n = c.hits.size();
  std::vector<int> length(n, 1);
  std::vector<size_t> start(n);
  for (size_t i = 0; i < n; ++i) {
    start[i] = i;
    for (size_t j = 0; j < i; ++j) {
      if (length[j] + 1 > length[i] && CanFollow(c.hits[j], c.hits[i])) {
        length[i] = length[j] + 1;
        start[i] = start[j];
      }
    }
    if (length[i] > c.chain) {
      c.chain = length[i];
      c.chain_first = c.hits[start[i]];
      c.chain_last = c.hits[i];
    }
  }
}

// The keys a message is matched by: its tool call or result ids when it
// holds any, and its text unless it is only those. Either key found on the
// other side matches, so an assistant message stored with its text and
// calls is found again whether a client resends the text, the calls or both
// (and one stored before calls were kept, by its text). A unit separator
// keeps ids from meeting a text.
std::vector<std::string> MatchKeys(std::string_view role, std::string_view text, std::string_view context_key) {
  std::vector<std::string> keys;
  const std::string_view trimmed = store::TrimForMatch(text);
  if (!context_key.empty()) keys.push_back(fmt::format("{}\n\x1f{}", role, context_key));
  if (context_key.empty() || !trimmed.empty()) keys.push_back(fmt::format("{}\n{}", role, trimmed));
  return keys;
}

// The context key of a stored message; only content that can hold tool
// parts is parsed.
std::string StoredContextKey(const store::MessageRecord& m) {
  if (m.content.find("\"tool_") == std::string::npos) return "";
  return ingest::ContextKey(nlohmann::json::parse(m.content, nullptr, false));
}

// The longest common subsequence of the history and the stored messages, as
// pairs in history order (Hunt–Szymanski: texts are mostly distinct, so
// matching pairs are few). Of equally long ones it ends at the earliest
// history message, so that nothing the client sends anew is taken for
// stored, and at the latest stored copy of it.
std::vector<Hit> Align(const std::unordered_map<std::string, std::vector<size_t>>& history_positions,
                       const std::vector<store::MessageRecord>& stored) {
  struct Node {
    Hit hit;
    int previous;
  };
  std::vector<Node> nodes;
  std::vector<int> tails;  // tails[k]: node ending a common subsequence of length k + 1, smallest index
  for (const store::MessageRecord& m : stored) {
    std::vector<size_t> positions;
    for (const std::string& key : MatchKeys(m.role, m.text, StoredContextKey(m))) {
      auto found = history_positions.find(key);
      if (found == history_positions.end()) continue;
      positions.insert(positions.end(), found->second.begin(), found->second.end());
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    // Descending, so that no chain uses one stored message twice.
    for (auto index = positions.rbegin(); index != positions.rend(); ++index) {
      auto slot = std::lower_bound(tails.begin(), tails.end(), *index,
                                   [&](int node, size_t value) { return nodes[node].hit.index < value; });
      const int previous = slot == tails.begin() ? -1 : *(slot - 1);
      nodes.push_back({{*index, m.seq}, previous});
      const int node = static_cast<int>(nodes.size()) - 1;
      if (slot == tails.end()) {
        tails.push_back(node);
      } else {
        *slot = node;
      }
    }
  }
  std::vector<Hit> pairs;
  for (int node = tails.empty() ? -1 : tails.back(); node >= 0; node = nodes[node].previous) {
    pairs.push_back(nodes[node].hit);
  }
  std::reverse(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<size_t> ProbeIndexes(const std::vector<ChatHistoryMessage>& history) {
  std::vector<size_t> non_empty;
  for (size_t i = 0; i < history.size(); ++i) {
    if (!store::TrimForMatch(history[i].text).empty()) non_empty.push_back(i);
  }
  std::vector<size_t> probes;
  for (size_t k = 0; k < non_empty.size(); ++k) {
    if (k < kHeadProbes || k + kTailProbes >= non_empty.size()) probes.push_back(non_empty[k]);
  }
  return probes;
}

struct Verified {
  const Candidate* candidate = nullptr;
  std::vector<Hit> pairs;
};

bool Better(const Verified& a, const Verified& b) {
  return std::make_tuple(a.pairs.size(), a.candidate->updated_at, a.candidate->conversation_row) >
         std::make_tuple(b.pairs.size(), b.candidate->updated_at, b.candidate->conversation_row);
}

}  // namespace

Result<std::optional<ConversationMatch>> FindContinuedConversation(Namespace& ns, std::string_view client_user,
                                                                   const std::vector<ChatHistoryMessage>& history) {
  const std::vector<size_t> probes = ProbeIndexes(history);
  if (probes.empty()) return std::optional<ConversationMatch>();
  return ns.store().Read([&](store::Database& db) -> Result<std::optional<ConversationMatch>> {
    store::ConversationMatchRepo match_repo(db);
    std::map<int64_t, Candidate> by_row;
    for (size_t index : probes) {
      const ChatHistoryMessage& m = history[index];
      CILIA_ASSIGN_OR_RETURN(
          auto copies, match_repo.FindMessages(client_user, m.role, store::TrimForMatch(m.text), kCopiesPerProbe));
      for (const store::MessageMatch& copy : copies) {
        Candidate& c = by_row[copy.conversation_row];
        c.conversation_row = copy.conversation_row;
        c.updated_at = copy.conversation_updated_at;
        c.hits.push_back({index, copy.seq});
      }
    }
    if (by_row.empty()) return std::optional<ConversationMatch>();

    std::vector<Candidate> candidates;
    for (auto& [row, c] : by_row) {
      FindLongestChain(c);
      candidates.push_back(std::move(c));
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.chain, a.updated_at, a.conversation_row) > std::tie(b.chain, b.updated_at, b.conversation_row);
    });
    if (candidates.size() > kAlignedCandidates) candidates.resize(kAlignedCandidates);

    std::unordered_map<std::string, std::vector<size_t>> history_positions;
    for (size_t i = 0; i < history.size(); ++i) {
      for (std::string& key : MatchKeys(history[i].role, history[i].text, history[i].context_key)) {
        history_positions[std::move(key)].push_back(i);
      }
    }
    const auto history_size = static_cast<int64_t>(history.size());
    store::MessageRepo messages(db);
    std::optional<Verified> best;
    for (const Candidate& c : candidates) {
      // Only the stretch that can hold the history: from before the first
      // hit as far as the history messages before it could reach, to after
      // the last as far as those after it could.
      const int64_t from =
          std::max<int64_t>(0, c.chain_first.seq - kStretch * static_cast<int64_t>(c.chain_first.index) - kSlack);
      const int64_t to =
          c.chain_last.seq + kStretch * (history_size - 1 - static_cast<int64_t>(c.chain_last.index)) + kSlack;
      CILIA_ASSIGN_OR_RETURN(auto stored,
                             messages.MessagesFrom(c.conversation_row, from, static_cast<int>(to - from + 1)));
      Verified v{&c, Align(history_positions, stored)};
      if (!v.pairs.empty() && (!best || Better(v, *best))) best = std::move(v);
    }
    if (!best) return std::optional<ConversationMatch>();

    CILIA_ASSIGN_OR_RETURN(auto conversation, messages.GetConversation(best->candidate->conversation_row));
    if (!conversation) return std::optional<ConversationMatch>();  // forgotten meanwhile
    const std::vector<Hit>& pairs = best->pairs;
    ConversationMatch out;
    out.conversation_id = conversation->external_id;
    out.conversation_row = conversation->id;
    out.matched = static_cast<int>(pairs.size());
    out.first_matched_seq = pairs.front().seq;
    out.last_matched_seq = pairs.back().seq;
    out.last_matched_index = static_cast<int>(pairs.back().index);
    auto next_pair = pairs.begin();
    for (size_t i = pairs.front().index; i < history.size(); ++i) {
      if (next_pair != pairs.end() && next_pair->index == i) {
        ++next_pair;
      } else {
        out.unmatched.push_back(i);
      }
    }
    return std::optional<ConversationMatch>(std::move(out));
  });
}

Status TagConversationUser(Namespace& ns, int64_t conversation_row, std::string_view client_user) {
  return ns.store().Write(
      [&](store::Database& db) { return store::ConversationMatchRepo(db).TagUser(conversation_row, client_user); });
}

}  // namespace cilia::memory
