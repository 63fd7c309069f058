#!/bin/bash
# run-in-vm.sh [--load m1,m2] [--rw DIR] [--mem 4G] [--smp 1] [--] command [args...]
# Runs one command as root in a stock Debian kernel (prepared by setup.sh) under QEMU with TCG, on this
# machine's own root file system (read-only, under a throw-away overlay), in the current folder and with the
# current environment; streams its output and exits with its status (125: the guest gave none). The guest has
# no network card, only its loopback. One vCPU by default: under multi-threaded TCG with two, JIT-compiled
# JVM code crashed now and then; with --smp 2 TCG runs single-threaded.
#   --load   modules to modprobe first (sctp, siw, rdma_ucm, ...)
#   --rw     share DIR read-write at the same path (e.g. the project, for results)
#   env      RDDP_VM_HOME (see setup.sh), RDDP_VM_TIMEOUT seconds (default 1800), RDDP_VM_CONSOLE=1 prints the
#            kernel console afterwards
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VM_HOME=${RDDP_VM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rddp-vm}
LOAD=; RW=; MEM=4G; SMP=1
while [ $# -gt 0 ]; do
  case "$1" in
    --load) LOAD=$2; shift 2 ;;
    --rw) RW=$(readlink -f "$2"); shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --smp) SMP=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "run-in-vm: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null && [ -d "$VM_HOME/kernel/lib/modules" ] \
  || { echo "run-in-vm: no VM prepared in $VM_HOME: run $HERE/setup.sh first" >&2; exit 125; }
VERSION=$(ls "$VM_HOME/kernel/lib/modules" | head -1)
if [ ! -f "$VM_HOME/initrd.gz" ] || [ "$HERE/init" -nt "$VM_HOME/initrd.gz" ] || [ "$HERE/guest.sh" -nt "$VM_HOME/initrd.gz" ]; then
  "$HERE/mkinitramfs.sh" "$VM_HOME"
fi
RUN=$(mktemp -d "$VM_HOME/run.XXXXXX")
RELAYS=
cleanup() { [ -z "$RELAYS" ] || kill $RELAYS 2>/dev/null || true; rm -rf "$RUN"; }
trap cleanup EXIT
{ printf '%q ' "$@"; echo; } > "$RUN/command"
export RDDP_VM_PWD=$PWD
export -p | grep -vE '^declare -x (BASH_[A-Z_]*|SHLVL|OLDPWD|_)=' | sed 's/^declare -x /export /' > "$RUN/env"
# the command's stdout and stderr come out of two virtio-serial ports backed by FIFOs (binary-safe, no tty)
mkfifo "$RUN/out.in" "$RUN/out.out" "$RUN/err.in" "$RUN/err.out"
cat "$RUN/out.out" & RELAYS=$!
cat "$RUN/err.out" >&2 & RELAYS="$RELAYS $!"
THREAD=multi; [ "$SMP" -gt 1 ] && THREAD=single
SHARE=security_model=none,multidevs=remap
EXTRA=(); [ -z "$RW" ] || EXTRA=(-virtfs "local,path=$RW,mount_tag=rwdir,$SHARE")
APPEND="console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init rddp.run=$RUN rddp.modules=$VM_HOME/kernel/lib/modules"
[ -z "$LOAD" ] || APPEND="$APPEND rddp.load=$LOAD"
[ -z "$RW" ] || APPEND="$APPEND rddp.rw=$RW"
set +e
timeout "${RDDP_VM_TIMEOUT:-1800}" qemu-system-x86_64 -accel "tcg,thread=$THREAD,tb-size=512" -cpu max \
  -m "$MEM" -smp "$SMP" -M q35 -nodefaults -no-reboot -display none -monitor none \
  -serial "file:$RUN/console.log" -kernel "$VM_HOME/kernel/boot/vmlinuz-$VERSION" -initrd "$VM_HOME/initrd.gz" \
  -append "$APPEND" \
  -virtfs "local,path=/,mount_tag=hostroot,readonly=on,$SHARE" -virtfs "local,path=$RUN,mount_tag=rundir,$SHARE" \
  "${EXTRA[@]}" -device virtio-serial-pci,id=serial \
  -chardev "pipe,id=out,path=$RUN/out" -device virtserialport,bus=serial.0,chardev=out,name=rddp.out \
  -chardev "pipe,id=err,path=$RUN/err" -device virtserialport,bus=serial.0,chardev=err,name=rddp.err < /dev/null
QEMU=$?
set -e
wait $RELAYS 2>/dev/null || true
RELAYS=
[ "${RDDP_VM_CONSOLE:-0}" != 1 ] || cat "$RUN/console.log" >&2
[ ! -f "$RUN/status" ] || exit "$(cat "$RUN/status")"
echo "run-in-vm: the guest gave no exit status (qemu exit $QEMU); its console ends with:" >&2
tail -30 "$RUN/console.log" >&2
exit 125
