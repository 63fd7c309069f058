#!/usr/bin/env bash
# rddp compare between two hosts on this machine under network scenarios: network namespaces rddp-a (initiator,
# 10.77.0.1) and rddp-b (responder, 10.77.0.2) joined by a veth pair (netns.sh beside this script), usrsctp over UDP.
# Before each scenario the initiator runs netns.sh with the scenario's words (loss P: iptables statistic drops that
# share of the packets arriving at either end; reorder P: that share leaves through a slow htb class and arrives
# late; no delay here: there is no netem on this machine, the VM has it: interop-tests/vm/scenarios.sh).
#
#   interop-tests/faults/compare.sh [--scenarios 'loss 0;loss 0.001;loss 0.01;loss 0.05'] [--paths 1|2]
#                                   [--multihome] [--cc NAME] [--out DIR] [--] [rddp compare options...]
#
# --cc NAME: new TCP connections in both namespaces use that congestion control (netns.sh cc; this machine's default
# is BBR, most hosts' CUBIC): under loss it decides much of what TCP and MPA do.
#
# With --paths 2 a second veth pair joins the hosts (10.78.0.0/24) and Multipath TCP's path manager has an endpoint on
# each side of it (netns.sh up 2), for the failover scenarios ('failover blackhole 6', 'failover link-down 6',
# 'failover flap 3'), which fail the first path during a transfer ('failover idle ...': under an idle connection's
# requests); give compare --mptcp to run MPTCP's series. With --multihome too, RDDP over SCTP and the SCTP socket
# bind both addresses at both ends (kernel SCTP: in the VM).
#
# RDDP, if set, is the rddp command to run (words split at spaces; e.g. java with the CLI's module path), instead of
# ./rddp (which builds first). Needs root (namespaces, iptables). Options not listed go to the initiator's rddp compare (e.g. --sizes 1024,65536
# --load-rate 1000 --repeat 3); --peer, --scenario-command and -o are set here. Prints the initiator's tables; the
# results (compare.json, the charts, report.html) go to DIR, compare-results/netns by default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scenarios="loss 0;loss 0.001;loss 0.01;loss 0.05"
out="$root/compare-results/netns"
paths=1
cc=""
multihome=()
responder_multihome=()
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --scenarios) scenarios=$2; shift 2 ;;
    --scenarios=*) scenarios=${1#--scenarios=}; shift ;;
    --multihome) multihome=(--multihome 10.78.0.1); responder_multihome=(--multihome 10.78.0.2); shift ;;
    --cc) cc=$2; shift 2 ;;
    --cc=*) cc=${1#--cc=}; shift ;;
    --paths) paths=$2; shift 2 ;;
    --paths=*) paths=${1#--paths=}; shift ;;
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h|--help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
case $out in /*) ;; *) out="$PWD/$out" ;; esac
[ "$(id -u)" -eq 0 ] || { echo "compare.sh: needs root (network namespaces, iptables)" >&2; exit 1; }
say() { echo "faults/compare.sh [${SECONDS}s]: $*" >&2; }

if [ -n "${RDDP:-}" ]; then
  read -r -a rddp <<<"$RDDP"
else
  rddp=("$root/rddp")
  "${rddp[@]}" --version >/dev/null # builds once, before two processes would both try
fi
mkdir -p "$out"
responder=""
finish() {
  local status=$?
  set +e
  [ -z "$responder" ] || { kill "$responder" 2>/dev/null; wait "$responder" 2>/dev/null; }
  "$here/netns.sh" down
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM
"$here/netns.sh" up "$paths"
[ -z "$cc" ] || "$here/netns.sh" cc "$cc"
port=$((19000 + RANDOM % 1000))
say "responder in rddp-b (10.77.0.2:$port), log: $out/responder.log"
"$here/netns.sh" b "${rddp[@]}" compare --serve --once -B 10.77.0.2 -p "$port" --udp-port 9899 \
  "${responder_multihome[@]}" >"$out/responder.log" 2>&1 &
responder=$!
for _ in $(seq 1 300); do # until it listens (a JVM's start), or it ended
  "$here/netns.sh" b ss -ltn | grep -q ":$port " && break
  kill -0 "$responder" 2>/dev/null || { cat "$out/responder.log" >&2; exit 1; }
  sleep 0.1
done
say "initiator in rddp-a, scenarios: $scenarios"
status=0
"$here/netns.sh" a "${rddp[@]}" compare --peer "10.77.0.2:$port" --udp-port 9898 --scenarios "$scenarios" \
  --scenario-command "$here/netns.sh" -o "$out" "${multihome[@]}" "${args[@]}" || status=$?
wait "$responder" || status=$((status == 0 ? $? : status))
responder=""
exit "$status"
