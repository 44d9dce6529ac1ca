#include "text/segmenter.h"

#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>

#include <climits>
#include <mutex>
#include <set>

#include "text/normalize.h"
#include "text/utf8.h"

namespace cilia::text {
namespace {

using WordFn = std::function<void(std::string_view)>;

// What SQLite's unicode61 tokenizer keeps inside a token: letters, numbers and
// private-use characters (its default categories "L* N* Co"). Anything else
// separates tokens, so no word we emit may contain it.
bool IsTokenChar(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & (U_GC_L_MASK | U_GC_N_MASK | U_GC_CO_MASK)) != 0;
}

// Scripts written without spaces between words, which need the dictionary.
bool NeedsDictionary(char32_t c) {
  if (c < 0x0E00) return false;
  if (IsHan(c)) return true;
  if ((c >= 0x3040 && c <= 0x30FF && c != 0x30FB) || (c >= 0x31F0 && c <= 0x31FF)) return true;  // kana
  return u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_LINE_BREAK) == U_LB_COMPLEX_CONTEXT;
}

enum class RunKind { kSeparator, kDictionary, kPlain };

RunKind Classify(char32_t c) {
  if (NeedsDictionary(c)) return RunKind::kDictionary;
  return IsTokenChar(c) ? RunKind::kPlain : RunKind::kSeparator;
}

// Emits the maximal runs of token characters of `s`.
void EmitTokenPieces(std::string_view s, const WordFn& on_word) {
  size_t piece = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    if (!IsTokenChar(NextCodePoint(s, &pos))) {
      if (start > piece) on_word(s.substr(piece, start - piece));
      piece = pos;
    }
  }
  if (s.size() > piece) on_word(s.substr(piece));
}

// ---- Light English stemming -------------------------------------------------
// Only plural endings and -ing/-ed, with Porter's step-1b repairs (double
// consonant, silent e), and only where the stem keeps a vowel and three letters.
// The same rules run on the index and the query side, so an imperfect stem
// (amazing→amaz) still matches itself; what matters is that the regular forms
// of a word meet (run, runs, running) and unrelated words stay apart.

bool IsVowelAt(std::string_view w, size_t i) {
  if (w[i] == 'y') return i > 0 && !IsVowelAt(w, i - 1);  // y is a vowel after a consonant
  return std::string_view("aeiou").find(w[i]) != std::string_view::npos;
}

bool HasVowel(std::string_view w) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (IsVowelAt(w, i)) return true;
  }
  return false;
}

// Porter's measure m: the number of vowel-consonant sequences.
int Measure(std::string_view w) {
  int m = 0;
  bool after_vowel = false;
  for (size_t i = 0; i < w.size(); ++i) {
    const bool vowel = IsVowelAt(w, i);
    if (after_vowel && !vowel) ++m;
    after_vowel = vowel;
  }
  return m;
}

// consonant-vowel-consonant at the end, the last not w, x or y ("hop", "lik").
bool EndsCvc(std::string_view w) {
  const size_t n = w.size();
  if (n < 3) return false;
  const char last = w[n - 1];
  return !IsVowelAt(w, n - 3) && IsVowelAt(w, n - 2) && !IsVowelAt(w, n - 1) && last != 'w' && last != 'x' &&
         last != 'y';
}

bool EndsDoubleConsonant(std::string_view w) {
  const size_t n = w.size();
  if (n < 2 || w[n - 1] != w[n - 2] || IsVowelAt(w, n - 1)) return false;
  return w[n - 1] != 'l' && w[n - 1] != 's' && w[n - 1] != 'z';  // fall, miss, buzz keep theirs
}

