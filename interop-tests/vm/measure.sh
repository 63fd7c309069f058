#!/bin/bash
# measure.sh [seconds] — inside the VM, in one run: our RDMA Write bandwidth over the kernel's SCTP next to raw
# kernel SCTP messages and iperf3 --sctp, and our RDMA Write bandwidth over TCP/MPA next to siw's ib_write_bw.
# The guest is emulated: only the ratios mean anything. Needs benchmarks/target/benchmarks.jar
# (./mvnw -pl benchmarks -am package -DskipTests) and setup.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JAR=$ROOT/benchmarks/target/benchmarks.jar
. "$ROOT/bin/env.sh"
rddp_find_jdk
[ -f "$JAR" ] || { echo "measure: build $JAR first (./mvnw -pl benchmarks -am package -DskipTests)" >&2; exit 2; }
exec "$HERE/run-in-vm.sh" --smp 2 --load sctp,rdma_ucm,siw -- bash "$HERE/measure-guest.sh" "$JAR" "$JAVA_HOME/bin/java" \
  "${1:-5}"
