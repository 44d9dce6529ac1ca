// Okapi BM25 baselines for the quality benchmark, and the tokenizers they use.

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

// Lowercase runs of letters and digits; no stemming, no stop words.
export function wordTokens(text) {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// Chinese (and other CJK) runs become overlapping character bigrams (a lone character stays a
// unigram); everything else becomes lowercase word tokens.
export function bigramTokens(text) {
  const tokens = [];
  for (const run of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let latin = '';
    let cjk = [];
    const flushLatin = () => {
      if (latin) tokens.push(latin);
      latin = '';
    };
    const flushCjk = () => {
      if (cjk.length === 1) tokens.push(cjk[0]);
      for (let i = 0; i + 1 < cjk.length; i++) tokens.push(cjk[i] + cjk[i + 1]);
      cjk = [];
    };
    for (const ch of run) {
      if (CJK.test(ch)) {
        flushLatin();
        cjk.push(ch);
      } else {
        flushCjk();
        latin += ch;
      }
    }
    flushLatin();
    flushCjk();
  }
  return tokens;
}

export class BM25 {
  constructor({ k1 = 1.2, b = 0.75, tokenize = wordTokens } = {}) {
    this.k1 = k1;
    this.b = b;
    this.tokenize = tokenize;
    this.docs = []; // {item, length}
    this.postings = new Map(); // term -> [[docIndex, termFrequency], ...]
    this.totalLength = 0;
  }

  // `item` is returned by search as is; `text` is what gets indexed.
  add(item, text) {
    const index = this.docs.length;
    const counts = new Map();
    const tokens = this.tokenize(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = []));
      list.push([index, tf]);
    }
    this.docs.push({ item, length: tokens.length });
    this.totalLength += tokens.length;
  }

  // The best `limit` items, best first: [{item, score}]. Ties keep insertion order.
  search(query, limit) {
    const n = this.docs.length;
    if (n === 0) return [];
    const averageLength = this.totalLength / n;
    const scores = new Map();
    for (const term of new Set(this.tokenize(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [index, tf] of list) {
        const norm = this.k1 * (1 - this.b + (this.b * this.docs[index].length) / averageLength);
        scores.set(index, (scores.get(index) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([index, score]) => ({ item: this.docs[index].item, score }));
  }
}
