#!/usr/bin/env bash
# Two hosts on one machine for the fault suite: network namespaces rddp-a (10.77.0.1) and rddp-b (10.77.0.2)
# joined by a veth pair, offloads off so that every packet is one packet. Faults are applied in both directions.
#   netns.sh up | down
#   netns.sh loss <probability>     drop that share of packets arriving at either end (iptables statistic)
#   netns.sh clear                  no more loss
#   netns.sh link-down | link-up    the veth pair down or up
#   netns.sh a|b <command...>       run a command in rddp-a or rddp-b
set -euo pipefail
A=rddp-a B=rddp-b
case "${1:-}" in
  up)
    "$0" down
    ip netns add $A
    ip netns add $B
    ip link add veth-a netns $A type veth peer name veth-b netns $B
    ip -n $A addr add 10.77.0.1/24 dev veth-a
    ip -n $B addr add 10.77.0.2/24 dev veth-b
    for ns in a b; do
      ip -n rddp-$ns link set lo up
      ip -n rddp-$ns link set veth-$ns up
      ip netns exec rddp-$ns ethtool -K veth-$ns tso off gso off gro off >/dev/null 2>&1 || true
    done
    ;;
  down)
    ip netns del $A 2>/dev/null || true
    ip netns del $B 2>/dev/null || true
    ;;
  loss)
    "$0" clear
    for ns in $A $B; do
      ip netns exec $ns iptables -A INPUT -m statistic --mode random --probability "$2" -j DROP
    done
    ;;
  clear)
    for ns in $A $B; do
      ip netns exec $ns iptables -F INPUT
    done
    ;;
  link-down|link-up)
    ip -n $A link set veth-a "${1#link-}"
    ip -n $B link set veth-b "${1#link-}"
    ;;
  a|b)
    ns=rddp-$1
    shift
    exec ip netns exec $ns "$@"
    ;;
  *)
    sed -n '2,9p' "$0" >&2
    exit 2
    ;;
esac
