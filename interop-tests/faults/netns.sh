#!/usr/bin/env bash
# Two hosts on one machine for the fault suite: network namespaces rddp-a (10.77.0.1) and rddp-b (10.77.0.2)
# joined by a veth pair, offloads off so that every packet is one packet. Faults are applied in both directions.
# With two paths, a second veth pair joins them too (10.78.0.1, 10.78.0.2), and Multipath TCP's in-kernel path
# manager gets what it needs to use it (RFC 8684): limits of 4 subflows and 4 accepted addresses on both, and rddp-b
# (the responder, the server) announcing its second address (an endpoint 'signal') with a port of its own, 18999, on
# which the kernel takes the joins: the servers listen on the first address only, and a join to another address with
# the connection's own port would find no listener and be reset. rddp-a (the initiator) joins over the path to that
# address, the second one. (A 'subflow' endpoint on rddp-a's second address would join the server's first address:
# out over the first path with the second path's address, which fails with the first path.)
#   netns.sh up [PATHS] | down      PATHS 1 (the default) or 2
#   netns.sh loss <probability>     drop that share of packets arriving at either end (iptables statistic)
#   netns.sh reorder <probability> [rate]
#                                   hold that share of packets leaving either end in a slow class (htb at the rate,
#                                   20mbit by default): they arrive late, after packets sent behind them
#   netns.sh held                   how many packets the slow classes of 'reorder' have carried
#   netns.sh rate <rate>            every link (both paths, if two) carries at most that much each way (tc tbf,
#                                   e.g. 'rate 200mbit'): what several paths add up to shows
#   netns.sh delay <time> [netem...] delay every packet leaving either end (tc netem: where the kernel has it, as
#                                   the VM's; not on this machine), e.g. 'delay 10ms' (a 20 ms round trip)
#   netns.sh netem <netem args...>  any netem on both ends, e.g. 'netem delay 10ms 2ms reorder 5%'
#   netns.sh clear                  no more loss or reordering; says how many packets the loss dropped
#   netns.sh cc <name>              new TCP connections in both use that congestion control (e.g. cubic; this
#                                   machine's default is BBR), added to the host's allowed list if it is not there
#   netns.sh link-down | link-up    the (first) veth pair down or up
#   netns.sh fail link-down|blackhole SECONDS
#                                   the first path fails for that long, then comes back: its carrier lost (link
#                                   down), or every packet through rddp-a's end of it dropped with the link up
#                                   (blackhole, counted); prints 'failed EPOCH' and 'restored EPOCH' (date +%s.%N),
#                                   and how it knows the failure happened
#   netns.sh flap CYCLES UP DOWN    a blackhole of DOWN seconds, CYCLES times, UP seconds apart
#   netns.sh a|b <command...>       run a command in rddp-a or rddp-b
set -euo pipefail
A=rddp-a B=rddp-b
# the blackhole: a chain of its own, jumped to for the first path's packets both ways, so that it counts only them
BLACKHOLE=rddp-blackhole
blackhole_on() {
  printf '*filter\n:%s - [0:0]\n-A %s -j DROP\n-I INPUT -i veth-a -j %s\n-I OUTPUT -o veth-a -j %s\nCOMMIT\n' \
    $BLACKHOLE $BLACKHOLE $BLACKHOLE $BLACKHOLE | ip netns exec $A iptables-restore --noflush
}
blackhole_dropped() {
  ip netns exec $A iptables -L $BLACKHOLE -v -x -n 2>/dev/null | awk '$3 == "DROP" {s += $1} END {print s + 0}'
}
blackhole_off() {
  printf '*filter\n-D INPUT -i veth-a -j %s\n-D OUTPUT -o veth-a -j %s\n-F %s\n-X %s\nCOMMIT\n' \
    $BLACKHOLE $BLACKHOLE $BLACKHOLE $BLACKHOLE | ip netns exec $A iptables-restore --noflush
}
now() { date +%s.%N; }
case "${1:-}" in
  up)
    "$0" down
    ip netns add $A
    ip netns add $B
    ip link add veth-a netns $A type veth peer name veth-b netns $B
    ip -n $A addr add 10.77.0.1/24 dev veth-a
    ip -n $B addr add 10.77.0.2/24 dev veth-b
    if [ "${2:-1}" = 2 ]; then
      ip link add veth-a2 netns $A type veth peer name veth-b2 netns $B
      ip -n $A addr add 10.78.0.1/24 dev veth-a2
      ip -n $B addr add 10.78.0.2/24 dev veth-b2
      for ns in $A $B; do
        ip netns exec $ns sysctl -qw net.mptcp.enabled=1
        ip -n $ns mptcp limits set subflow 4 add_addr_accepted 4
      done
      ip -n $B mptcp endpoint add 10.78.0.2 dev veth-b2 port 18999 signal
    fi
    for ns in a b; do
      ip -n rddp-$ns link set lo up
      for dev in veth-$ns veth-${ns}2; do
        ip -n rddp-$ns link show "$dev" >/dev/null 2>&1 || continue # one path only
        ip -n rddp-$ns link set "$dev" up
        ip netns exec rddp-$ns ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 || true
      done
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
  rate)
    "$0" clear
    for ns in a b; do
      for dev in veth-$ns veth-${ns}2; do
        ip -n rddp-$ns link show "$dev" >/dev/null 2>&1 || continue
        ip netns exec rddp-$ns tc qdisc add dev "$dev" root tbf rate "$2" burst 256kb latency 50ms
      done
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
  fail)
    case "${2:-}" in
      link-down)
        # 'failed' once the failure is in place, 'restored' before it is undone: what arrives between the two came
        # another way
        ip -n $A link set veth-a down
        echo "failed $(now)"
        ip -n $A link show veth-a | grep -q 'state DOWN' && echo "netns.sh: the first path's link is down (veth-a)"
        sleep "$3"
        echo "restored $(now)"
        ip -n $A link set veth-a up
        ip -n $B link set veth-b up
        ;;
      blackhole)
        "$0" flap 1 0 "$3"
        ;;
      *) echo "netns.sh: fail link-down|blackhole SECONDS" >&2; exit 2 ;;
    esac
    ;;
  flap)
    total=0
    for cycle in $(seq "$2"); do
      [ "$cycle" = 1 ] || sleep "$3"
      blackhole_on
      echo "failed $(now)"
      sleep "$4"
      echo "restored $(now)"
      dropped=$(blackhole_dropped)
      blackhole_off
      total=$((total + dropped))
    done
    echo "netns.sh: the blackhole dropped $total packets on the first path"
    ;;
  clear)
    ip netns exec $A iptables -L $BLACKHOLE -n >/dev/null 2>&1 && blackhole_off
    ip -n $A link set veth-a up 2>/dev/null || true
    ip -n $B link set veth-b up 2>/dev/null || true
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
      ip netns exec rddp-$ns tc qdisc del dev veth-${ns}2 root 2>/dev/null || true
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
    sed -n '2,34p' "$0" >&2
    exit 2
    ;;
esac
