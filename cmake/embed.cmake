# Compiles every src/store/migrations/NNNN_*.sql into generated/migrations.cpp as
# an ordered table, so a binary carries its own schema history.
file(GLOB migration_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/store/migrations/*.sql)
list(SORT migration_files)
set(gen ${CMAKE_BINARY_DIR}/generated/migrations.cpp)
add_custom_command(
  OUTPUT ${gen}
  COMMAND ${CMAKE_COMMAND} -DOUT=${gen} -DFILES="${migration_files}" -P ${CMAKE_SOURCE_DIR}/cmake/gen_migrations.cmake
  DEPENDS ${migration_files} ${CMAKE_SOURCE_DIR}/cmake/gen_migrations.cmake
  COMMENT "Embedding SQL migrations")