bool IsAsciiLetters(std::string_view w) {
  for (char c : w) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

// -ing/-ed words whose ending is not an inflection.
bool KeepsEnding(std::string_view w) {
  static const std::set<std::string_view> kWords = {"anything",   "ceiling", "during",    "evening",
                                                    "everything", "hundred", "morning",   "nothing",
                                                    "pudding",    "sibling", "something", "wedding"};
  return kWords.count(w) > 0;
}

void AppendStem(std::string_view w, std::string& out) {
  if (w.size() < 4 || !IsAsciiLetters(w)) {
    out.append(w);
    return;
  }
  std::string_view stem = w;
  std::string_view restore;  // letters that the removed ending replaced
  if (w.size() >= 5 && (w.ends_with("ies") || w.ends_with("ied"))) {
    stem.remove_suffix(3);
    restore = "y";  // stories→story, tried→try
  } else {
    if (w.ends_with("sses") || w.ends_with("xes") || w.ends_with("ches") || w.ends_with("shes")) {
      stem.remove_suffix(2);
    } else if (w.back() == 's' && w[w.size() - 2] != 's' && w[w.size() - 2] != 'u' && w[w.size() - 2] != 'i') {
      stem.remove_suffix(1);  // not glass, status, this
    }
    std::string_view inflected = stem;
    size_t ending = 0;
    if (inflected.size() >= 6 && inflected.ends_with("ing")) {
      ending = 3;
    } else if (inflected.size() >= 5 && inflected.ends_with("ed") && !inflected.ends_with("eed")) {
      ending = 2;  // not need, speed, agreed
    }
    if (ending > 0 && !KeepsEnding(inflected)) {
      std::string_view base = inflected.substr(0, inflected.size() - ending);
      if (HasVowel(base)) {
        if (base.size() >= 4 && EndsDoubleConsonant(base)) {
          base.remove_suffix(1);  // running→run, stopped→stop
        } else if (Measure(base) == 1 && EndsCvc(base)) {
          restore = "e";  // liked→like, coding→code
        }
        stem = base;
      }
    }
  }
  out.append(stem).append(restore);
}

void EmitPlainWord(std::string_view word, const WordFn& on_word) {
  std::string stemmed;
  AppendStem(word, stemmed);
  on_word(stemmed);
}

// One per thread: its own break iterator (ICU iterators are not thread-safe)
// and the UText that lets it read UTF-8 in place.
struct ThreadIterator {
  std::unique_ptr<icu::BreakIterator> iterator;
  UText text = UTEXT_INITIALIZER;

  ~ThreadIterator() { utext_close(&text); }
};

}  // namespace

struct WordSegmenter::State {
  std::unique_ptr<icu::BreakIterator> prototype;  // null: no usable ICU dictionary, one word per character
  std::mutex clone_mutex;
  Status status;

  // This thread's iterator, or null when there is no prototype.
  ThreadIterator* ForThisThread() {
    if (prototype == nullptr) return nullptr;
    thread_local ThreadIterator mine;
    if (mine.iterator == nullptr) {
      std::lock_guard<std::mutex> lock(clone_mutex);
      mine.iterator.reset(prototype->clone());
    }
    return mine.iterator == nullptr ? nullptr : &mine;
  }

  // Emits the dictionary words of a run of NeedsDictionary characters.
  void SegmentRun(std::string_view run, const WordFn& on_word) {
    ThreadIterator* it = ForThisThread();
    UErrorCode error = U_ZERO_ERROR;
    if (it != nullptr && run.size() <= static_cast<size_t>(INT32_MAX)) {
      utext_openUTF8(&it->text, run.data(), static_cast<int64_t>(run.size()), &error);
      if (U_SUCCESS(error)) it->iterator->setText(&it->text, error);
    }
    if (it == nullptr || U_FAILURE(error)) {
      EmitEachCharacter(run, on_word);
      return;
    }
    // Boundaries of a UTF-8 UText are byte offsets into `run`.
    int32_t start = it->iterator->first();
    for (int32_t end = it->iterator->next(); end != icu::BreakIterator::DONE; start = end, end = it->iterator->next()) {
      EmitTokenPieces(run.substr(start, end - start), on_word);
    }
  }

  static void EmitEachCharacter(std::string_view run, const WordFn& on_word) {
    for (size_t pos = 0; pos < run.size();) {
      const size_t start = pos;
      if (IsTokenChar(NextCodePoint(run, &pos))) on_word(run.substr(start, pos - start));
    }
  }
};

WordSegmenter::WordSegmenter() : state_(std::make_unique<State>()) {
  UErrorCode error = U_ZERO_ERROR;
  state_->prototype.reset(icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), error));
  if (U_FAILURE(error) || state_->prototype == nullptr) {
    state_->prototype.reset();
    state_->status = Status::Internal(std::string("ICU word break iterator unavailable (") + u_errorName(error) +
                                      "): Chinese is indexed one character per word");
    return;
  }
  // ICU data built without the CJK dictionary still breaks text, by rules
  // alone: check that a sentence splits into its words, neither more nor fewer.
  if (Words("我住成都") != std::vector<std::string>{"我", "住", "成都"}) {
    state_->prototype.reset();
    state_->status = Status::Internal("ICU has no CJK word dictionary: Chinese is indexed one character per word");
  }
}

