// cilia's token estimate (src/text/tokens.cpp, text::EstimateTokens), for budgets measured from
// outside: one token per CJK letter (text::IsCjk's ranges), plus one per four UTF-8 bytes of
// everything else, rounded up.
const CJK_RANGES = [
  [0x3005, 0x3005], [0x3007, 0x3007], [0x3021, 0x3029], [0x3038, 0x303b], // Han in CJK Symbols
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xf900, 0xfaff], [0x20000, 0x2fa1f], [0x30000, 0x323af], // Han
  [0x3040, 0x309f], [0x30a0, 0x30fa], [0x30fc, 0x30ff], [0x31f0, 0x31ff], [0xff66, 0xff9f], [0x1b000, 0x1b16f], // kana
  [0x3100, 0x312f], [0x31a0, 0x31bf], // Bopomofo
  [0x1100, 0x11ff], [0x3130, 0x318f], [0xa960, 0xa97f], [0xac00, 0xd7a3], [0xd7b0, 0xd7ff], [0xffa0, 0xffdc], // Hangul
];

const isCjk = (cp) => CJK_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);

export function estimateTokens(text) {
  let cjk = 0;
  let otherBytes = 0;
  for (const ch of text) {
    if (isCjk(ch.codePointAt(0))) cjk += 1;
    else otherBytes += Buffer.byteLength(ch, 'utf8');
  }
  return cjk + Math.ceil(otherBytes / 4);
}
