#!/bin/bash
# multihome.sh — inside the VM: hosts A (rddp-a) and B (rddp-b) as two network namespaces joined by two veth
# pairs, 10.99.0.0/24 (the first path) and 10.98.0.0/24 (the second); then, for each run named (NAME:COMMAND ARGS,
# COMMAND one of rddp's bandwidth tests), that test with --verify from B (the client, with --timeline) to A for
# $DURATION seconds during which the first link goes down for $OUTAGE seconds and comes back. Over SCTP (a NAME
# starting sctp) both ends bind both addresses (--multihome); over MPA a TCP connection has one path. Prints MULTIHOME
# lines (times in seconds since the epoch) and each end's output; exits non-zero if an end failed. $RDDP is the
# command that runs rddp. With $CHART set, draws every run's throughput each second from its link going down into
# that PNG (rddp timeline-chart).
set -euo pipefail
ip netns add rddp-a
ip netns add rddp-b
for i in 0 1; do
  ip link add "rddp-a$i" netns rddp-a type veth peer name "rddp-b$i" netns rddp-b
  ip -n rddp-a addr add "10.9$((9 - i)).0.1/24" dev "rddp-a$i"
  ip -n rddp-b addr add "10.9$((9 - i)).0.2/24" dev "rddp-b$i"
  ip -n rddp-a link set "rddp-a$i" up
  ip -n rddp-b link set "rddp-b$i" up
done
for host in rddp-a rddp-b; do ip -n "$host" link set lo up; done
duration=${DURATION:-20}
outage=${OUTAGE:-6}
status=0
declare -A down
for spec in "$@"; do
  name=${spec%%:*}
  read -r -a args <<< "${spec#*:}"
  test=${args[0]}
  args=("${args[@]:1}")
  server_extra=() client_extra=()
  if [[ $name == sctp* ]]; then server_extra=(--multihome 10.98.0.1); client_extra=(--multihome 10.98.0.2); fi
  # shellcheck disable=SC2086
  ip netns exec rddp-a $RDDP "$test" -B 10.99.0.1 --verify -D "$duration" "${args[@]}" "${server_extra[@]}" \
    > "/tmp/$name.server" 2>&1 &
  server=$!
  for _ in $(seq 600); do grep -q "server: listening" "/tmp/$name.server" && break; sleep 0.1; done
  # shellcheck disable=SC2086
  ip netns exec rddp-b $RDDP "$test" 10.99.0.1 --verify --timeline -D "$duration" "${args[@]}" "${client_extra[@]}" \
    > "/tmp/$name.client" 2>&1 &
  client=$!
  # the transfer runs on the first path: a second of its timeline with completions in it, and two more
  for _ in $(seq 600); do grep -Eq "timeline \S+ [1-9][0-9]* messages" "/tmp/$name.client" && break; sleep 0.1; done
  sleep 2
  down[$name]=$(date +%s.%N)
  echo "MULTIHOME $name link-down ${down[$name]}"
  ip -n rddp-a link set rddp-a0 down
  sleep "$outage"
  ip -n rddp-a link set rddp-a0 up
  echo "MULTIHOME $name link-up $(date +%s.%N)"
  client_status=0 server_status=0
  wait "$client" || client_status=$?
  wait "$server" || server_status=$?
  echo "MULTIHOME $name ended $(date +%s.%N) client=$client_status server=$server_status"
  for end in server client; do sed "s/^/MULTIHOME $name $end: /" "/tmp/$name.$end"; done
  if [[ $client_status != 0 || $server_status != 0 ]]; then status=1; fi
done
if [ -n "${CHART:-}" ]; then
  runs=()
  for spec in "$@"; do
    name=${spec%%:*}
    read -r -a args <<< "${spec#*:}"
    over=MPA; [[ $name == sctp* ]] && over=SCTP
    runs+=("RDDP over $over, ${args[0]} ($name)=/tmp/$name.client@${down[$name]}")
  done
  # shellcheck disable=SC2086
  $RDDP timeline-chart -o "$CHART" --zero "the first link going down" --mark "link down=0" \
    --mark "link up=$outage" --title "A link down for $outage s, the transfer on it" \
    --conditions "two hosts, two links, the first down for $outage s; SCTP bound to both, MPA's TCP to one" \
    "${runs[@]}" | sed 's/^/MULTIHOME chart: /' || status=1
fi
exit "$status"
