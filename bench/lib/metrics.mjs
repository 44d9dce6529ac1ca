// recall_any@k, recall_all@k and characters returned, per question and aggregated.

export const charCount = (text) => [...(text ?? '')].length;

// results: [{message_ids, text}] already cut to what is being scored.
export function scoreResults(results, evidence) {
  const returned = new Set(results.flatMap((r) => r.message_ids ?? []));
  const found = evidence.filter((id) => returned.has(id)).length;
  return {
    any: found > 0 ? 1 : 0,
    all: found === evidence.length ? 1 : 0,
    chars: results.reduce((sum, r) => sum + charCount(r.text), 0),
    count: results.length,
  };
}

// Results in order while fewer than `budget` characters are used (the last one may cross it).
export function cutToChars(results, budget) {
  const kept = [];
  let used = 0;
  for (const result of results) {
    if (used >= budget) break;
    kept.push(result);
    used += charCount(result.text);
  }
  return kept;
}

const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

function summary(scores) {
  return {
    n: scores.length,
    recall_any: mean(scores.map((s) => s.any)),
    recall_all: mean(scores.map((s) => s.all)),
    mean_chars: mean(scores.map((s) => s.chars)),
    mean_results: mean(scores.map((s) => s.count)),
  };
}

// scored: [{group, score}] → {overall, groups: {group: summary}} with groups in sorted order.
export function aggregate(scored) {
  const groups = {};
  for (const group of [...new Set(scored.map((s) => s.group))].sort()) {
    groups[group] = summary(scored.filter((s) => s.group === group).map((s) => s.score));
  }
  return { overall: summary(scored.map((s) => s.score)), groups };
}
