#!/bin/bash
# failover.sh [outage seconds] [duration seconds] — in the VM (kernel SCTP): a 64 KiB RDMA Write transfer between two
# hosts joined by two links while the first goes down and comes back, over SCTP bound to both links and over MPA (one
# TCP connection: one path); draws both runs' throughput each second from the link going down into
# compare-results/failover/failover.png (multihome.sh, rddp timeline-chart). Emulated VM: the shape counts, not the
# MB/s. Needs the CLI built (./rddp --help builds it) and setup.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/bin/env.sh"
rddp_find_jdk
ls "$ROOT"/cli/target/rddp-cli-*.jar >/dev/null 2>&1 || { echo "failover: build the CLI first (./rddp --help)" >&2; exit 2; }
out="$ROOT/compare-results/failover"
mkdir -p "$out"
rddp="$JAVA_HOME/bin/java --enable-native-access=org.rddp.rdmap,org.rddp.transport.sctp --add-modules jdk.unsupported \
--sun-misc-unsafe-memory-access=allow -p $ROOT/cli/target/modules:$(ls "$ROOT"/cli/target/rddp-cli-*.jar) \
-m org.rddp.cli/org.rddp.cli.Main"
exec "$HERE/run-in-vm.sh" --smp 2 --load sctp,veth --rw "$out" -- env "RDDP=$rddp" "OUTAGE=${1:-6}" \
  "DURATION=${2:-24}" "CHART=$out/failover.png" "$HERE/multihome.sh" "sctp-write:write-bw -t sctp --sctp-stack kernel -s 65536" \
  "mpa-write:write-bw -t mpa -s 65536"
