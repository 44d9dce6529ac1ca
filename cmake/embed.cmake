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
