// Okapi BM25 baselines for the quality benchmark, and the tokenizers they use.

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

// Lowercase runs of letters and digits; no stemming, no stop words.
export function wordTokens(text) {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// NLTK's English stop words, split the way wordTokens splits ("don't" → "don", "t").
const ENGLISH_STOP_WORDS = new Set(wordTokens(`
  i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
  himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this
  that that'll these those am is are was were be been being have has had having do does did doing a an the and but
  if or because as until while of at by for with about against between into through during before after above
  below to from up down in out on off over under again further then once here there when where why how all any both
  each few more most other some such no nor not only own same so than too very s t can will just don don't should
  should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't
  haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't
  weren weren't won won't wouldn wouldn't`));

// wordTokens without English stop words.
export function contentWordTokens(text) {
  return wordTokens(text).filter((token) => !ENGLISH_STOP_WORDS.has(token));
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
