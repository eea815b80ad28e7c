#!/usr/bin/env bash
# The compopt profile, sweep, train and validate command lines that README.md and docs/*.md
# show (tests/cli/doc_commands.py extracts them) run as written and exit 0:
# each in a fresh directory holding the repository's experiments/ and data/, with
# build/experiments/compopt and `compopt` both this build. `compopt train` runs 2 steps
# (--set run.steps=2 appended); sweeps and profiles run at the size written; a Fashion-MNIST
# run is skipped without its data set. The test first shows that it catches a broken line:
# a document whose one command fails must fail it.
#   doc_examples_cli_test.sh COMPOPT_BINARY SOURCE_DIR [DOC.md...]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$(realpath "$2")
shift 2
DOCS=("$@")
least=1  # commands expected at least: the repository's documents show many
[ ${#DOCS[@]} -gt 0 ] || { DOCS=("$SRC/README.md" "$SRC"/docs/*.md); least=10; }
FMNIST=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
EXTRACT=(/usr/bin/python3 "$SRC/tests/cli/doc_commands.py")
mkdir -p "$WORK/bin"
ln -s "$BIN" "$WORK/bin/compopt"

# run_doc_commands DOC...: runs every command of the documents; prints "ok"/"FAILED" lines
# with the time each took, and exits 1 when one failed (0 with no command at all).
run_doc_commands() {
  local n=0 bad=0 command dir start rc
  while IFS= read -r command; do
    if [[ $command == *fmnist* && ! -f $FMNIST ]]; then
      echo "skipped (no Fashion-MNIST data set, apt-get install dataset-fashion-mnist): $command"
      continue
    fi
    n=$((n + 1))
    dir=$(mktemp -d "$WORK/run.XXXXXX")
    mkdir -p "$dir/build/experiments"
    ln -s "$SRC/experiments" "$dir/experiments"
    ln -s "$SRC/data" "$dir/data"
    ln -s "$BIN" "$dir/build/experiments/compopt"
    [[ $command == *compopt\ train\ * ]] && command+=" --set run.steps=2"
    start=$SECONDS
    # `enable -n compopt`: bash has a builtin of that name (programmable completion), which
    # would shadow the program on PATH.
    (cd "$dir" && PATH="$WORK/bin:$PATH" timeout 120 bash -c "enable -n compopt; $command") \
      > "$dir.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
      echo "ok ($((SECONDS - start)) s): $command"
    else
      echo "FAILED (exit $rc): $command"
      tail -5 "$dir.log" | sed 's/^/    /'
      bad=$((bad + 1))
    fi
  done < <("${EXTRACT[@]}" "$@" | awk '!seen[$0]++')
  echo "$n command(s), $bad failed"
  [ $bad -eq 0 ]
}

# A broken line is caught: one good command (inline, across a line break), one bad (an
# overlap mode that does not exist); a template and a bare name, which would fail, are not run.
cat > "$WORK/broken.md" <<'MD'
Profile with `compopt profile --gpus 8
--out good`, or `compopt train CONFIG [--set key=value]` with `compopt sweep`:

```sh
build/experiments/compopt profile --gpus 8 --overlap sometimes \
  --out bad
```
MD
expect_exit 1 -- run_doc_commands "$WORK/broken.md"
expect_contains "the broken document" "ok (" "$OUTPUT"
expect_contains "the broken document" \
  "FAILED (exit 2): build/experiments/compopt profile --gpus 8 --overlap sometimes --out bad" "$OUTPUT"
expect_contains "the broken document" "2 command(s), 1 failed" "$OUTPUT"

count=$("${EXTRACT[@]}" "${DOCS[@]}" | awk '!seen[$0]++' | grep -c .)
[ "$count" -ge "$least" ] || fail "only $count command(s) found in ${DOCS[*]}: the extractor misses them"
run_doc_commands "${DOCS[@]}" || fail "a documented command does not run as written (FAILED above)"
finish "the documents' commands run as written"
