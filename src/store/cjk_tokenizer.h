// The FTS5 tokenizer of `windows_cjk`: Han unigrams and bigrams read straight
// from the window body, for the 1–2 character lookups SQLite 3.40's trigram
// index cannot answer. The tokens used to be written out as text in a column
// of their own (`windows.cjk`, twice the size of the whole text) only so that
// unicode61 could index them; migration 0010 dropped it.
//
// Because it is registered by cilia on each connection, a database opened by
// another program (the `sqlite3` shell) can read every table but cannot
// insert or delete windows: their triggers write `windows_cjk`, and SQLite
// then reports "no such tokenizer: cilia_cjk".
#pragma once

#include <sqlite3.h>

namespace cilia::store {

inline constexpr const char* kCjkTokenizerName = "cilia_cjk";

// Registers the tokenizer on `db`; an SQLite result code (SQLITE_OK).
//
// Documents yield text::ForEachShortCjkToken's tokens ("去成都" → 去 去成 成 成都
// 都). A query yields each run of adjacent Han characters of its normalised
// text as one token, as unicode61 read the query when the tokens were a
// column: the phrase "成都" is the token 成都, "成" the token 成, and "去成都"
// a token no window holds. Anything not Han yields nothing (a phrase of only
// that matches no row). Ill-formed UTF-8 reads as U+FFFD, which is not Han.
int RegisterCjkTokenizer(sqlite3* db);

}  // namespace cilia::store
