#!/bin/sh
# SPDX-License-Identifier: MIT
# image.sh - a bootable Debian kernel and an initramfs for the
# system-emulation tier (ci/sysemu/README).
#
#   ci/sysemu/image.sh ARCH DIR      ARCH: arm64 or amd64
#
# Downloads (apt-get download, cached in DIR/debs) Debian's own kernel for
# ARCH (the package linux-image-ARCH depends on) and busybox-static, and
# writes DIR/ARCH/kernel and DIR/ARCH/initrd: busybox, ci/sysemu/init as
# /init, the kernel modules the 9p shares need, and the target's C library
# (so that dynamically linked programs of a cross build run as they are).
# Needs: apt-get (arm64 needs `dpkg --add-architecture arm64` and an
# `apt-get update` after it), dpkg-deb, cpio, gzip.
set -eu
arch=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
case $arch in
  arm64) triplet=aarch64-linux-gnu libdir=/usr/aarch64-linux-gnu/lib loader=ld-linux-aarch64.so.1
         modules="virtio_mmio 9pnet_virtio 9p" ;;
  amd64) triplet=x86_64-linux-gnu libdir=/lib/x86_64-linux-gnu loader=ld-linux-x86-64.so.2
         modules="virtio_pci 9pnet_virtio 9p" ;;
  *) echo "image.sh: unknown architecture '$arch' (arm64, amd64)" >&2; exit 2 ;;
esac
out=$dir/$arch
[ -s "$out/kernel" ] && [ -s "$out/initrd" ] && [ "$out/initrd" -nt "$here/init" ] && exit 0
mkdir -p "$dir/debs" "$out"

# The kernel package linux-image-ARCH stands for, and busybox-static.
kpkg=$(apt-cache depends "linux-image-$arch:$arch" 2>/dev/null |
  sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n 1)
[ -n "$kpkg" ] || { echo "image.sh: no linux-image-$arch:$arch package (dpkg --add-architecture $arch; apt-get update)" >&2; exit 1; }
(cd "$dir/debs" && for p in "$kpkg" busybox-static; do
   ls "${p}"_*_"$arch".deb >/dev/null 2>&1 || apt-get download -q "$p:$arch" >/dev/null
 done)
rm -rf "$out/x" && mkdir -p "$out/x"
for deb in "$dir/debs/${kpkg}"_*_"$arch".deb "$dir/debs/busybox-static"_*_"$arch".deb; do
  dpkg-deb -x "$deb" "$out/x"
done
cp "$out/x/boot/vmlinuz-"* "$out/kernel"

# The initramfs tree.
root=$out/root
rm -rf "$root" && mkdir -p "$root/bin" "$root/lib" "$root/modules" "$root/proc" "$root/sys" \
  "$root/dev" "$root/tmp" "$root/etc"
cp "$out/x/bin/busybox" "$root/bin/busybox"
cp "$here/init" "$root/init" && chmod +x "$root/init"
# Modules, each after what it depends on (the "depends=" of its .modinfo).
kdir=$(ls -d "$out/x/lib/modules/"*)
order=
add_module() {
  case " $order " in *" $1 "*) return ;; esac
  f=$(find "$kdir" -name "$1.ko" | head -n 1)
  [ -n "$f" ] || { echo "image.sh: no module $1 in $kpkg" >&2; exit 1; }
  for d in $(tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$d"; done
  # (f again: the calls above, in this same shell, set it for each dependency)
  cp "$(find "$kdir" -name "$1.ko" | head -n 1)" "$root/modules/"
  order="$order $1"
}
for m in $modules; do add_module "$m"; done
echo $order >"$root/modules/order"
# The target's C library, where its programs look for it.
for f in "$loader" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libgcc_s.so.1; do
  [ -e "$libdir/$f" ] && cp -L "$libdir/$f" "$root/lib/$f"
done
[ "$arch" = amd64 ] && mkdir -p "$root/lib64" && cp -L "$libdir/$loader" "$root/lib64/$loader"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.tmp"
mv "$out/initrd.tmp" "$out/initrd"
rm -rf "$out/x"
