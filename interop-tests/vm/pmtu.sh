#!/bin/bash
# pmtu.sh — inside the VM: host A (rddp-a, 10.99.0.1), a router R (rddp-r) and host B (rddp-b, 10.99.1.2), as network
# namespaces; A-R is a 1500-octet link, R-B a 1280-octet one (IPv6's minimum), so A learns B's path MTU only from
# R's ICMP "fragmentation needed" (path MTU discovery). For each transport named (name:rddp options), an rddp
# write-bw run with --verify from A to B. R and B count the IP fragments they see: PMTU lines report them, which must
# be 0 over TCP; over SCTP, packets already in flight when A learns of the hop (their DATA chunks cannot be cut
# again) go as IP fragments. Also each run's output. $RDDP is the command that runs rddp.
set -euo pipefail
gone() { for host in rddp-a rddp-r rddp-b; do ip netns del "$host" 2>/dev/null || true; done; }
gone # what an interrupted run on a host left
trap gone EXIT
for host in rddp-a rddp-r rddp-b; do ip netns add "$host"; ip -n "$host" link set lo up; done
ip link add rddp-ar netns rddp-a type veth peer name rddp-ra netns rddp-r
ip link add rddp-rb netns rddp-r type veth peer name rddp-br netns rddp-b
ip -n rddp-a addr add 10.99.0.1/24 dev rddp-ar
ip -n rddp-r addr add 10.99.0.254/24 dev rddp-ra
ip -n rddp-r addr add 10.99.1.254/24 dev rddp-rb
ip -n rddp-b addr add 10.99.1.2/24 dev rddp-br
ip -n rddp-r link set rddp-rb mtu 1280
ip -n rddp-b link set rddp-br mtu 1280
for link in rddp-a:rddp-ar rddp-r:rddp-ra rddp-r:rddp-rb rddp-b:rddp-br; do
  ip -n "${link%%:*}" link set "${link#*:}" up
  # kernel SCTP must compute its CRC itself on veth; usrsctp always does (where ethtool is missing, nothing to do)
  ip netns exec "${link%%:*}" ethtool -K "${link#*:}" tx-checksum-sctp off >/dev/null 2>&1 || true
done
ip -n rddp-a route add 10.99.1.0/24 via 10.99.0.254
ip -n rddp-b route add 10.99.0.0/24 via 10.99.1.254
ip netns exec rddp-r sysctl -qw net.ipv4.ip_forward=1
# every IP fragment after the first (-f), and every first one (the More Fragments bit), counted where they pass
ip netns exec rddp-r iptables -A FORWARD -f -j ACCEPT
ip netns exec rddp-r iptables -A FORWARD -m u32 --u32 "3&0x20>>5=1" -j ACCEPT
ip netns exec rddp-b iptables -A INPUT -f -j ACCEPT
ip netns exec rddp-b iptables -A INPUT -m u32 --u32 "3&0x20>>5=1" -j ACCEPT
fragments() { ip netns exec "$1" iptables -L "$2" -v -n -x | awk '$3 == "ACCEPT" { sum += $1 } END { print sum + 0 }'; }

status=0
for spec in "$@"; do
  name=${spec%%:*}
  read -r -a args <<< "${spec#*:}"
  ip netns exec rddp-r iptables -Z
  ip netns exec rddp-b iptables -Z
  ip -n rddp-a route flush cache # A learns the smaller hop anew in each run
  ip netns exec rddp-b $RDDP write-bw -B 10.99.1.2 --verify "${args[@]}" > "/tmp/$name.server" 2>&1 &
  server=$!
  for _ in $(seq 900); do grep -q "server: listening" "/tmp/$name.server" && break; sleep 0.1; done
  client_status=0 server_status=0
  ip netns exec rddp-a $RDDP write-bw 10.99.1.2 --verify "${args[@]}" > "/tmp/$name.client" 2>&1 || client_status=$?
  wait "$server" || server_status=$?
  echo "PMTU $name client=$client_status server=$server_status fragments: router=$(fragments rddp-r FORWARD) \
b=$(fragments rddp-b INPUT)"
  echo "PMTU $name A's path MTU to B: $(ip -n rddp-a route get 10.99.1.2 | grep -o 'mtu [0-9]*' || echo none)"
  for end in server client; do sed "s/^/PMTU $name $end: /" "/tmp/$name.$end"; done
  [[ $client_status == 0 && $server_status == 0 ]] || status=1
done
exit "$status"
