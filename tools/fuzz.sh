#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of the C++ core under AddressSanitizer
# and UndefinedBehaviorSanitizer.
#
#   tools/fuzz.sh [seconds_per_target]     (default 25)
#
# Targets: cpp/fuzz/ctf_fuzz.cc (CTF indexer + parser),
# cpp/fuzz/randomizer_fuzz.cc (block randomizer), cpp/fuzz/engine_fuzz.cc (the engine's
# walk, locate, first-fit, gather and assemble kernels), cpp/fuzz/text_fuzz.cc
# (nmt text kernels + tf.data shuffle and interleave orders), cpp/fuzz/image_fuzz.cc (PNG
# decoder), cpp/fuzz/tfrecord_fuzz.cc
# (TFRecord framing, CRC-32C, tf.train.Example decoding; seeds in
# cpp/fuzz/corpus_tfrecord/) and cpp/fuzz/htk_fuzz.cc (SCP, MLF, HTK headers,
# frame reads, context gather; seeds in cpp/fuzz/corpus_htk/). They run at the same time,
# so the default finishes in well under a minute. Binaries, logs and crash
# artifacts go to fuzz-build/ (git-ignored); the corpus lives in a temporary
# folder seeded from cpp/fuzz/corpus/ and the CNTK reader test files shipped in
# tests/data/cntk-ctf/. Exits non-zero when a target crashes,
# traps, leaks, times out or fails to build.
#
# Environment: FUZZ_CXX (default clang++), FUZZ_CXXFLAGS (extra compiler flags),
# FUZZ_EXTRA_ARGS (extra libFuzzer flags).
set -euo pipefail

seconds="${1:-25}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: tools/fuzz.sh [seconds_per_target]   (a positive integer, default 25)" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

cxx="${FUZZ_CXX:-clang++}"
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz.sh: error: '$cxx' not found. The fuzz targets need clang with libFuzzer and the" >&2
  echo "sanitizer runtimes, e.g. 'apt-get install clang libclang-rt-dev' (Debian/Ubuntu:" >&2
  echo "clang-14 + libclang-rt-14-dev), or set FUZZ_CXX to a clang++ binary." >&2
  exit 2
fi

build="fuzz-build"
mkdir -p "$build/artifacts"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -fno-omit-frame-pointer -I cpp)
# shellcheck disable=SC2206
flags+=(${FUZZ_CXXFLAGS:-})

targets=(ctf_fuzz randomizer_fuzz engine_fuzz text_fuzz tfrecord_fuzz htk_fuzz image_fuzz)
declare -A sources=(
  [ctf_fuzz]="cpp/fuzz/ctf_fuzz.cc cpp/ctf/indexer.cc cpp/ctf/parser.cc"
  [randomizer_fuzz]="cpp/fuzz/randomizer_fuzz.cc cpp/engine/block_randomizer.cc"
  [text_fuzz]="cpp/fuzz/text_fuzz.cc cpp/text/tokens.cc cpp/tfdata/shuffle.cc cpp/tfdata/interleave.cc"
  [tfrecord_fuzz]="cpp/fuzz/tfrecord_fuzz.cc cpp/tfrecord/crc32c.cc cpp/tfrecord/records.cc cpp/tfrecord/example.cc cpp/tfrecord/example_sequence.cc"
  [htk_fuzz]="cpp/fuzz/htk_fuzz.cc cpp/htk/scp.cc cpp/htk/mlf.cc cpp/htk/features.cc cpp/engine/gather.cc"
  [engine_fuzz]="cpp/fuzz/engine_fuzz.cc cpp/engine/select.cc cpp/engine/gather.cc cpp/engine/assemble.cc"
  [image_fuzz]="cpp/fuzz/image_fuzz.cc cpp/image/png.cc -lz"
)

echo "fuzz.sh: building with $("$cxx" --version | head -n 1)"
declare -A pids=()
for t in "${targets[@]}"; do
  # shellcheck disable=SC2086
  "$cxx" "${flags[@]}" ${sources[$t]} -o "$build/$t" >"$build/$t.build.log" 2>&1 &
  pids[$t]=$!
done
build_failed=0
for t in "${targets[@]}"; do
  if ! wait "${pids[$t]}"; then
    build_failed=1
    echo "fuzz.sh: error: building $t failed:" >&2
    cat "$build/$t.build.log" >&2
    if grep -q "libclang_rt\|cannot find.*fuzzer\|asan" "$build/$t.build.log"; then
      echo "fuzz.sh: hint: the libFuzzer/sanitizer runtimes are missing (libclang-rt-NN-dev)." >&2
    fi
  fi
