# measure-guest.sh ROOT JAVA SECONDS — the guest half of measure.sh
ROOT=$1; JAVA=$2; SECONDS_EACH=$3
RDDP=("$JAVA" --enable-native-access=org.rddp.rdmap,org.rddp.transport.sctp --add-modules jdk.unsupported
  --sun-misc-unsafe-memory-access=allow -p "$ROOT/cli/target/modules:$(ls "$ROOT"/cli/target/rddp-cli-*.jar)"
  -m org.rddp.cli/org.rddp.cli.Main)
echo "== rddp compare: RDDP over kernel SCTP and TCP/MPA next to their sockets, 8 B and 64 KiB, loopback"
"${RDDP[@]}" compare --sctp-stack kernel --sizes 8,65536 --seconds-per-point "$SECONDS_EACH" --latency-iters 200 \
  -o /run/compare
for length in 65536 1400; do
  echo "== iperf3 --sctp, $length-octet writes, loopback"
  iperf3 -s -D -1 -p 5201 --logfile /run/iperf3.log
  until iperf3 -c 127.0.0.1 -p 5201 --sctp -l $length -t "$SECONDS_EACH" -f m 2>/dev/null | grep -E 'receiver'; do
    sleep 1 # the daemon is still starting
  done
done
echo "== siw ib_write_bw, 64 KiB, dummy interface 192.0.2.1 (siw refuses loopback)"
ip link add dummy0 type dummy && ip link set dummy0 up && ip addr add 192.0.2.1/32 dev dummy0
rdma link add siw0 type siw netdev dummy0
ib_write_bw -d siw0 -R -s 65536 -n 2000 -F > /run/ib-server.log 2>&1 &
until ib_write_bw -d siw0 -R -s 65536 -n 2000 -F 192.0.2.1 2>/dev/null | grep -E '^ *65536'; do
  sleep 1 # the server is still starting
done
wait
