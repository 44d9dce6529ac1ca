#!/usr/bin/env bash
# Installs everything cilia's build and tests need on Debian 12. Idempotent:
# packages already present are left as they are.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  libsqlite3-dev sqlite3 libcurl4-openssl-dev libssl-dev
  libcpp-httplib-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev
  libicu-dev libhnswlib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  nodejs npm
  chromium fonts-noto-cjk  # the admin page's end-to-end tests (playwright-core drives it)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node 20 may come from elsewhere than Debian (as on the CI machines); only
# ask apt for nodejs/npm when no node is on the PATH at all.
if command -v node >/dev/null 2>&1; then
  filtered=()
  for p in "${missing[@]}"; do [[ "$p" == nodejs || "$p" == npm ]] || filtered+=("$p"); done
  missing=("${filtered[@]}")
fi

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# End-to-end test clients, pinned in tests/e2e/package-lock.json.
if [ -f tests/e2e/package.json ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: all dependencies present"
