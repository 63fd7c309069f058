#!/usr/bin/env bash
# Two hosts on one machine for the fault suite: network namespaces rddp-a (10.77.0.1) and rddp-b (10.77.0.2)
# joined by a veth pair, offloads off so that every packet is one packet. Faults are applied in both directions.
#   netns.sh up | down
#   netns.sh loss <probability>     drop that share of packets arriving at either end (iptables statistic)
#   netns.sh reorder <probability> [rate]
#                                   hold that share of packets leaving either end in a slow class (htb at the rate,
#                                   20mbit by default): they arrive late, after packets sent behind them
#   netns.sh held                   how many packets the slow classes of 'reorder' have carried
#   netns.sh delay <time> [netem...] delay every packet leaving either end (tc netem: where the kernel has it, as
#                                   the VM's; not on this machine), e.g. 'delay 10ms' (a 20 ms round trip)
#   netns.sh netem <netem args...>  any netem on both ends, e.g. 'netem delay 10ms 2ms reorder 5%'
#   netns.sh clear                  no more loss or reordering; says how many packets the loss dropped
#   netns.sh cc <name>              new TCP connections in both use that congestion control (e.g. cubic; this
#                                   machine's default is BBR), added to the host's allowed list if it is not there
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
  reorder)
    "$0" clear
    for ns in a b; do
      ip netns exec rddp-$ns tc qdisc add dev veth-$ns root handle 1: htb default 10 r2q 100000
      ip netns exec rddp-$ns tc class add dev veth-$ns parent 1: classid 1:10 htb rate 10gbit
      ip netns exec rddp-$ns tc class add dev veth-$ns parent 1: classid 1:20 htb rate "${3:-20mbit}" \
        ceil "${3:-20mbit}" quantum 1514
      ip netns exec rddp-$ns iptables -t mangle -A POSTROUTING -o veth-$ns -m statistic --mode random \
        --probability "$2" -j CLASSIFY --set-class 1:20
    done
    ;;
  delay|netem)
    "$0" clear
    [ "$1" = netem ] && shift
    for ns in a b; do
      ip netns exec rddp-$ns tc qdisc add dev veth-$ns root netem "$@"
    done
    ;;
  held)
    total=0
    for ns in a b; do
      n=$(ip netns exec rddp-$ns tc -s class show dev veth-$ns classid 1:20 | sed -n 's/.* bytes \([0-9]*\) pkt.*/\1/p')
      total=$((total + ${n:-0}))
    done
    echo "$total"
    ;;
  clear)
    dropped=0
    for ns in a b; do
      n=$(ip netns exec rddp-$ns iptables -L INPUT -v -x -n 2>/dev/null | awk '$3 == "DROP" {s += $1} END {print s + 0}')
      dropped=$((dropped + n))
    done
    [ "$dropped" -eq 0 ] || echo "netns.sh: the last scenario dropped $dropped packets"
    for ns in a b; do
      ip netns exec rddp-$ns iptables -F INPUT
      ip netns exec rddp-$ns iptables -t mangle -F POSTROUTING
      ip netns exec rddp-$ns tc qdisc del dev veth-$ns root 2>/dev/null || true
    done
    ;;
  cc)
    allowed=/proc/sys/net/ipv4/tcp_allowed_congestion_control
    grep -qw "$2" $allowed || echo "$(cat $allowed) $2" >$allowed # a namespace may only pick an allowed one
    for ns in $A $B; do
      ip netns exec $ns sysctl -qw net.ipv4.tcp_congestion_control="$2"
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
    sed -n '2,18p' "$0" >&2
    exit 2
    ;;
esac
