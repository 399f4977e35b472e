#!/usr/bin/env bash
# Fuzzes vzplan's readers and planner on untrusted bytes with cargo-fuzz (libFuzzer), each target
# for a bounded time, one after another:
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s; targets: all five)
# Seeds come from testdata/. A panic, a hang (> 10 s on one input) or memory past 2 GiB is a
# failure; every such input is copied to testdata/fuzz-regressions/<target>/, which the normal test
# suite replays (crates/vzplan-fuzzing/tests/fuzz_regressions.rs). Keep those files small.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); nightly features come from RUSTC_BOOTSTRAP=1 on
# the stable toolchain. Exit status 1 when any target found something.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hdf5 netcdf3 tiff dmrpp layouts pipeline)
# Only cargo-fuzz gets RUSTC_BOOTSTRAP: set for the cli build it would invalidate the normal build cache.
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz missing: cargo install cargo-fuzz" >&2; exit 2; }

corpus=fuzz/corpus
sep='#VZSPLIT#'   # vzplan_fuzzing::SPLIT: separates the files of one pipeline input

seed() {  # seed TARGET FILE...: copies files into the target's corpus
  local t=$1; shift
  mkdir -p "$corpus/$t"
  for f in "$@"; do cp "$f" "$corpus/$t/$(echo "$f" | tr / _)"; done
}
join_files() {  # join_files OUT FILE...: one pipeline input holding the files
  local out=$1; shift
  : > "$out"
  local first=1
  for f in "$@"; do
    [ $first = 1 ] || printf '%s' "$sep" >> "$out"
    cat "$f" >> "$out"; first=0
  done
}

echo "== seeding corpora from testdata/"
seed hdf5 testdata/hdf5/*.h5 testdata/hdf5/*.nc testdata/hdf5/chunks/*.h5 testdata/collections/*/*.nc
seed netcdf3 testdata/netcdf3/*.nc testdata/collections/nc3_records/*.nc
seed tiff testdata/tiff/*.tif testdata/collections/tiff_stack/*.tif testdata/mosaic/*/*.tif
seed dmrpp testdata/dmrpp/*.dmrpp
# VZPLAN_BIN: an already built vzplan binary to seed the layouts with (default: build it).
vzplan=${VZPLAN_BIN:-}
if [ -z "$vzplan" ]; then cargo build --quiet -p vzplan-cli; vzplan=target/debug/vzplan; fi
mkdir -p "$corpus/layouts" "$corpus/pipeline"
for d in testdata/collections/*/ testdata/mosaic/*/; do
  files=("$d"*.nc "$d"*.tif)
  files=($(ls "${files[@]}" 2>/dev/null | head -3)) || true
  [ ${#files[@]} -gt 0 ] || continue
  name=$(basename "$d")
  # Layouts as `vzplan scan` writes them (exit 3 when some file failed is fine).
  "$vzplan" scan "${files[@]}" -o "$corpus/layouts/$name.jsonl" 2>/dev/null || true
  join_files "$corpus/pipeline/$name" "${files[@]}"
done
join_files "$corpus/pipeline/nc3_series" testdata/netcdf3/series_*.nc
# Both chunk-table forms: columns (what scan writes now) and the entry objects of older lines.
for form in columns entries; do
  python3 scripts/fixtures/layouts.py --files 3 --chunks 4 --ny 2 --nx 3 --form $form \
    -o "$corpus/layouts/gen_$form.jsonl"
done

found=0
for t in "${targets[@]}"; do
  echo "== fuzzing $t for ${secs}s"
  art=fuzz/artifacts/$t
  mkdir -p "$art"
  # -a: overflow and debug assertions on, as in the test suite. -s none: safe Rust; the memory
  # cap comes from vzplan_fuzzing::CappedAlloc and -rss_limit_mb. Fork mode keeps going past a
  # finding so one run reports them all.
  (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -a -s none "$t" "corpus/$t" -- \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -artifact_prefix="artifacts/$t/" -print_final_stats=1) 2>&1 | tee "fuzz/$t.log" | \
    grep -E '^#[0-9]+.*(DONE|exec/s)|INFO: fuzzed|crash-|timeout-|oom-|stat::' | tail -5 || true
  # A target that did not build or start fuzzed nothing: that is a failure, not "no findings".
  if ! grep -q -E 'stat::number_of_executed_units|INFO: fuzzed for' "fuzz/$t.log"; then
    echo "== $t did not run (see fuzz/$t.log)" >&2
    found=1
  fi
  shopt -s nullglob
  for a in "$art"/crash-* "$art"/timeout-* "$art"/oom-*; do
    mkdir -p "testdata/fuzz-regressions/$t"
    dest="testdata/fuzz-regressions/$t/$(basename "$a")"
    if [ ! -e "$dest" ]; then
      cp "$a" "$dest"
      echo "!! $t: $(basename "$a") ($(stat -c %s "$a") bytes) -> $dest"
      found=1
    fi
  done
  shopt -u nullglob
done
[ $found = 0 ] || { echo "new findings kept under testdata/fuzz-regressions/; fix them, then"
  echo "cargo test -p vzplan-fuzzing replays them"; exit 1; }
echo "no new findings"
