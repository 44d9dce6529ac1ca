-- The Han unigrams and bigrams of a window are no longer written out as text
-- (`windows.cjk` held about three times the Han text, issue 16): the FTS5
-- tokenizer cilia_cjk (store/cjk_tokenizer.h), which every connection cilia
-- opens registers, reads the same tokens straight from `body`. The table is
-- rebuilt from the bodies; queries match the same rows as before.
DROP TRIGGER windows_ai;
DROP TRIGGER windows_ad;
DROP TABLE windows_cjk;
ALTER TABLE windows DROP COLUMN cjk;

CREATE VIRTUAL TABLE windows_cjk USING fts5(body, content='windows', content_rowid='id',
                                           tokenize='cilia_cjk', detail='none');
INSERT INTO windows_cjk(windows_cjk, rank) VALUES ('automerge', 16);

CREATE TRIGGER windows_ai AFTER INSERT ON windows BEGIN
  INSERT INTO windows_trigram(rowid, body) VALUES (new.id, new.body);
  INSERT INTO windows_cjk(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER windows_ad AFTER DELETE ON windows BEGIN
  INSERT INTO windows_trigram(windows_trigram, rowid, body) VALUES ('delete', old.id, old.body);
  INSERT INTO windows_cjk(windows_cjk, rowid, body) VALUES ('delete', old.id, old.body);
END;

INSERT INTO windows_cjk(windows_cjk) VALUES ('rebuild');
