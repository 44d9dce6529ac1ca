#include "store/cjk_tokenizer.h"

#include <new>
#include <string>
#include <string_view>

#include "text/segmenter.h"

namespace cilia::store {

namespace {

using TokenFn = int (*)(void*, int, const char*, int, int, int);

// The tokenizer has no options and no state: every instance is the address
// of this byte (FTS5 only hands it back).
char instance;

int Create(void*, const char**, int, Fts5Tokenizer** out) {
  *out = reinterpret_cast<Fts5Tokenizer*>(&instance);
  return SQLITE_OK;
}

void Delete(Fts5Tokenizer*) {}

int Tokenize(Fts5Tokenizer*, void* ctx, int flags, const char* text, int size, TokenFn on_token) {
  // Offsets serve highlight() and snippet() only, which a detail=none table
  // does not support, and tokens of the normalised text have none in the
  // input: every token spans the whole input.
  int rc = SQLITE_OK;
  auto emit = [&](std::string_view token) {
    if (rc == SQLITE_OK) rc = on_token(ctx, 0, token.data(), static_cast<int>(token.size()), 0, size);
  };
  const bool query = (flags & FTS5_TOKENIZE_QUERY) != 0;
  // A query's token is each run of adjacent Han characters whole, as
  // unicode61 read the query when the tokens were a column: the run is its
  // unigrams, each after the bigram that joins it to the one before.
  std::string run;
  bool after_bigram = false;
  auto flush_run = [&] {
    if (!run.empty()) emit(run);
  };
  try {
    text::ForEachShortCjkToken(std::string_view(text, size > 0 ? static_cast<size_t>(size) : 0),
                               [&](std::string_view token, bool bigram) {
                                 if (!query) return emit(token);
                                 const bool continues_run = after_bigram;
                                 after_bigram = bigram;
                                 if (bigram) return;
                                 if (!continues_run) {
                                   flush_run();
                                   run.clear();
                                 }
                                 run.append(token);
                               });
    flush_run();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    return SQLITE_ERROR;
  }
  return rc;
}

}  // namespace

int RegisterCjkTokenizer(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
  sqlite3_step(stmt);
  rc = sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return rc;
  if (api == nullptr || api->iVersion < 2) return SQLITE_ERROR;
  fts5_tokenizer tokenizer{Create, Delete, Tokenize};
  return api->xCreateTokenizer(api, kCjkTokenizerName, nullptr, &tokenizer, nullptr);
}

}  // namespace cilia::store
