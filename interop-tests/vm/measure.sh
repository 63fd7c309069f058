#!/bin/bash
# measure.sh [seconds] — inside the VM, in one run: rddp compare over the kernel's SCTP and TCP/MPA (RDMA Write
# bandwidth and Send latency next to the raw sockets), iperf3 --sctp, and siw's ib_write_bw.
# The guest is emulated: only the ratios mean anything. Needs the CLI built (./rddp --help builds it) and setup.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/bin/env.sh"
rddp_find_jdk
ls "$ROOT"/cli/target/rddp-cli-*.jar >/dev/null 2>&1 || { echo "measure: build the CLI first (./rddp --help)" >&2; exit 2; }
# One vCPU: with two, TCG runs both on one host thread, and a side that polls busily (the sockets' and RDDP's
# latency runs spin before they sleep where there are two processors) keeps the other from running until the
# guest's next timer tick: ping-pongs landed on 4 ms (4,005 us at 8 B and at 64 KiB) now and then, at random. With
# one, compare sees one processor and every wait sleeps at once, as the JDK's blocking SctpChannel always does.
exec "$HERE/run-in-vm.sh" --smp 1 --load sctp,rdma_ucm,siw -- bash "$HERE/measure-guest.sh" "$ROOT" \
  "$JAVA_HOME/bin/java" "${1:-5}"
