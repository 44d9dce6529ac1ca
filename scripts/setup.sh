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
  npm  # fetches llama.cpp's source (below) for the local embedder
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

# llama.cpp's source, for `[embedding] kind = "local"` (docs/embedding.md): the npm package
# node-llama-cpp carries it as a git bundle. Pinned by version and by the tarball's sha512;
# unpacked into third_party/llama.cpp (git-ignored), once. A build without it:
# cmake --preset default -DCILIA_LOCAL_EMBEDDING=OFF.
llama_pkg=node-llama-cpp@3.22.1
# sha512 of the tarball, in hex (npm's "integrity" is the same digest in base64)
llama_sha512=6e5b488a9b9699cd76dc7eed30880318a4ac4ab866865418795502e3c5d38d55bb5c624988927209d95333343f2e25a83e4183a5c2f816f883a60c3ba9f4e20f
llama_dir=third_party/llama.cpp
if [ "$mode" = all ] || [ "$mode" = --build ]; then
  if [ "$(cat "$llama_dir/.cilia-pin" 2>/dev/null)" != "$llama_pkg $llama_sha512" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack "$llama_pkg" --silent >/dev/null)
    tarball=$(ls "$tmp"/*.tgz)
    got=$(sha512sum "$tarball" | cut -d" " -f1)
    if [ "$got" != "$llama_sha512" ]; then
      echo "setup: $llama_pkg's tarball has sha512 $got, not the pinned $llama_sha512" >&2
      rm -rf "$tmp"
      exit 1
    fi
    tar -xzf "$tarball" -C "$tmp" package/llama/gitRelease.bundle
    rm -rf "$llama_dir"
    mkdir -p "$(dirname "$llama_dir")"
    git -c advice.detachedHead=false clone --quiet "$tmp/package/llama/gitRelease.bundle" "$llama_dir"
    echo "$llama_pkg $llama_sha512" >"$llama_dir/.cilia-pin"
    rm -rf "$tmp"
  fi
fi

# End-to-end test clients, pinned in tests/e2e/package-lock.json.
if [ "$mode" = all ] && [ -f tests/e2e/package.json ]; then
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "setup: all dependencies present"
