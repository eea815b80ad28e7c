#!/usr/bin/env bash
# compopt's TCP ranks started by torchrun itself (python3 -m torch.distributed.run) with no
# compopt variable: the token comes from torchrun's run id; rank 0 listens on MASTER_PORT + 1
# beside torchrun's own store on MASTER_PORT (static rendezvous), or on MASTER_PORT when
# torchrun's store is elsewhere (--standalone). Skipped (exit 77) without torch
# (Debian's python3-torch; not among the packages scripts/install_deps.sh installs).
#   torchrun_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
if ! /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null; then
  skip "torch is not installed (apt-get install python3-torch)"
fi
cd "$WORK" || exit 1
unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT COMPOPT_JOB_TOKEN TORCHELASTIC_RUN_ID

# torchrun_job NAME TORCHRUN_FLAGS...: 2 workers of comm-bench; fp32 allreduce of 0.5 MB at 2
# ranks sends 2 (n-1)/n * 500000 = 500000 bytes per rank. Underscored flags and -r 1 -t 1
# (stdout to --log_dir and the console) are what torch 1.13 accepts on Python 3.11: its
# default -r 0 / -t 0 fail there (IntFlag iteration skips Std.NONE).
torchrun_job() {
  local name=$1
  shift
  timeout 120 /usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 "$@" -r 1 -t 1 \
    --log_dir "$WORK/logs-$name" --no_python "$BIN" comm-bench --backend tcp --sizes 0.5 \
    --variants allreduce-fp32 --iters 2 --overwrite --out "$WORK/$name" > "$name.log" 2>&1 \
    || fail "torchrun $name: $(cat "$name.log")"
  [ "$(awk -F, '$3 == "allreduce-fp32" { print $2 " " $8 }' "$WORK/$name/comm_bench.csv" 2>/dev/null)" = "2 500000" ] \
    || fail "torchrun $name: comm_bench.csv $(cat "$WORK/$name/comm_bench.csv" 2>&1)"
}

P=$(/usr/bin/python3 "$SRC/tests/cli/free_port_pair.py")
torchrun_job static --master_port "$P" --rdzv_id "secret-$RANDOM-$RANDOM"
grep -q "warning: job token derived from torchrun's default run id" static.log \
  && fail "a chosen run id was called the default: $(cat static.log)"
P=$(/usr/bin/python3 "$SRC/tests/cli/free_port_pair.py")
torchrun_job default --master_port "$P"
grep -q "warning: job token derived from torchrun's default run id 'none'" default.log \
  || fail "no warning about the public default run id: $(cat default.log)"
torchrun_job standalone --standalone

finish "all torchrun checks passed"
