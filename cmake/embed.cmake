# Compiles every src/store/migrations/NNNN_*.sql (SQLite) and
# src/store/migrations/postgres/NNNN_*.sql (the same numbers in PostgreSQL's
# dialect) into generated/ as ordered tables, so a binary carries its own
# schema history.
function(cilia_embed_migrations dir table count out)
  file(GLOB files CONFIGURE_DEPENDS ${dir}/*.sql)
  list(SORT files)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DTABLE=${table} -DCOUNT=${count} -DFILES="${files}"
            -P ${CMAKE_SOURCE_DIR}/cmake/gen_migrations.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/gen_migrations.cmake
    COMMENT "Embedding SQL migrations (${table})")
endfunction()
cilia_embed_migrations(${CMAKE_SOURCE_DIR}/src/store/migrations kMigrations kMigrationCount
                       ${CMAKE_BINARY_DIR}/generated/migrations.cpp)
cilia_embed_migrations(${CMAKE_SOURCE_DIR}/src/store/migrations/postgres kPostgresMigrations kPostgresMigrationCount
                       ${CMAKE_BINARY_DIR}/generated/postgres_migrations.cpp)

# Compiles every file under web/admin/ into generated/admin_assets.cpp (bytes,
# size and a content hash for the ETag), so `cilia serve` carries its admin
# page and works offline. See src/api/admin_assets.h.
file(GLOB_RECURSE admin_asset_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/web/admin/*)
list(SORT admin_asset_files)
set(admin_assets_gen ${CMAKE_BINARY_DIR}/generated/admin_assets.cpp)
add_custom_command(
  OUTPUT ${admin_assets_gen}
  COMMAND ${CMAKE_COMMAND} -DOUT=${admin_assets_gen} -DROOT=${CMAKE_SOURCE_DIR}/web/admin
          -DFILES="${admin_asset_files}" -P ${CMAKE_SOURCE_DIR}/cmake/gen_assets.cmake
  DEPENDS ${admin_asset_files} ${CMAKE_SOURCE_DIR}/cmake/gen_assets.cmake
  COMMENT "Embedding the admin page")

# docs/openapi.json (the REST API's description, served at GET /openapi.json)
# the same way, as the one-entry table kOpenApiFiles.
set(openapi_file ${CMAKE_SOURCE_DIR}/docs/openapi.json)
set(openapi_gen ${CMAKE_BINARY_DIR}/generated/openapi_file.cpp)
add_custom_command(
  OUTPUT ${openapi_gen}
  COMMAND ${CMAKE_COMMAND} -DOUT=${openapi_gen} -DROOT=${CMAKE_SOURCE_DIR}/docs -DNAME=OpenApiFile
          -DFILES="${openapi_file}" -P ${CMAKE_SOURCE_DIR}/cmake/gen_assets.cmake
  DEPENDS ${openapi_file} ${CMAKE_SOURCE_DIR}/cmake/gen_assets.cmake
  COMMENT "Embedding the OpenAPI description")