done
[ "$build_failed" -eq 0 ] || exit 1

work="$(mktemp -d "${TMPDIR:-/tmp}/minibatcher-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ctf_fuzz" "$work/randomizer_fuzz" "$work/engine_fuzz" "$work/text_fuzz" "$work/tfrecord_fuzz" "$work/htk_fuzz" "$work/image_fuzz"
printf '\x03\x02\x80\x00\x01\x02\x03\x04\x05\x01\x07\x08\x09\x0a\x0b\x02\x0d\x0e\x0f\x10\x11' >"$work/image_fuzz/seed"
printf '\x13\x00\x00\x00\x00\x00\x00\x00\x07a  b\tc\r\n\n<s> \xc3\xa9 a\n  \nb a' >"$work/text_fuzz/seed"
cp cpp/fuzz/corpus_tfrecord/* "$work/tfrecord_fuzz/"
cp cpp/fuzz/corpus_htk/* "$work/htk_fuzz/"

# Seed corpus: the hand-written inputs (8-byte option header + file) ...
cp cpp/fuzz/corpus/* "$work/ctf_fuzz/"
# ... and the CNTK reader test files, raw (their first bytes become the
# options) and behind two headers that name their streams (F0/F1/F2 and F/L).
cntk="$root/tests/data/cntk-ctf/Tests/UnitTests/ReaderTests/Data/CNTKTextFormatReader"
cntk_count=0
if [ -d "$cntk" ]; then
  for f in "$cntk"/*.txt; do
    [ -f "$f" ] || continue
    name="$(basename "$f" .txt)"
    head -c 4088 "$f" >"$work/ctf_fuzz/cntk-raw-$name"
    { printf '\x90\x02\x0c\x04\x0c\xe0\x3a\x00'; head -c 4088 "$f"; } >"$work/ctf_fuzz/cntk-F012-$name"
    { printf '\xa0\x01\x01\x01\x00\xe0\x3a\x00'; head -c 4088 "$f"; } >"$work/ctf_fuzz/cntk-FL-$name"
    cntk_count=$((cntk_count + 1))
  done
fi
echo "fuzz.sh: corpus: $(ls cpp/fuzz/corpus | wc -l) seeds from cpp/fuzz/corpus, $cntk_count CNTK files"

# Tokens of the format, for the mutator.
cat >"$work/ctf.dict" <<'EOF'
"|"
"|#"
":"
"\x0a"
"\x0d\x0a"
"\x09"
" |a "
" |b "
" |c "
"|F0 "
"|F1 "
"|F "
"|L "
"|features "
"e+"
"e-"
"E-308"
"e38"
"inf"
"-inf"
"nan"
"0."
".5"
"2147483648"
"2147483647"
"9223372036854775807"
"18446744073709551616"
"\xef\xbb\xbf"
"\xff\xfe"
EOF

common=(-max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1)
# shellcheck disable=SC2206
extra=(${FUZZ_EXTRA_ARGS:-})

echo "fuzz.sh: running ${targets[*]} for ${seconds}s each (in parallel)"
for t in "${targets[@]}"; do
  args=("${common[@]}" -artifact_prefix="$build/artifacts/$t-")
  [ "$t" = ctf_fuzz ] && args+=(-dict="$work/ctf.dict")
  "$build/$t" "${args[@]}" "${extra[@]}" "$work/$t" >"$build/$t.log" 2>&1 &
  pids[$t]=$!
done

status=0
for t in "${targets[@]}"; do
  rc=0
  wait "${pids[$t]}" || rc=$?
  log="$build/$t.log"
  if [ "$rc" -ne 0 ] || grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$log"; then
    status=1
    echo "fuzz.sh: FAIL: $t exited with status $rc. Log: $log" >&2
    grep -E "ERROR:|SUMMARY:|runtime error:|Test unit written|^    #[0-9]+ " "$log" | head -n 40 >&2 || true
    echo "fuzz.sh: reproduce with: $build/$t <artifact>   (artifacts in $build/artifacts/)" >&2
  else
    done_line="$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -n 1 || true)"
    echo "fuzz.sh: ok:   $t  ${done_line:-(no DONE line)}"
  fi
done
if [ "$status" -eq 0 ]; then
  echo "fuzz.sh: all targets passed"
fi
exit "$status"
