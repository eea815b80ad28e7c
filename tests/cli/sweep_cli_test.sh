#!/usr/bin/env bash
# `compopt sweep` end to end on a small grid (3 optimizers x 2 GPU counts x 2 bandwidths):
# the speedup table it prints agrees with the sweep.csv it writes; under mpirun with 1, 2 and 3
# ranks sweep.csv is byte-identical to the serial one and run.json records the rank count; bad
# input fails on every rank with exit code 2; a scenario failing on one rank ends the whole job
# with its error. A build without MPI must refuse an mpirun sweep (exit 2). Without mpirun the
# MPI part is skipped (exit code 77).
#   sweep_cli_test.sh COMPOPT_BINARY MPIEXEC_OR_EMPTY HAVE_MPI(0|1)
set -uo pipefail
MPIEXEC=${2:-}
HAVE_MPI=${3:-0}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK PMI_SIZE PMI_RANK  # a plain run first
cd "$WORK" || exit 1

cat > small.toml <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
[sweep]
optimizers = ["adam", "onebit-adam", "birder"]
gpus = [8, 16]
inter_node_gbps = [40, 160]
TOML

timeout 120 "$BIN" sweep small.toml --jobs 2 --out serial > serial.log 2>&1 \
  || fail "serial sweep failed: $(tail -3 serial.log)"
[ "$(wc -l < serial/sweep.csv)" -eq 17 ] || fail "sweep.csv: $(wc -l < serial/sweep.csv) lines, expected 1 + 4 x (1 + 2 + 1)"
grep -q '"ranks": 1' serial/run.json || fail "serial run.json lacks \"ranks\": 1"

# The table: one line per (gpus, bandwidth) group, in sweep.csv's order; adam's step time in
# ms and onebit-adam's compression stage with its speedup, both recomputed here from the CSV.
grep -q "speedup against: adam for onebit-adam, birder (registry baselines)" serial.log \
  || fail "table header lacks the baseline: $(cat serial.log)"
grep -q "onebit-adam: compression stage (steady state)" serial.log \
  || fail "table header lacks onebit-adam's stage"
expected=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  { key = $col["gpus"] " " $col["inter_node_gbit_s"]; t = $col["step_time_s"] }
  $col["optimizer"] == "adam" { adam[key] = t; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
  $col["optimizer"] == "onebit-adam" && $col["stage"] == "compression" { onebit[key] = t }
  END { for (k = 0; k < n; ++k) { key = order[k]
    printf "%s %.2fx\n", key, adam[key] / onebit[key] } }' serial/sweep.csv)
actual=$(awk '$1 == "gpus" && $2 == "Gbit/s" { table = 1; next } table && NF == 0 { exit }
  table { match($0, /[(][0-9.]+x[)]/); print $1, $2, substr($0, RSTART + 1, RLENGTH - 2) }' \
  serial.log)
[ -n "$expected" ] && [ "$actual" = "$expected" ] \
  || fail "table speedups: got '$actual', expected from sweep.csv '$expected'"
rows=$(awk '$1 == "gpus" && $2 == "Gbit/s" { table = 1; next } table && NF == 0 { exit }
  table' serial.log | wc -l)
[ "$rows" -eq 4 ] || fail "table: $rows group lines, expected 4"

if [ -z "$MPIEXEC" ] || ! command -v "$MPIEXEC" > /dev/null; then
  skip "mpirun not found, the MPI sweep is not tested"
fi
MPI=(timeout 120 "$MPIEXEC")
"$MPIEXEC" --version 2>/dev/null | grep -q "Open MPI" && MPI+=(--oversubscribe --allow-run-as-root)

if [ "$HAVE_MPI" != 1 ]; then
  expect_exit 2 -- "${MPI[@]}" -n 2 "$BIN" sweep small.toml --out nompi  # without the MPI build
  expect_contains "refusal message" "needs a compopt built with MPI" "$OUTPUT"
  finish "PASS (this build has no MPI: the refusal was tested)"
fi

for n in 1 2 3; do
  "${MPI[@]}" -n $n "$BIN" sweep small.toml --jobs 1 --out mpi$n > mpi$n.log 2>&1 \
    || fail "mpirun -n $n sweep failed: $(tail -5 mpi$n.log)"
  cmp -s serial/sweep.csv mpi$n/sweep.csv || fail "mpirun -n $n: sweep.csv differs from the serial one"
  grep -q "\"ranks\": $n" mpi$n/run.json || fail "mpirun -n $n: run.json lacks \"ranks\": $n"
  grep -q "wrote mpi$n/sweep.csv" mpi$n.log || fail "mpirun -n $n: no 'wrote' line"
  [ "$(grep -c '^wrote ' mpi$n.log)" -eq 1 ] || fail "mpirun -n $n: more than rank 0 wrote"
done
# More ranks than scenarios: the idle ranks still take part.
"${MPI[@]}" -n 3 "$BIN" sweep small.toml --set 'sweep.optimizers=["adam"]' --set sweep.gpus=[8] \
  --out few > few.log 2>&1 || fail "3 ranks, 2 scenarios: $(tail -5 few.log)"
[ "$(wc -l < few/sweep.csv)" -eq 3 ] || fail "3 ranks, 2 scenarios: sweep.csv has $(wc -l < few/sweep.csv) lines"

# Bad input: every rank exits 2 (each reports through the wrapper, which exits 0 so that mpirun
# does not stop the others first), and nothing is created.
"${MPI[@]}" -n 3 bash -c '"$0" sweep small.toml --set sweep.optimizers=[\"adamw\"] --out bad \
  > bad.$OMPI_COMM_WORLD_RANK$PMI_RANK.log 2>&1; echo $? > rc.$OMPI_COMM_WORLD_RANK$PMI_RANK' \
  "$BIN" > wrapper.log 2>&1 || fail "bad input wrapper under mpirun: $(tail -5 wrapper.log)"
[ "$(cat rc.* 2>/dev/null | tr '\n' ' ')" = "2 2 2 " ] \
  || fail "bad input: exit codes of the ranks '$(cat rc.* 2>/dev/null | tr '\n' ' ')', expected 2 2 2"
[ "$(grep -l "adamw" bad.*.log | wc -l)" -eq 3 ] || fail "bad input: not every rank named adamw"
[ ! -e bad ] || fail "bad input created the run directory"
# And directly: mpirun itself exits 2, within the timeout.
expect_exit 2 -- "${MPI[@]}" -n 2 "$BIN" sweep small.toml --set sweep.gpus=[7] --out bad

# A scenario failing on one rank: the platform file has 2 hosts, so 2 GPUs (scenario 1, rank 0)
# work and 4 GPUs (scenario 2, rank 1) fail; the job ends with that error, without a hang.
cat > two.xml <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
<link id="l" bandwidth="1GBps" latency="1ms"/>
<route src="a" dst="b"><link_ctn id="l"/></route></zone></platform>
XML
cat > fails.toml <<TOML
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
platform = "$WORK/two.xml"
gpus_per_node = 1
[sweep]
optimizers = ["adam"]
gpus = [2, 4]
TOML
"${MPI[@]}" -n 2 "$BIN" sweep fails.toml --out failed > failed.log 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "failing scenario under mpirun: exit $rc (124: it hung)"
grep -q "scenario 2 (adam on 4 GPUs) failed: platform file .* has 2 hosts" failed.log \
  || fail "failing scenario: message: $(cat failed.log)"

finish "PASS"
