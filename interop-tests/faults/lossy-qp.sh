#!/usr/bin/env bash
# What one lossy queue pair does to the others: rddp write-bw with N queue pairs between network namespaces rddp-a
# (client) and rddp-b (server) (netns.sh beside this script), first on a clean path, then with a share of the packets
# of queue pair 1 alone dropped (iptables statistic, both directions): over MPA those of its TCP connection (its port,
# as the client prints it), over SCTP the DATA chunks of its stream (u32 on the first chunk's stream identifier: the
# queue pairs share one association, so the association's congestion control sees the loss). Prints per transport
# and loss queue pair 1's MB/s, the median of the others' and the sum; the perftest output goes to DIR.
#
#   interop-tests/faults/lossy-qp.sh [--qps 10] [--seconds 10] [--size 65536] [--loss 0.01] [--transports mpa,sctp]
#                                    [--sctp-stack usrsctp-udp|kernel] [--cc cubic] [--out DIR]
#
# --cc: the TCP congestion control of both namespaces (the host's by default: BBR here, which does not slow down for
# random loss of a few per cent).
#
# RDDP, if set, is the rddp command to run (words split at spaces), instead of ./rddp (which builds first). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
qps=10 seconds=10 size=65536 loss=0.01 transports=mpa,sctp stack=usrsctp-udp cc="" out="$root/compare-results/lossy-qp"
while [ $# -gt 0 ]; do
  case $1 in
    --qps) qps=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --sctp-stack) stack=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "lossy-qp.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "lossy-qp.sh: needs root (network namespaces, iptables)" >&2; exit 1; }
[ "$qps" -ge 2 ] || { echo "lossy-qp.sh: --qps is at least 2 (one lossy, the others to watch)" >&2; exit 2; }
case $out in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"
if [ -n "${RDDP:-}" ]; then
  read -r -a rddp <<<"$RDDP"
else
  rddp=("$root/rddp")
  "${rddp[@]}" --version >/dev/null
fi
server=""
finish() {
  local status=$?
  set +e
  [ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  "$here/netns.sh" down
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM
"$here/netns.sh" up
[ -z "$cc" ] || "$here/netns.sh" cc "$cc"
echo "TCP congestion control: $("$here/netns.sh" a sysctl -n net.ipv4.tcp_congestion_control)"

# drops share $2 of queue pair 1's packets in both directions: $1 is its TCP port on the client (mpa) or its stream
lossy() {
  local what=$1 probability=$2
  local -a match
  if [ "$transport" = mpa ]; then
    "$here/netns.sh" a iptables -A INPUT -p tcp --dport "$what" -m statistic --mode random --probability \
      "$probability" -j DROP
    "$here/netns.sh" b iptables -A INPUT -p tcp --sport "$what" -m statistic --mode random --probability \
      "$probability" -j DROP
    return
  fi
  if [ "$stack" = kernel ]; then # the first chunk: 12 octets into SCTP; its stream identifier 8 octets into it
    match=(-p sctp -m u32 --u32 "0>>22&0x3C@12>>24=0 && 0>>22&0x3C@20>>16=$what")
  else # over UDP (RFC 6951): 8 octets more
    match=(-p udp -m u32 --u32 "0>>22&0x3C@20>>24=0 && 0>>22&0x3C@28>>16=$what")
  fi
  for ns in a b; do
    "$here/netns.sh" $ns iptables -A INPUT "${match[@]}" -m statistic --mode random --probability "$probability" \
      -j DROP
  done
}

printf '%-6s %8s %12s %14s %12s\n' transport loss "QP 1 MB/s" "others' MB/s" "all MB/s"
for transport in ${transports//,/ }; do
  for probability in 0 "$loss"; do
    "$here/netns.sh" clear >&2
    port=$((19000 + RANDOM % 1000))
    log="$out/$transport-loss-$probability"
    sctp=()
    [ "$transport" = sctp ] && sctp=(--sctp-stack "$stack")
    udp_server=() udp_client=()
    [ "$transport" = sctp ] && [ "$stack" = usrsctp-udp ] && udp_server=(--udp-port 9899) \
      && udp_client=(--udp-port 9898 --peer-udp-port 9899)
    "$here/netns.sh" b "${rddp[@]}" write-bw -B 10.77.0.2 -p "$port" -t "$transport" "${sctp[@]}" \
      "${udp_server[@]}" -q "$qps" -D "$seconds" -s "$size" >"$log.server" 2>&1 &
    server=$!
    for _ in $(seq 1 300); do # until it listens (a JVM's start), or it ended
      "$here/netns.sh" b ss -ltnH | grep -q ":$port " && break
      if [ "$transport" = sctp ] && grep -q "Waiting for client" "$log.server"; then break; fi
      kill -0 "$server" 2>/dev/null || { cat "$log.server" >&2; exit 1; }
      sleep 0.1
    done
    "$here/netns.sh" a "${rddp[@]}" write-bw 10.77.0.2 -p "$port" -t "$transport" "${sctp[@]}" "${udp_client[@]}" \
      -q "$qps" -D "$seconds" -s "$size" >"$log.client" 2>&1 &
    client=$!
    what=""
    for _ in $(seq 1 600); do # queue pair 1's connection, as soon as the client names it
      line=$(grep -m1 " data connection 1 over " "$log.client" || true)
      if [ -n "$line" ]; then
        if [ "$transport" = mpa ]; then
          what=$(sed -n 's/.* from [0-9.]*:\([0-9]*\).*/\1/p' <<<"$line")
        else
          what=$(sed -n 's/.* stream \([0-9]*\).*/\1/p' <<<"$line")
        fi
        break
      fi
      kill -0 "$client" 2>/dev/null || break
      sleep 0.05
    done
    [ -n "$what" ] || { cat "$log.client" >&2; echo "lossy-qp.sh: the client named no data connection" >&2; exit 1; }
    [ "$probability" = 0 ] || lossy "$what" "$probability"
    status=0
    wait "$client" || status=$?
    wait "$server" || status=$((status == 0 ? $? : status))
    server=""
    [ "$status" -eq 0 ] || { tail -5 "$log.client" "$log.server" >&2; exit "$status"; }
    rates=$(sed -n 's/^ Per queue pair, MB\/sec over the whole run: //p' "$log.client")
    [ -n "$rates" ] || { cat "$log.client" >&2; echo "lossy-qp.sh: no per queue pair figures" >&2; exit 1; }
    read -r -a each <<<"$rates"
    others=$(printf '%s\n' "${each[@]:1}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] \
      : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
    all=$(printf '%s\n' "${each[@]}" | awk '{s += $1} END {printf "%.2f", s}')
    printf '%-6s %8s %12s %14s %12s\n' "$transport" "$probability" "${each[0]}" "$others" "$all"
  done
done
"$here/netns.sh" clear >&2
