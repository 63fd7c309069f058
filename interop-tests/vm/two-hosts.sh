#!/bin/bash
# two-hosts.sh command... — inside the VM: makes hosts A (rddp-a, 10.99.0.1, kernel SCTP) and B (rddp-b,
# 10.99.0.2, usrsctp over raw IP) as two network namespaces joined by a veth pair, then runs the command.
# B's kernel has SCTP as well and would answer usrsctp's packets as out of the blue (ABORT): what B's kernel
# sends itself is dropped. usrsctp's packets leave through a root process's raw socket, so they carry an owner;
# the kernel's own replies come from a socket no process owns.
set -euo pipefail
ip netns add rddp-a
ip netns add rddp-b
ip link add rddp-va netns rddp-a type veth peer name rddp-vb netns rddp-b
ip -n rddp-a addr add 10.99.0.1/24 dev rddp-va
ip -n rddp-b addr add 10.99.0.2/24 dev rddp-vb
for host in rddp-a rddp-b; do ip -n "$host" link set lo up; done
ip -n rddp-a link set rddp-va up
ip -n rddp-b link set rddp-vb up
# veth leaves the SCTP checksum to a NIC that is not there: the kernel's packets would reach usrsctp's raw
# socket without a CRC32c, and usrsctp drops those
ip netns exec rddp-a ethtool -K rddp-va tx-checksum-sctp off >/dev/null
ip netns exec rddp-b ethtool -K rddp-vb tx-checksum-sctp off >/dev/null
ip netns exec rddp-b iptables -A OUTPUT -p sctp -m owner --uid-owner 0 -j ACCEPT
ip netns exec rddp-b iptables -A OUTPUT -p sctp -j DROP
"$@"
