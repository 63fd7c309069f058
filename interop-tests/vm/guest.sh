# guest.sh — PID 1 in the guest's real root: mounts what programs expect, loads the modules asked for, runs
# the command with the caller's environment and folder, writes its exit status into the run folder, powers off.
BB=/run/rddp/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
$BB mount -t proc proc /proc
$BB mount -t sysfs sysfs /sys
$BB mkdir -p /dev/pts /dev/shm
$BB mount -t devpts -o ptmxmode=666 devpts /dev/pts
$BB mount -t tmpfs tmpfs /dev/shm
$BB mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
$BB mount -t configfs configfs /sys/kernel/config 2>/dev/null
echo /usr/sbin/modprobe > /proc/sys/kernel/modprobe   # so that socket(..., IPPROTO_SCTP) loads sctp
for arg in $($BB cat /proc/cmdline); do
  case "$arg" in
    rddp.run=*) RUN=${arg#rddp.run=} ;;
    rddp.load=*) LOAD=${arg#rddp.load=} ;;
  esac
done
OUT=/dev/ttyS0
ERR=/dev/ttyS0
for port in /sys/class/virtio-ports/*; do
  case "$($BB cat "$port/name" 2>/dev/null)" in
    rddp.out) OUT=/dev/${port##*/} ;;
    rddp.err) ERR=/dev/${port##*/} ;;
  esac
done
$BB ip link set lo up
$BB hostname rddp-guest
for module in $(echo "$LOAD" | $BB tr ',' ' '); do modprobe "$module" || echo "guest: modprobe $module failed" > "$ERR"; done
echo "RDDP-GUEST-READY $($BB cut -d' ' -f1 /proc/uptime)" > /dev/ttyS0
/bin/bash -c ". $RUN/env; cd \"\$RDDP_VM_PWD\" 2>/dev/null || cd /; exec /bin/bash $RUN/command" < /dev/null > "$OUT" 2> "$ERR"
echo $? > "$RUN/status"
$BB sync
$BB umount "$RUN" 2>/dev/null
$BB poweroff -f
