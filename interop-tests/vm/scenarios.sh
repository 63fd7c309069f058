#!/bin/bash
# scenarios.sh [--scenarios LIST] [--out DIR] [--] [compare options...] — rddp compare under network scenarios in
# the VM, whose kernel has SCTP and netem (this machine has neither): faults/compare.sh inside it, between two network
# namespaces, RDDP over the kernel's SCTP and over TCP/MPA next to their sockets. LIST is ';'-separated netns.sh
# words: 'delay 10ms' (every packet leaving either end waits 10 ms: a 20 ms round trip), 'netem delay 5ms reorder
# 10%', 'loss 0.01' (iptables). Default: 'delay 0.5ms;delay 5ms;delay 25ms' (1, 10 and 50 ms round trips).
# The guest is emulated (one vCPU, TCG): only ratios and what delay and loss add mean anything. Results go to DIR
# (compare-results/vm-scenarios by default). Needs the CLI built (./rddp --help builds it) and setup.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/bin/env.sh"
rddp_find_jdk
scenarios="delay 0.5ms;delay 5ms;delay 25ms"
out="$ROOT/compare-results/vm-scenarios"
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --scenarios) scenarios=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
case $out in /*) ;; *) out="$PWD/$out" ;; esac
ls "$ROOT"/cli/target/rddp-cli-*.jar >/dev/null 2>&1 || { echo "scenarios: build the CLI first (./rddp --help)" >&2; exit 2; }
mkdir -p "$out"
export RDDP="$JAVA_HOME/bin/java --enable-native-access=org.rddp.rdmap,org.rddp.transport.sctp --add-modules jdk.unsupported \
--sun-misc-unsafe-memory-access=allow -p $ROOT/cli/target/modules:$(ls "$ROOT"/cli/target/rddp-cli-*.jar) \
-m org.rddp.cli/org.rddp.cli.Main"
exec "$HERE/run-in-vm.sh" --smp 1 --load sctp,sch_netem --rw "$out" -- "$ROOT/interop-tests/faults/compare.sh" \
  --scenarios "$scenarios" --out "$out" -- --sctp-stack kernel "${args[@]}"
