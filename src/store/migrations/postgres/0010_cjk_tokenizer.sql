-- PostgreSQL's 0010_cjk_tokenizer.sql: SQLite's 0010 drops windows.cjk, its
-- FTS5 tokenizer reading the Han n-grams from body instead. PostgreSQL keeps
-- the column, which its GIN index (windows_cjk) is built over; WindowRepo
-- computes it from body on insert. The number is kept so that both backends
-- count the same versions.
COMMENT ON COLUMN windows.cjk IS 'Han unigrams and bigrams of body, space-separated (WindowRepo::InsertAll)';