WordSegmenter::~WordSegmenter() = default;

const WordSegmenter& WordSegmenter::Get() {
  static const WordSegmenter instance;
  return instance;
}

const Status& WordSegmenter::status() const { return state_->status; }

void WordSegmenter::ForEachWord(std::string_view text, const WordFn& on_word) const {
  const std::string normalized = NormalizeForMatch(text);
  const std::string_view s = normalized;
  RunKind kind = RunKind::kSeparator;
  size_t run_start = 0;
  auto flush = [&](size_t run_end) {
    const std::string_view run = s.substr(run_start, run_end - run_start);
    if (kind == RunKind::kDictionary) {
      state_->SegmentRun(run, on_word);
    } else if (kind == RunKind::kPlain) {
      EmitPlainWord(run, on_word);
    }
  };
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    const char32_t c = NextCodePoint(s, &pos);
    const RunKind next = Classify(c);
    if (next != kind) {
      flush(start);
      kind = next;
      run_start = start;
    }
  }
  flush(s.size());
}

std::vector<std::string> WordSegmenter::Words(std::string_view text) const {
  std::vector<std::string> words;
  ForEachWord(text, [&words](std::string_view w) { words.emplace_back(w); });
  return words;
}

std::string IndexText(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  WordSegmenter::Get().ForEachWord(text, [&out](std::string_view w) {
    if (!out.empty()) out.push_back(' ');
    out.append(w);
  });
  return out;
}

void ForEachShortCjkToken(std::string_view text,
                          const std::function<void(std::string_view token, bool bigram)>& on_token) {
  const std::string normalized = NormalizeForMatch(text);
  const std::string_view s = normalized;
  size_t previous_han = std::string_view::npos;  // byte offset of the Han character just before
  for (size_t pos = 0; pos < s.size();) {
    const size_t start = pos;
    if (!IsHan(NextCodePoint(s, &pos))) {
      previous_han = std::string_view::npos;
      continue;
    }
    if (previous_han != std::string_view::npos) on_token(s.substr(previous_han, pos - previous_han), true);
    on_token(s.substr(start, pos - start), false);
    previous_han = start;
  }
}

bool IsStopWord(std::string_view word) {
  static const std::set<std::string, std::less<>> kStopWords = [] {
    static constexpr const char* kList[] = {
        // Chinese: pronouns, particles, copulas, question words, common adverbs.
        "我", "你", "您", "他", "她", "它", "我们", "你们", "他们", "她们", "它们", "自己", "的", "地", "得", "了",
        "着", "过", "是", "在", "和", "与", "跟", "及", "而", "也", "就", "都", "还", "又", "很", "太", "吗", "呢",
        "吧", "啊", "呀", "哦", "嗯", "么", "嘛", "啦", "呗", "这", "那", "哪", "这个", "那个", "这些", "那些", "这样",
        "那样", "什么", "怎么", "怎样", "为什么", "哪里", "哪儿", "多少", "有", "没", "没有", "不", "把", "被", "给",
        "让", "对", "从", "一个", "要", "会", "能", "可以", "说",
        // English.
        "a", "an", "the", "and", "or", "but", "if", "then", "than", "so", "not", "no", "of", "to", "in", "on", "at",
        "for", "with", "by", "from", "as", "into", "about", "over", "is", "are", "was", "were", "be", "been", "being",
        "am", "do", "does", "did", "have", "has", "had", "i", "me", "my", "you", "your", "he", "him", "his", "she",
        "her", "it", "its", "we", "us", "our", "they", "them", "their", "that", "this", "these", "those", "what",
        "when", "where", "which", "who", "whom", "why", "how", "there", "here", "very", "too", "just", "also", "can",
        "could", "will", "would", "should", "may", "might", "must", "s", "t"};
    // Stored in the form Words() gives them, stemming included ("does"→"doe").
    std::set<std::string, std::less<>> words;
    for (const char* entry : kList) {
      std::string stemmed;
      AppendStem(entry, stemmed);
      words.insert(std::move(stemmed));
    }
    return words;
  }();
  return kStopWords.find(word) != kStopWords.end();
}

}  // namespace cilia::text
