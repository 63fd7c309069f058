#!/bin/bash
# siw-host.sh COMMAND... — in the guest: soft-iWARP on a dummy interface at 192.0.2.1 (siw refuses loopback
# devices, and a dummy interface keeps traffic in this host), then runs COMMAND. Needs --load rdma_ucm,siw.
set -euo pipefail
ip link add dummy0 type dummy
ip link set dummy0 up
ip addr add 192.0.2.1/32 dev dummy0
rdma link add siw0 type siw netdev dummy0
exec "$@"
