-- PostgreSQL's 0011_shared_store.sql: what several gateways sharing one
-- database must find in it rather than in their data dirs.

-- The namespace list (Registry::Names), which row-level security cannot give:
-- each connection sees its own namespace only. Like schema_version, a table
-- of the whole database, outside row-level security; a namespace registers
-- itself when a gateway first opens it (store/postgres_pool.h).
CREATE TABLE namespaces (
  name       text PRIMARY KEY,
  created_at bigint NOT NULL
);

-- Image bytes (SQLite keeps them in DATA/ns/<name>/files/<sha256>), so that
-- every gateway serves and exports the same images (store/file_store.h). A
-- row of `files` lists one; a forget drops the row, and the purge after it
-- the bytes no row lists.
CREATE TABLE file_bytes (
  ns     text NOT NULL DEFAULT current_setting('cilia.ns'),
  sha256 text NOT NULL,
  bytes  bytea NOT NULL,
  PRIMARY KEY (ns, sha256)
);
SELECT cilia_namespace_table('file_bytes');
