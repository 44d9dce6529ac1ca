#!/usr/bin/env bash
# Installs everything cilia's build and tests need on Debian 12. Idempotent:
# packages already present are left as they are.
#   bash scripts/setup.sh                 everything, and the e2e test clients (npm)
#   bash scripts/setup.sh --build         only what building build/cilia needs
#   bash scripts/setup.sh --runtime       only what running it needs (the Dockerfile's runtime stage)
#   bash scripts/setup.sh --list GROUP    print a group's packages (build, runtime, test), install nothing
set -euo pipefail

# What build/cilia links (`ldd build/cilia`); tests/e2e/package.test.mjs checks that the .deb's
# computed Depends are all here. ca-certificates: https upstreams.
runtime=(
  libc6 libgcc-s1 libstdc++6
  libsqlite3-0 libpq5 libcurl4 libssl3 libcpp-httplib0.11 libtomlplusplus3 libfmt9 libicu72
  ca-certificates
)
build=(
  build-essential cmake ninja-build pkg-config ccache git
  libsqlite3-dev libpq-dev libcurl4-openssl-dev libssl-dev
  libcpp-httplib-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev
  libicu-dev libhnswlib-dev
  dpkg-dev  # dpkg-shlibdeps: the .deb's Depends (cmake/packaging.cmake)
)
test=(
  sqlite3
  postgresql-15  # scripts/pg-test.sh: the store tests on PostgreSQL
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  nodejs npm
  chromium fonts-noto-cjk  # the admin page's end-to-end tests (playwright-core drives it)
)

mode=${1:-all}
case "$mode" in
  --list)
    group=${2:-}
    case "$group" in
      runtime) printf '%s\n' "${runtime[@]}" ;;
      build) printf '%s\n' "${build[@]}" ;;
      test) printf '%s\n' "${test[@]}" ;;
      *) echo "usage: setup.sh --list build|runtime|test" >&2; exit 2 ;;
    esac
    exit 0
    ;;
  --runtime) packages=("${runtime[@]}") ;;
  --build) packages=("${build[@]}") ;;
  all) packages=("${runtime[@]}" "${build[@]}" "${test[@]}") ;;
  *) echo "usage: setup.sh [--build|--runtime|--list GROUP]" >&2; exit 2 ;;
esac

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
if [ "$mode" = all ] && [ -f tests/e2e/package.json ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: all dependencies present"
