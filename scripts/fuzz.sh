#!/usr/bin/env bash
# Run the libFuzzer targets of the C++ readers (cpp/fuzz) for a given time each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: 60 s each, every target
#
# Builds them first in build/fuzz with clang-16 (-fsanitize=fuzzer,address,undefined; no
# Python, MPI or Clang frontend needed), seeds each corpus (build/fuzz/corpus/<target>) from
# valid files of the repository, and runs the target with `-max_total_time`. A crash, a leak,
# undefined behaviour or an exception other than parjava::Error stops the target and leaves
# the input in build/fuzz/crashes/<target>/; the script then exits 1. The corpora persist, so
# later runs go on from what earlier ones found. JOBS=n runs n workers per target.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
if ((${#TARGETS[@]} == 0)); then
  TARGETS=(fuzz_otf2 fuzz_goal fuzz_model_json fuzz_machine fuzz_estimates)
fi
BUILD=${FUZZ_BUILD:-build/fuzz}
CC_=${FUZZ_CC:-clang-16}
CXX_=${FUZZ_CXX:-clang++-16}
command -v "$CXX_" >/dev/null || { echo "fuzz.sh: $CXX_ not found (apt-get install clang-16)" >&2; exit 2; }
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, unsigned long) { return 0; }' |
    "$CXX_" -fsanitize=fuzzer,address -x c++ - -o /dev/null 2>/dev/null; then
  echo "fuzz.sh: $CXX_ cannot link libFuzzer with AddressSanitizer (apt-get install libclang-rt-16-dev)" >&2
  exit 2
fi

FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$CC_" -DCMAKE_CXX_COMPILER="$CXX_" \
    -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DPARJAVA_BUILD_FUZZERS=ON -DPARJAVA_BUILD_TESTS=OFF -DPARJAVA_BUILD_PYTHON=OFF \
    -DPARJAVA_WITH_MPI=OFF -DPARJAVA_WITH_CLANG=OFF "${LAUNCHER[@]}" >/dev/null
fi
cmake --build "$BUILD" --target "${TARGETS[@]}"

# Valid model and machine JSON come from the Python package of the development build.
python_seed() {
  PYTHONPATH=$PWD/python PARJAVA_BUILD_DIR=$PWD/build/dev/package python3 -c "$1" || {
    echo "fuzz.sh: no seed from the Python package (make build first); starting empty" >&2; }
}

# Seeds: valid inputs of each reader, in the target's input format.
seed() {
  local target=$1 dir="$BUILD/corpus/$1"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir")" ] && return
  case $target in
    fuzz_otf2)
      # Byte 0 chooses the file: anchor, global definitions, then traces/* sorted.
      local archive=tests/data/otf2/pipit-ping-pong i=0
      for f in "$archive/traces.otf2" "$archive/traces.def" $(ls "$archive"/traces/* | sort); do
        { printf "\\x$(printf %02x $i)"; cat "$f"; } >"$dir/seed-$i"
        i=$((i + 1))
      done ;;
    fuzz_goal)
      printf 'num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 5\nl2: recv 8b from 1 tag 6\nl3: calc 100 cpu 0\nl2 requires l1\nl3 irequires l2\n}\nrank 1 {\na: recv 8b from 0 tag 5\nb: send 8b to 0 tag 6\nb requires a\n}\n' >"$dir/seed-0" ;;
    fuzz_model_json)
      python_seed 'import parjava as pj
m = pj.Model("ring", params={"n": 64})
with m.loop("i", 0, "n"):
    m.compute("1e-6 * n")
    m.send("(rank + 1) % size", "8 * n")
    m.recv("(rank + size - 1) % size")
m.allreduce(8)
print(m.to_json(indent=None))' >"$dir/seed-0" ;;
    fuzz_machine)
      { printf '\x00'; python_seed 'import parjava as pj
print(pj.Machine.preset(pj.Machine.preset_names()[0]).to_json())'; } >"$dir/seed-json"
      { printf '\x01'; cat tests/data/machine/Predictor.par; } >"$dir/seed-par" ;;
    fuzz_estimates)
      { printf '\x02'; printf 'parjava-estimates 2\nclock rdtsc\nticks_per_second 2.5e9\nslots 3\nrun_seconds 0.5\ncalibration 40 49 8\nslot 0 10 2500 1.2e6 200 900 0 0 0 0 1:3 2:7\nslot 1 4 800 2e5 150 300 1 0 0 2\nslot 2 1 90 8100 90 90 0 0 0 0\nend\n'; } >"$dir/seed-0" ;;
  esac
}

status=0
for target in "${TARGETS[@]}"; do
  seed "$target"
  crashes="$BUILD/crashes/$target"
  mkdir -p "$crashes"
  echo "fuzz.sh: $target for ${SECONDS_EACH} s"
  parallel=()
  if [ "${JOBS:-1}" -gt 1 ]; then parallel=(-jobs="$JOBS" -workers="$JOBS"); fi
  # An allocation above 2 GB fails as it would on a machine without that memory: malloc
  # returns NULL (the OTF2 library asks for 16 GB on some damaged event files and then reports
  # the damage), operator new throws std::bad_alloc (which the targets do not catch, so a
  # reader of ours that trusts a size from its input is still reported).
  if ! LSAN_OPTIONS=suppressions=$PWD/scripts/sanitize/lsan.supp:print_suppressions=0 \
      ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=2048 \
      "$BUILD/cpp/fuzz/$target" -max_total_time="$SECONDS_EACH" -timeout=10 \
      -rss_limit_mb=4096 -malloc_limit_mb=4096 \
      "${parallel[@]}" -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$BUILD/corpus/$target" 2>"$BUILD/$target.log"; then
    echo "fuzz.sh: $target FAILED; input(s) in $crashes, log in $BUILD/$target.log" >&2
    tail -40 "$BUILD/$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$BUILD/$target.log" | tr '\n' ' '
    echo
  fi
done
exit $status
