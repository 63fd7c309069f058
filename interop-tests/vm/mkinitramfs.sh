#!/bin/bash
# mkinitramfs.sh VM_HOME — a busybox initramfs holding only what reaches the host's root file system (virtio,
# 9p, overlayfs); every other module is loaded later from the unpacked kernel tree, mounted in the guest.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VM_HOME=${1:?VM_HOME}
VERSION=$(ls "$VM_HOME/kernel/lib/modules" | head -1)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/{bin,dev,proc,sys,modules}
cp /bin/busybox "$WORK/bin/busybox"
for applet in sh mount mkdir insmod cat poweroff switch_root; do ln -s busybox "$WORK/bin/$applet"; done
: > "$WORK/modules/order"
for module in virtio_pci virtio_console 9pnet_virtio 9p overlay; do
  # insmod lines in dependency order; 'builtin' lines need nothing
  /usr/sbin/modprobe -d "$VM_HOME/kernel" -S "$VERSION" --show-depends "$module" | awk '$1 == "insmod" {print $2}' |
  while read -r path; do
    name=$(basename "$path"); name=${name%.xz}; name=${name%.zst}
    grep -qx "$name" "$WORK/modules/order" && continue
    case "$path" in
      *.xz) xz -dc "$path" > "$WORK/modules/$name" ;;
      *.zst) zstd -qdc "$path" > "$WORK/modules/$name" ;;
      *) cp "$path" "$WORK/modules/$name" ;;
    esac
    echo "$name" >> "$WORK/modules/order"
  done
done
cp "$HERE/init" "$WORK/init" && chmod +x "$WORK/init"
cp "$HERE/guest.sh" "$WORK/guest.sh"
(cd "$WORK" && find . | cpio -o -H newc --quiet | gzip -1) > "$VM_HOME/initrd.gz.tmp"
mv "$VM_HOME/initrd.gz.tmp" "$VM_HOME/initrd.gz"
