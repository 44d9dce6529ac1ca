-- Nothing in SQLite: the change log (PostgreSQL's 0013) tells the gateways
-- that share a database of each other's writes, and one process holds a
-- SQLite data dir (serve.lock), its own writes already in its indexes. The
-- number is kept so that both backends count the same versions.
SELECT 1;
