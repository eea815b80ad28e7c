#!/usr/bin/env bash
# The top level of compopt: `--version`, bare `compopt` (help, exit 0), help texts that list
# the registries and `validate`'s checks, the hidden `list` utility, and `profile --set` with
# the keys of a sweep config (gpus_per_node and its alias ranks_per_node, as --set key and as
# flag).
#   help_version_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
# has NAME WANT TEXT: TEXT contains the fixed string WANT.
has() { grep -qF -- "$2" <<<"$3" || fail "$1: output lacks '$2': $(head -c 600 <<<"$3")"; }

out=$("$BIN" --version 2>&1); rc=$?
[ $rc -eq 0 ] || fail "--version: exit $rc"
grep -qE '^compopt [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{7,40}(\+changes)?|unknown)\)$' <<<"$out" \
  || fail "--version: '$out' does not start with 'compopt <version> (git <commit>)'"
# Every registered backend is listed once: usable here, or not available with the reason.
grep -qE '^backends: local, sim(, |$)' <<<"$out" || fail "--version: no 'backends: local, sim' line"
for name in tcp mpi hybrid nccl; do
  grep -qE "^backends: .*\b$name\b|^  $name: .+" <<<"$out" || fail "--version: backend $name missing"
done

out=$("$BIN" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "bare compopt: exit $rc, expected 0"
has "bare compopt" "Subcommands:" "$out"
has "bare compopt" "reproduce" "$out"
grep -qE '^ +list ' <<<"$out" && fail "bare compopt: the hidden list command is shown"

out=$("$BIN" profile --help 2>&1)
has "profile --help" "gpt-1.3b (aliases: bert-large = bert-large-seq128" "$out"
has "profile --help" "  infiniband-v100-8  8 nodes x 8 V100" "$out"
has "profile --help" "--gpus-per-node" "$out"
has "profile --help" "CONFIG.toml: a sweep config of one scenario" "$out"
grep -q -- "--calibration\|--public-checks" <<<"$out" && fail "profile --help lists a moved check"
out=$("$BIN" validate --help 2>&1)
for check in calibration fit cross-validate public-checks; do
  grep -qE "^  $check +[a-z]" <<<"$out" || fail "validate --help lacks '$check': $out"
done
out=$("$BIN" sweep --help 2>&1)
has "sweep --help" "  resnet152-imagenet  ResNet-152" "$out"
has "sweep --help" "birder-hierarchical" "$out"
out=$("$BIN" reproduce --help 2>&1)
has "reproduce --help" "  break_even         Break-even bandwidth of compression" "$out"
out=$("$BIN" train --help 2>&1)
has "train --help" "onebit-lamb" "$out"
has "train --help" "  ethernet-a100-8" "$out"

out=$("$BIN" list studies 2>&1)
[ "$(wc -l <<<"$out")" -eq 12 ] || fail "list studies: $(wc -l <<<"$out") lines, expected 12"
out=$("$BIN" list clusters --markdown 2>&1)
has "list clusters --markdown" "| \`ethernet-v100-4\` | V100-16GB | 16 | 4 | 126 | 40 | star |" "$out"
"$BIN" list optimizerz > "$WORK/log" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "list optimizerz: exit $rc, expected 2"
has "list optimizerz" "unknown registry 'optimizerz', expected one of workloads, clusters, gpus, implementations" \
  "$(cat "$WORK/log")"

# profile --set: 16 GPUs of bert-large in nodes of 8 = 2 nodes; three spellings agree.
P=(profile --gpus 16 --optimizer onebit-adam)
"$BIN" "${P[@]}" --set workload.name=bert-large --set cluster.gpus_per_node=8 --out "$WORK/a" \
  > "$WORK/log" 2>&1 || fail "profile --set: $(tail -3 "$WORK/log")"
"$BIN" "${P[@]}" --workload bert-large-seq128 --set cluster.ranks_per_node=8 --out "$WORK/b" \
  > /dev/null 2>&1 || fail "profile --set cluster.ranks_per_node failed"
"$BIN" "${P[@]}" --ranks-per-node 8 --out "$WORK/c" > /dev/null 2>&1 \
  || fail "profile --ranks-per-node failed"
row=$(sed -n 2p "$WORK/a/profile.csv")
[[ "$row" == bert-large-seq128,ethernet-v100-4,star,onebit-adam,*,2,8,16,* ]] \
  || fail "profile --set: row '$row', expected bert-large-seq128 on 2 nodes x 8 GPUs"
cmp -s "$WORK/a/profile.csv" "$WORK/b/profile.csv" || fail "ranks_per_node alias differs"
cmp -s "$WORK/a/profile.csv" "$WORK/c/profile.csv" || fail "--ranks-per-node flag differs"

# --set cluster.*: the rails of dgx-h100 cut to 2 NICs; the exported platform parses as XML
# and simulates the same compression step as the generated one.
"$BIN" "${P[@]}" --cluster dgx-h100 --set cluster.nics_per_node=2 --out "$WORK/d" \
  > "$WORK/log" 2>&1 || fail "profile --set cluster.nics_per_node: $(tail -3 "$WORK/log")"
"$BIN" "${P[@]}" --cluster dgx-h100 --export-platform "$WORK/dgx.xml" > "$WORK/log" 2>&1 \
  || fail "profile --export-platform: $(tail -3 "$WORK/log")"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot()
assert r.tag == "platform" and len(r.findall(".//host")) == 16' "$WORK/dgx.xml" \
  || fail "profile --export-platform: not a platform XML of 16 hosts"
"$BIN" "${P[@]}" --cluster dgx-h100 --out "$WORK/e" > /dev/null 2>&1 || fail "profile dgx-h100"
"$BIN" "${P[@]}" --cluster dgx-h100 --platform "$WORK/dgx.xml" --out "$WORK/f" > /dev/null 2>&1 \
  || fail "profile --platform exported.xml"
# The compression rows: on a platform file the uncompressed ring runs one channel, where the
# generated rails run one per NIC (docs/simulator.md, "Allreduce algorithms").
comm() { python3 -c 'import csv, sys; print([r["comm_s"] for r in csv.DictReader(open(sys.argv[1])) if r["stage"] == "compression"])' "$1"; }
[ "$(comm "$WORK/e/profile.csv")" = "$(comm "$WORK/f/profile.csv")" ] \
  || fail "exported platform: comm_s differs from the generated platform"

finish
