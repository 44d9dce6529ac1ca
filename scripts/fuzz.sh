#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan/UBSan) and runs every target
# of tests/fuzz for SECONDS each (default 10), seeded from the committed
# corpus tests/fuzz/corpus/<target>/. New inputs go to build-fuzz/corpus/,
# never into the committed seeds; a crash leaves its input in
# build-fuzz/findings/<target>/ and fails the run.
#   scripts/fuzz.sh            # every target, 10 s each (CI)
#   scripts/fuzz.sh 600 sse    # one target, ten minutes
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
cmake --preset fuzz >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$src" _fuzz.cpp)"); done
fi
ninja -C build-fuzz "${targets[@]/%/_fuzz}"
passed=0
failed=0
for t in "${targets[@]}"; do
  work="build-fuzz/corpus/$t"
  findings="build-fuzz/findings/$t"
  mkdir -p "$work" "$findings"
  log="build-fuzz/fuzz-$t.log"
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "build-fuzz/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
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
