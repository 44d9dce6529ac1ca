// The admin page's files (web/admin/), compiled into the binary by
// cmake/gen_assets.cmake, so the page needs no CDN and works offline.
#pragma once

#include <cstddef>

namespace cilia::api {

struct AdminAsset {
  const char* path;  // relative to web/admin/, e.g. "index.html", "views/today.js"
  const unsigned char* data;
  size_t size;
  const char* hash;  // hex SHA-256 prefix of the bytes, the ETag's value
};

extern const AdminAsset kAdminAssets[];
extern const size_t kAdminAssetCount;

// docs/openapi.json, embedded by the same script: one entry (api/openapi.h).
extern const AdminAsset kOpenApiFiles[];
extern const size_t kOpenApiFileCount;

}  // namespace cilia::api
