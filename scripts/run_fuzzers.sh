#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, -fsanitize=fuzzer,address,undefined) and runs each
# for a fixed time on its seed corpus; prints one summary line per target and fails when a target
# found a crash (the reproducer is left in BUILD_DIR/artifacts/). `make fuzz` calls this.
#   scripts/run_fuzzers.sh [--build-dir DIR] [--seconds N] [--jobs N] [TARGET...]
# Installs clang and libFuzzer (Debian: clang, libclang-rt-14-dev) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build-fuzz
seconds=${FUZZ_SECONDS:-60}
jobs=$(nproc)
targets=()
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    -*) echo "run_fuzzers: unknown option '$1', expected --build-dir, --seconds or --jobs" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "run_fuzzers: --seconds '$seconds', expected an integer >= 1" >&2; exit 2; }

have_libfuzzer() {
  command -v clang++ >/dev/null &&
    [[ -n $(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null | grep /) ]] &&
    [[ -f $(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a) ]]
}
if ! have_libfuzzer; then
  echo "run_fuzzers: installing clang and libFuzzer (clang, libclang-rt-14-dev)"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev
  have_libfuzzer || { echo "run_fuzzers: libFuzzer still missing after the install" >&2; exit 1; }
fi

if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCOMPOPT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMPOPT_BUILD_BENCHMARKS=OFF -DCOMPOPT_CUDA=OFF
fi
cmake --build "$build_dir" -j "$jobs" --target compopt_fuzzers

if ((${#targets[@]} == 0)); then
  for f in fuzz/fuzz_*.cc; do
    name=$(basename "$f" .cc)
    [[ -x $build_dir/fuzz/$name ]] && targets+=("$name")
  done
fi

mkdir -p "$build_dir/artifacts" "$build_dir/fuzz-logs"
failed=0
printf '%-26s %8s %12s %10s %8s %8s  %s\n' target seconds executions exec/s corpus rss_mb result
for name in "${targets[@]}"; do
  bin=$build_dir/fuzz/$name
  [[ -x $bin ]] || { echo "run_fuzzers: no fuzzer '$name' in $build_dir/fuzz" >&2; exit 2; }
  corpus=$build_dir/corpus/$name  # grows across runs; the seeds stay read-only in fuzz/corpus
  mkdir -p "$corpus"
  log=$build_dir/fuzz-logs/$name.log
  result=ok
  # -rss_limit_mb / -malloc_limit_mb: an input that makes the code allocate > 1 GiB is a finding.
  if ! "$bin" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -timeout=10 -artifact_prefix="$build_dir/artifacts/$name-" \
      "$corpus" "fuzz/corpus/$name" >"$log" 2>&1; then
    result="FAILED (see $log, reproducer in $build_dir/artifacts/)"
    failed=1
  fi
  stat() { grep -m1 "^stat::$1:" "$log" | awk '{print $2}'; }
  printf '%-26s %8s %12s %10s %8s %8s  %s\n' "$name" "$seconds" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "$(find "$corpus" -type f | wc -l)" "$(stat peak_rss_mb)" "$result"
done
exit $failed
