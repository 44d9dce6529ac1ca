-- 0011_shared_store.sql: nothing in SQLite. PostgreSQL's 0011 adds what a
-- database shared by several gateways needs (the namespace list and the image
-- bytes); SQLite keeps both in the data dir (DATA/ns/<name>/ and its files/
-- folder). The number is kept so that both backends count the same versions
-- (store/migrations.cpp refuses a database newer than the latest SQLite one).
SELECT 1;
