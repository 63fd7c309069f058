#!/bin/bash
# ipsec.sh — inside the VM: hosts A (rddp-a, 10.99.0.1) and B (rddp-b, 10.99.0.2) as two network namespaces joined
# by a veth pair; for each transport named (name:rddp options), an rddp write-bw run with --verify from B to A in the
# clear, then with the hosts' traffic protected by ESP in transport mode (ip xfrm, AES-GCM; RFC 5043 §13, RFC 7146).
# While protected, each host drops (and counts) any packet to or from the other that is neither ESP nor came out of
# ESP: IPSEC lines report those counts, which must be 0, and each run's output. With $COMPARE (rddp compare options),
# each phase also runs rddp compare with those options between the hosts (responder on A, initiator on B), its JSON
# printed on COMPARE-prefixed lines. $RDDP is the command that runs rddp.
set -euo pipefail
ip netns add rddp-a
ip netns add rddp-b
ip link add rddp-a0 netns rddp-a type veth peer name rddp-b0 netns rddp-b
ip -n rddp-a addr add 10.99.0.1/24 dev rddp-a0
ip -n rddp-b addr add 10.99.0.2/24 dev rddp-b0
for host in rddp-a rddp-b; do ip -n "$host" link set lo up; done
ip -n rddp-a link set rddp-a0 up
ip -n rddp-b link set rddp-b0 up
ip netns exec rddp-a ethtool -K rddp-a0 tx-checksum-sctp off >/dev/null
ip netns exec rddp-b ethtool -K rddp-b0 tx-checksum-sctp off >/dev/null
key_ab=0x$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
key_ba=0x$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')

protect() { # host, its address, the peer's
  local host=$1 me=$2 peer=$3
  ip -n "$host" xfrm state add src 10.99.0.1 dst 10.99.0.2 proto esp spi 0x1001 mode transport \
    aead 'rfc4106(gcm(aes))' "$key_ab" 128
  ip -n "$host" xfrm state add src 10.99.0.2 dst 10.99.0.1 proto esp spi 0x1002 mode transport \
    aead 'rfc4106(gcm(aes))' "$key_ba" 128
  ip -n "$host" xfrm policy add src "$me" dst "$peer" dir out tmpl proto esp mode transport
  ip -n "$host" xfrm policy add src "$peer" dst "$me" dir in tmpl proto esp mode transport
  # what is neither ESP nor came out of it is dropped, and counted
  ip netns exec "$host" iptables -A INPUT -s "$peer" ! -p esp -m policy --dir in --pol none -j DROP
  ip netns exec "$host" iptables -A OUTPUT -d "$peer" ! -p esp -m policy --dir out --pol none -j DROP
}

cleartext() { # host: packets dropped for going in the clear
  ip netns exec "$1" iptables -L -v -n -x | awk '$3 == "DROP" { sum += $1 } END { print sum + 0 }'
}

run() { # name, label, rddp options...
  local name=$1 label=$2
  shift 2
  ip netns exec rddp-a $RDDP write-bw -B 10.99.0.1 --verify "$@" > "/tmp/$name.$label.server" 2>&1 &
  local server=$!
  for _ in $(seq 900); do grep -q "server: listening" "/tmp/$name.$label.server" && break; sleep 0.1; done
  local client_status=0 server_status=0
  ip netns exec rddp-b $RDDP write-bw 10.99.0.1 --verify "$@" > "/tmp/$name.$label.client" 2>&1 \
    || client_status=$?
  wait "$server" || server_status=$?
  echo "IPSEC $name $label client=$client_status server=$server_status"
  for end in server client; do sed "s/^/IPSEC $name $label $end: /" "/tmp/$name.$label.$end"; done
  [[ $client_status == 0 && $server_status == 0 ]]
}

compare() { # label
  [[ -n ${COMPARE:-} ]] || return 0
  local label=$1 responder
  # shellcheck disable=SC2086
  ip netns exec rddp-a $RDDP compare --serve --once -B 10.99.0.1 > "/tmp/compare.$label.server" 2>&1 &
  responder=$!
  for _ in $(seq 900); do grep -q "server: listening" "/tmp/compare.$label.server" && break; sleep 0.1; done
  local client_status=0 server_status=0
  # shellcheck disable=SC2086
  ip netns exec rddp-b $RDDP compare --peer 10.99.0.1 --json -o "/tmp/compare-$label" $COMPARE \
    > "/tmp/compare.$label.client" 2>&1 || client_status=$?
  wait "$responder" || server_status=$?
  echo "IPSEC compare $label client=$client_status server=$server_status"
  sed "s/^/COMPARE $label: /" "/tmp/compare-$label/compare.json" 2>/dev/null || true
  echo
  [[ $client_status == 0 ]] || sed "s/^/IPSEC compare $label client: /" "/tmp/compare.$label.client"
  [[ $client_status == 0 && $server_status == 0 ]]
}

status=0
for spec in "$@"; do
  name=${spec%%:*}
  read -r -a args <<< "${spec#*:}"
  run "$name" clear "${args[@]}" || status=1
done
compare clear || status=1
protect rddp-a 10.99.0.1 10.99.0.2
protect rddp-b 10.99.0.2 10.99.0.1
for spec in "$@"; do
  name=${spec%%:*}
  read -r -a args <<< "${spec#*:}"
  run "$name" esp "${args[@]}" || status=1
done
compare esp || status=1
echo "IPSEC cleartext dropped: a=$(cleartext rddp-a) b=$(cleartext rddp-b)"
echo "IPSEC esp packets: $(ip -n rddp-a -s xfrm state | awk '/lifetime current/ { getline; print }' | tr '\n' ' ')"
exit "$status"
