// The PostgreSQL schema's rules (src/store/migrations/postgres/0001_archive.sql),
// read from the catalog so that a table a later migration adds without them
// fails here; and what they buy: namespaces that cannot see or write each
// other's rows.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/migrations.h"
#include "store/postgres_db.h"

namespace cilia::store {
namespace {

// Each query names the tables (or indexes) of the current schema that break
// one rule; schema_version and namespaces (the namespace list, which
// row-level security could not give) are the tables of the whole database.
constexpr const char* kTables =
    "SELECT t.oid, t.relname, t.relrowsecurity, t.relforcerowsecurity FROM pg_class t "
    "JOIN pg_namespace n ON n.oid = t.relnamespace "
    "WHERE n.nspname = current_schema() AND t.relkind IN ('r', 'p') "
    "AND t.relname NOT IN ('schema_version', 'namespaces')";

const std::vector<std::pair<const char*, std::string>>& Rules() {
  static const std::vector<std::pair<const char*, std::string>> rules = {
      {"an ns column defaulting to the connection's namespace",
       fmt::format("SELECT t.relname FROM ({}) t WHERE NOT EXISTS (SELECT 1 FROM information_schema.columns c "
                   "WHERE c.table_schema = current_schema() AND c.table_name = t.relname AND c.column_name = 'ns' "
                   "AND c.is_nullable = 'NO' AND c.column_default LIKE '%current_setting(''cilia.ns''%') "
                   "ORDER BY 1",
                   kTables)},
      {"a primary key",
       fmt::format("SELECT t.relname FROM ({}) t WHERE NOT EXISTS (SELECT 1 FROM pg_index i "
                   "WHERE i.indrelid = t.oid AND i.indisprimary) ORDER BY 1",
                   kTables)},
      {"ns leading every index (primary and unique keys included)",
       fmt::format("SELECT t.relname || '.' || ic.relname FROM ({}) t JOIN pg_index i ON i.indrelid = t.oid "
                   "JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indkey[0] = 0 OR (SELECT a.attname "
                   "FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = i.indkey[0]) <> 'ns' ORDER BY 1",
                   kTables)},
      {"ns leading every foreign key",
       fmt::format("SELECT t.relname || '.' || f.conname FROM ({}) t JOIN pg_constraint f ON f.conrelid = t.oid "
                   "AND f.contype = 'f' WHERE (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid "
                   "AND a.attnum = f.conkey[1]) <> 'ns' ORDER BY 1",
                   kTables)},
      {"row-level security, forced, with the namespace policy",
       fmt::format("SELECT t.relname FROM ({}) t WHERE NOT (t.relrowsecurity AND t.relforcerowsecurity) OR "
                   "NOT EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = current_schema() AND "
                   "p.tablename = t.relname AND p.qual LIKE '%current_setting(''cilia.ns''%' AND "
                   "p.with_check LIKE '%current_setting(''cilia.ns''%') ORDER BY 1",
                   kTables)},
  };
  return rules;
}

class PostgresMigrationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CILIA_REQUIRE_POSTGRES(url_, "CILIA_TEST_PG_URL");
    a_ = Open(testing::FreshNamespace());
    b_ = Open(testing::FreshNamespace());
  }
  std::unique_ptr<PostgresDatabase> Open(const std::string& ns) {
    auto db = PostgresDatabase::Open(url_, ns);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return nullptr;
    Status migrated = Migrate(**db);
    EXPECT_TRUE(migrated.ok()) << migrated.ToString();
    return std::move(*db);
  }
  std::vector<std::string> Breaking(Database& db, const std::string& sql) {
    auto rows = (*db.Prepare(sql))->All([](const Statement& r) { return r.Text(0); });
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }
  std::string url_;
  std::unique_ptr<PostgresDatabase> a_, b_;
};

