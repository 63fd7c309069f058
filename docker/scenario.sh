#!/bin/sh
# scenario.sh loss P | delay T [netem...] | netem ARGS... | clear — sets a network scenario in the initiator's
# container for rddp compare (--scenario-command /opt/rddp/scenario.sh; docker/compare.sh --scenarios passes it):
#   loss P   drop that share of the packets arriving and of those leaving (iptables statistic): each direction loses P
#   delay T  hold every packet leaving eth0 T (tc netem: the host kernel needs sch_netem, which this image cannot add)
#   netem …  any netem on eth0
#   clear    no more; says how many packets the loss dropped
# The container needs NET_ADMIN (docker-compose.yml gives the initiator that).
set -eu
clear() {
  dropped=$(iptables -L -v -x -n 2>/dev/null | awk '$3 == "DROP" {s += $1} END {print s + 0}')
  [ "$dropped" -eq 0 ] || echo "scenario.sh: the last scenario dropped $dropped packets"
  iptables -F INPUT
  iptables -F OUTPUT
  tc qdisc del dev eth0 root 2>/dev/null || true
}
case "${1:-}" in
  loss)
    clear
    iptables -A INPUT -m statistic --mode random --probability "$2" -j DROP
    iptables -A OUTPUT -m statistic --mode random --probability "$2" -j DROP
    ;;
  delay|netem)
    clear
    [ "$1" = netem ] && shift
    tc qdisc add dev eth0 root netem "$@" || { echo "scenario.sh: no netem in this kernel (sch_netem)" >&2; exit 1; }
    ;;
  clear) clear ;;
  *) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
