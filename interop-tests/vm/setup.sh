#!/bin/bash
# setup.sh — prepares a stock Debian kernel for run-in-vm.sh under $RDDP_VM_HOME (default ~/.cache/rddp-vm):
# installs QEMU and the guest-side tools (the guest runs this machine's own root file system), unpacks the
# kernel package without installing it, builds soft-iWARP (siw) out of tree since Debian's kernel does not
# enable it, and makes a busybox initramfs. Idempotent: what is already there is kept.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VM_HOME=${RDDP_VM_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rddp-vm}
mkdir -p "$VM_HOME"
cd "$VM_HOME"
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o DPkg::Lock::Timeout=600 -qq "$@"; }
PACKAGES=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd iproute2 iptables ethtool lksctp-tools libsctp1
  rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest iperf3)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ -z "$(ls /var/lib/apt/lists/ | grep '_Packages$' | head -1)" ]; then
  apt_get update >/dev/null
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "vm setup: installing ${missing[*]}" >&2
  apt_get install -y --no-install-recommends "${missing[@]}" >/dev/null
fi
# the kernel linux-image-amd64 points at, unless RDDP_VM_KERNEL names one (e.g. linux-image-6.1.0-41-amd64)
PKG=${RDDP_VM_KERNEL:-$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)}
[ -n "$PKG" ] || { echo "vm setup: no linux-image package found (apt-get update?)" >&2; exit 1; }
VERSION=${PKG#linux-image-}
if [ ! -f "kernel/boot/vmlinuz-$VERSION" ]; then
  rm -rf kernel download && mkdir -p kernel download
  (cd download && apt-get download -qq "$PKG" 2>/dev/null)
  dpkg-deb -x download/"$PKG"_*.deb kernel
  rm -rf download
fi
MODULES=kernel/lib/modules/$VERSION
# siw with its MPA settings as module parameters (writable in /sys/module/siw/parameters): stock siw fixes them
# at build time, and the interop tests need siw both ways (revision 1 or 2, CRC asked for or strict, peer-to-peer)
if ! /usr/sbin/modinfo -F parm "$MODULES/updates/siw.ko" 2>/dev/null | grep -q '^peer_to_peer:' \
    && ! grep -q '^CONFIG_RDMA_SIW=[ym]' "kernel/boot/config-$VERSION"; then
  echo "vm setup: building siw for $VERSION" >&2
  SERIES=$(echo "$VERSION" | sed -E 's/^([0-9]+\.[0-9]+)\..*/\1/')
  COMMON=linux-headers-${VERSION%-amd64}-common
  apt_get install -y --no-install-recommends gcc make bc flex bison libelf-dev >/dev/null
  rm -rf build && mkdir -p build/download build/headers build/siw
  (cd build/download && apt-get download -qq "linux-headers-$VERSION" "$COMMON" "linux-kbuild-$SERIES" \
    "linux-source-$SERIES" 2>/dev/null)
  for deb in build/download/linux-headers-*.deb build/download/linux-kbuild-*.deb; do
    dpkg-deb -x "$deb" build/headers
  done
  HEADERS=$VM_HOME/build/headers/usr/src/linux-headers-$VERSION
  # the headers' Makefile includes the common part by its installed path: point it at the unpacked one
  echo "include $VM_HOME/build/headers/usr/src/$COMMON/Makefile" > "$HEADERS/Makefile"
  dpkg-deb --fsys-tarfile build/download/linux-source-"$SERIES"_*.deb \
    | tar -xO "./usr/src/linux-source-$SERIES.tar.xz" \
    | tar -xJ -C build/siw --strip-components=5 "linux-source-$SERIES/drivers/infiniband/sw/siw"
  sed -i -E -e 's/^const bool (mpa_crc_required|mpa_crc_strict|peer_to_peer);$/bool \1;\nmodule_param(\1, bool, 0644);/' \
    -e 's/^(u_char mpa_version = MPA_REVISION_2;)$/\1\nmodule_param(mpa_version, byte, 0644);/' build/siw/siw_main.c
  sed -i -E 's/^extern const bool (mpa_crc_required|mpa_crc_strict|peer_to_peer);$/extern bool \1;/' build/siw/siw.h
  [ "$(grep -c '^module_param(' build/siw/siw_main.c)" -ge 4 ] && [ "$(grep -c '^extern bool ' build/siw/siw.h)" -ge 3 ] \
    || { echo "vm setup: siw's MPA settings have moved; cannot make them module parameters" >&2; exit 1; }
  printf 'obj-m += siw.o\nsiw-y := siw_cm.o siw_cq.o siw_main.o siw_mem.o siw_qp.o siw_qp_tx.o siw_qp_rx.o siw_verbs.o\n' \
    > build/siw/Kbuild
  make -C "$HEADERS" M="$VM_HOME/build/siw" modules > build/siw.log 2>&1 || { tail -20 build/siw.log >&2; exit 1; }
  mkdir -p "$MODULES/updates"
  cp build/siw/siw.ko "$MODULES/updates/"
  rm -rf build
fi
/usr/sbin/depmod -b "$VM_HOME/kernel" "$VERSION"
"$HERE/mkinitramfs.sh" "$VM_HOME"
echo "vm setup: kernel $VERSION ready in $VM_HOME" >&2
