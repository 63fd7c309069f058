#!/usr/bin/env bash
# rddp compare between two containers, from a fresh Debian machine with no registry: installs Docker if missing,
# starts dockerd if it is not running, makes the base image local/debian:bookworm with debootstrap (once), builds the
# cli unless told it is built, builds the rddp image, runs docker-compose.yml (a responder and an initiator on a
# network of their own), prints the initiator's table, copies its results out and tears the containers and the
# network down (the images stay). See README.md beside this script.
#
#   docker/compare.sh [--built] [--out DIR] [--keep-daemon] [--scenarios LIST] [--] [rddp compare options...]
#
# Options not listed go to the initiator's rddp compare (e.g. --sizes 4096 -t mpa); -o and --peer are set here.
# --scenarios 'loss 0;loss 0.01' measures under each (the initiator's container sets it: docker/scenario.sh; loss
# with iptables, delay with netem where the host kernel has it; the container gets NET_ADMIN for that).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
. "$root/bin/env.sh"

say() { echo "docker/compare.sh [${SECONDS}s]: $*" >&2; }
die() { say "$*"; exit 1; }

built=false
keep_daemon=false
out="$root/compare-results/docker"
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --built) built=true; shift ;;
    --keep-daemon) keep_daemon=true; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --scenarios) [ $# -ge 2 ] || die "--scenarios needs a list"
      args+=(--scenarios "$2" --scenario-command /opt/rddp/scenario.sh); shift 2 ;;
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
    --) shift; args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