TEST_F(PostgresMigrationsTest, BothBackendsHaveTheSameMigrationNumbers) {
  ASSERT_EQ(kPostgresMigrationCount, kMigrationCount);
  for (int i = 0; i < kMigrationCount; ++i) {
    EXPECT_EQ(kPostgresMigrations[i].version, kMigrations[i].version);
    EXPECT_STREQ(kPostgresMigrations[i].name, kMigrations[i].name);
  }
  auto version = (*a_->Prepare("SELECT max(version) FROM schema_version"))->OneInt();
  EXPECT_EQ(*version, LatestSchemaVersion());
  EXPECT_TRUE(Migrate(*a_).ok()) << "a second run finds nothing to do";
}

TEST_F(PostgresMigrationsTest, EveryTableLeadsWithTheNamespaceAndIsGuardedByRowLevelSecurity) {
  ASSERT_GT(*(*a_->Prepare(fmt::format("SELECT count(*) FROM ({}) t", kTables)))->OneInt(), 20);
  for (const auto& [rule, sql] : Rules()) {
    EXPECT_TRUE(Breaking(*a_, sql).empty()) << "tables without " << rule << ": "
                                           << ::testing::PrintToString(Breaking(*a_, sql));
  }
  // The checks find a table that breaks them (rolled back: no one else sees it).
  ASSERT_TRUE(a_->Exec("BEGIN; CREATE TABLE stray(id bigint, other bigint); "
                       "CREATE INDEX stray_other ON stray(other)")
                  .ok());
  for (const auto& [rule, sql] : Rules()) {
    if (std::string_view(rule).find("foreign key") != std::string_view::npos) continue;
    const auto found = Breaking(*a_, sql);
    EXPECT_FALSE(found.empty()) << rule;
    for (const std::string& f : found) EXPECT_EQ(f.rfind("stray", 0), 0u) << rule << ": " << f;
  }
  ASSERT_TRUE(a_->Exec("ROLLBACK").ok());
}

TEST_F(PostgresMigrationsTest, TheOnlyTablesOfTheWholeDatabaseAreTheVersionAndTheNamespaceList) {
  auto global = (*a_->Prepare("SELECT t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace "
                              "WHERE n.nspname = current_schema() AND t.relkind IN ('r', 'p') "
                              "AND NOT t.relrowsecurity ORDER BY 1"))
                    ->All([](const Statement& r) { return r.Text(0); });
  ASSERT_TRUE(global.ok()) << global.status().ToString();
  EXPECT_EQ(*global, (std::vector<std::string>{"namespaces", "schema_version"}));
}

TEST_F(PostgresMigrationsTest, ANamespaceNeitherSeesNorWritesAnothersRows) {
  auto created = MessageRepo(*a_).CreateConversation("trip", "Trip", 100);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(MessageRepo(*a_).FindConversation("trip")->has_value());
  EXPECT_FALSE(MessageRepo(*b_).FindConversation("trip")->has_value());
  EXPECT_FALSE(MessageRepo(*b_).GetConversation(created->id)->has_value());
  EXPECT_EQ(*MessageRepo(*b_).CountConversations(), 0);

  // The same external id in another namespace is another conversation, with
  // an id of its own.
  auto other = MessageRepo(*b_).CreateConversation("trip", "Other", 100);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_NE(other->id, created->id);

  // Naming another namespace does not get a row into it, nor moves one there.
  Status foreign = a_->Exec(fmt::format("INSERT INTO conversations(ns, external_id, created_at, updated_at) "
                                        "VALUES ('{}', 'sneaky', 0, 0)",
                                        b_->ns()));
  EXPECT_EQ(foreign.code(), Code::kPermissionDenied) << foreign.ToString();
  Status moved = a_->Exec(fmt::format("UPDATE conversations SET ns = '{}'", b_->ns()));
  EXPECT_EQ(moved.code(), Code::kPermissionDenied) << moved.ToString();
  // Nor can a row of one point at another's: keys carry the namespace.
  MessageRecord m;
  m.conversation_row = other->id;
  m.role = "user";
  m.content = "\"hi\"";
  m.text = "hi";
  m.content_hash = "h";
  m.source = "api";
  EXPECT_EQ(MessageRepo(*a_).Insert(m).code(), Code::kConflict);
  EXPECT_EQ(*MessageRepo(*b_).CountConversations(), 1);
}

}  // namespace
}  // namespace cilia::store
