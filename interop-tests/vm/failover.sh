#!/bin/bash
# failover.sh [--scenarios LIST] [--out DIR] [--] [compare options...] — in the VM, whose kernel has SCTP (and
# multi-homing) and MPTCP: compare's failover scenarios (faults/compare.sh --paths 2 --multihome) between two hosts
# joined by two links, the first failing under a transfer: the TCP socket and RDDP over MPA, each over TCP and over
# MPTCP, and RDDP over kernel SCTP and the SCTP socket bound to both links ('failover idle ...': under an idle
# connection's requests instead). LIST: ';'-separated, 'failover blackhole 6;failover link-down 6;failover flap 3'
# by default. Results (failover.json, a chart per scenario, failover.html) go to DIR
# (compare-results/vm-failover by default). Emulated VM: when each went on counts, not the MB/s. Needs the CLI built
# (./rddp --help builds it) and setup.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/bin/env.sh"
rddp_find_jdk
scenarios="failover blackhole 6;failover link-down 6;failover flap 3"
out="$ROOT/compare-results/vm-failover"
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --scenarios) scenarios=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
case $out in /*) ;; *) out="$PWD/$out" ;; esac
ls "$ROOT"/cli/target/rddp-cli-*.jar >/dev/null 2>&1 || { echo "failover: build the CLI first (./rddp --help)" >&2; exit 2; }
mkdir -p "$out"
export RDDP="$JAVA_HOME/bin/java --enable-native-access=org.rddp.rdmap,org.rddp.transport.sctp --add-modules jdk.unsupported \
--sun-misc-unsafe-memory-access=allow -p $ROOT/cli/target/modules:$(ls "$ROOT"/cli/target/rddp-cli-*.jar) \
-m org.rddp.cli/org.rddp.cli.Main"
exec "$HERE/run-in-vm.sh" --smp 2 --load sctp,veth --rw "$out" -- "$ROOT/interop-tests/faults/compare.sh" --paths 2 \
  --multihome --scenarios "$scenarios" --out "$out" -- -t mpa,sctp --sctp-stack kernel --mptcp "${args[@]}"