case $out in /*) ;; *) out="$PWD/$out" ;; esac

[ "$(id -u)" -eq 0 ] || die "needs root: it starts dockerd and runs debootstrap"
rddp_find_jdk
export RDDP_JDK=$JAVA_HOME # mounted read-only into both containers at /opt/jdk
work=${RDDP_DOCKER_WORK:-/var/tmp/rddp-docker}
mkdir -p "$work"

# 1. Docker, compose v1 and debootstrap, from Debian's packages
rddp_ensure_packages docker.io containerd runc iptables docker-compose debootstrap
# Debian's client, to match Debian's daemon (another docker earlier on the PATH may be a newer, BuildKit-first one)
docker=/usr/bin/docker
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
compose=(docker-compose --ansi never -p rddp-compare -f "$here/docker-compose.yml" -f "$work/initiator.yml")

forward_before=$(iptables -S FORWARD 2>/dev/null | head -n 1 || true)
started_dockerd=""
composed=false
finish() {
  local status=$?
  set +e
  if $composed; then
    "${compose[@]}" down --remove-orphans --timeout 5 >"$work/down.log" 2>&1 || { say "docker-compose down failed:"; cat "$work/down.log" >&2; }
  fi
  if [ -n "$started_dockerd" ] && ! $keep_daemon; then
    kill "$started_dockerd" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$started_dockerd" 2>/dev/null && say "dockerd ($started_dockerd) did not stop within 20 s"
  fi
  # The rest of the test suite bridges its own network namespaces: FORWARD must stay as it was (see README.md).
  local forward_after
  forward_after=$(iptables -S FORWARD 2>/dev/null | head -n 1)
  if [ -n "$forward_before" ] && [ "$forward_after" != "$forward_before" ]; then
    say "iptables: FORWARD policy was '${forward_before}', now '${forward_after}': restoring it"
    iptables -P FORWARD "${forward_before##* }"
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM # through finish: a killed run tears down too

# 2. dockerd, by hand (no systemd): no iptables rules and no default bridge, so the host's firewall stays untouched;
#    builds use the host's network (apt-get inside), and the two containers need only their own bridge.
if ! "$docker" info >/dev/null 2>&1; then
  say "starting dockerd (log: $work/dockerd.log)"
  rm -f /var/run/docker.pid
  setsid dockerd --iptables=false --ip6tables=false --bridge=none >"$work/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    "$docker" info >/dev/null 2>&1 && break
    sleep 0.25
  done
  "$docker" info >/dev/null 2>&1 || { tail -n 20 "$work/dockerd.log" >&2; die "dockerd did not come up within 30 s"; }
  started_dockerd=$(cat /var/run/docker.pid)
fi
if [ "$(iptables -S FORWARD 2>/dev/null | head -n 1)" = "-P FORWARD DROP" ] && [ -z "$started_dockerd" ]; then
  say "warning: the running dockerd set iptables' FORWARD policy to DROP, which blocks bridges between network" \
    "namespaces; restart it with --iptables=false, or run 'iptables -P FORWARD ACCEPT' when done"
fi

# 3. The base image, from the Debian mirror apt is configured with (debootstrap --variant=minbase + docker import)
debian_mirror() {
  local uri=""
  if [ -n "${RDDP_DEBIAN_MIRROR:-}" ]; then echo "$RDDP_DEBIAN_MIRROR"; return; fi
  # deb822 stanzas (sources.list.d/*.sources): the URIs of the one whose Suites has bookworm
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk 'BEGIN { RS = "" } {
      u = ""; s = ""; n = split($0, line, "\n")
      for (i = 1; i <= n; i++) {
        if (line[i] ~ /^URIs:/) { split(line[i], w, /[ \t]+/); u = w[2] }
        if (line[i] ~ /^Suites:/) { s = line[i] " " }
      }
      if (u != "" && s ~ /[ \t]bookworm[ \t]/) { print u; exit }
    }')
  # one-line style (sources.list): deb [options] URI bookworm components
  [ -n "$uri" ] || uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '$1 == "deb" { for (i = 2; i < NF; i++) if ($i ~ /^[a-z]+:\/\// && $(i + 1) == "bookworm") { print $i; exit } }')
  echo "${uri:-http://deb.debian.org/debian}"
}
if ! "$docker" image inspect local/debian:bookworm >/dev/null 2>&1; then
  mirror=$(debian_mirror)
  say "making local/debian:bookworm with debootstrap from $mirror (once; log: $work/debootstrap.log)"
  rm -rf "$work/rootfs"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
  tar -C "$work/rootfs" -c . | "$docker" import - local/debian:bookworm >/dev/null
  rm -rf "$work/rootfs"
fi

# 4. The cli's runtime jars, as ./rddp builds them
if ! $built; then
  say "building the cli (./mvnw package -pl cli -am)"
  (cd "$root" && ./mvnw -q -B -DskipTests -Dcheckstyle.skip package -pl cli -am >&2)
fi
jars=("$root"/cli/target/rddp-cli-*.jar)
[ -f "${jars[0]}" ] && [ -d "$root/cli/target/modules" ] || die "no cli jars in cli/target: build them (drop --built)"

# 5. The rddp image: the packages rddp loads (bin/env.sh's list) and the jars; the JDK is mounted, not copied
rm -rf "$work/context"
mkdir -p "$work/context/modules"
cp "$here/Dockerfile" "$here/scenario.sh" "$work/context/"
cp "$root"/cli/target/modules/*.jar "${jars[0]}" "$work/context/modules/"
say "building local/rddp:latest (log: $work/build.log)"
"$docker" build --network host --build-arg "PACKAGES=${RDDP_PACKAGES[*]}" -t local/rddp:latest "$work/context" \
  >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; die "docker build failed"; }
"$docker" image prune --force --filter label=org.rddp.image=rddp >/dev/null # the previous build, now untagged

# 6. The comparison: the initiator's command with the arguments given, in an override file (JSON strings are YAML;
#    a $ is doubled for compose's interpolation)
yaml_list() {
  local first=true arg
  for arg in "$@"; do
    arg=${arg//\\/\\\\}
    arg=${arg//\"/\\\"}
    arg=${arg//\$/\$\$}
    $first || printf ', '
    printf '"%s"' "$arg"
    first=false
  done
}
cat >"$work/initiator.yml" <<EOF
version: "2.4"
services:
  initiator:
    command: [$(yaml_list compare --peer 198.51.100.2 -o /results ${args[@]+"${args[@]}"})]
EOF
composed=true
"${compose[@]}" down --remove-orphans --timeout 5 >/dev/null 2>&1 || true # what an interrupted run left
say "docker-compose up: responder and initiator on their own network; rddp compare ${args[*]:-}"
status=0
"${compose[@]}" up --abort-on-container-exit --exit-code-from initiator >&2 || status=$?
initiator=$("${compose[@]}" ps -q initiator)
[ -n "$initiator" ] || die "no initiator container"
"$docker" logs "$initiator" 2>/dev/null # its standard output: the table, as rddp compare prints it
if [ "$status" -eq 0 ]; then
  mkdir -p "$out"
  "$docker" cp "$initiator:/results/." "$out/"
  say "results copied to $out: $(cd "$out" && echo *)"
else
  say "the initiator failed (status $status)"
fi
exit "$status"
