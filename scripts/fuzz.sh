#!/usr/bin/env bash
# Builds the fuzz targets of the asan preset (clang, libFuzzer, ASan/UBSan,
# build-asan/; the unit tests of `make asan` share that build) and runs every target
# of tests/fuzz for SECONDS each (default 10), seeded from the committed
# corpus tests/fuzz/corpus/<target>/. New inputs go to build-asan/fuzz-corpus/,
# never into the committed seeds; a crash leaves its input in
# build-asan/findings/<target>/ and fails the run.
#   scripts/fuzz.sh            # every target, 10 s each (CI)
#   scripts/fuzz.sh 600 sse    # one target, ten minutes
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
cmake --preset asan >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$src" _fuzz.cpp)"); done
fi
ninja -C build-asan "${targets[@]/%/_fuzz}"
passed=0
failed=0
for t in "${targets[@]}"; do
  work="build-asan/fuzz-corpus/$t"
  findings="build-asan/findings/$t"
  mkdir -p "$work" "$findings"
  log="build-asan/fuzz-$t.log"
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "build-asan/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$findings/" -print_final_stats=1 "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    passed=$((passed + 1))
    stats=$(grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" | awk '{printf "%s ", $2}')
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
    echo "fuzz $t: ok (${seconds}s; executions, new units: ${stats}; ${cov})"
  else
    failed=$((failed + 1))
    echo "fuzz $t: FAILED, see $log and $findings/"
    grep -E 'ERROR|invariant|SUMMARY' "$log" | head -5 || true
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
