#!/bin/sh
# SPDX-License-Identifier: MIT
# image.sh - a bootable Debian kernel and an initramfs for the
# system-emulation tier (doc/testing.md, "Real kernels").
#
#   ci/sysemu/image.sh ARCH DIR
#
# ARCH: arm64, amd64, ppc64el, s390x, armhf, mips64el, i386 (Debian
# bookworm's kernels) or riscv64 (Debian sid's: bookworm has none).
# Fetches the suite's package lists for the tier's architectures once into
# DIR/apt-SUITE (its own apt state: the machine's sources and lists are not
# touched; a list served mid-sync is fetched again, three times at most),
# downloads (cached in DIR/debs) Debian's own kernel for ARCH (the package
# linux-image-FLAVOUR depends on, and its linux-binary and linux-modules
# when it is split so) and busybox-static, and writes DIR/ARCH/kernel and
# DIR/ARCH/initrd: busybox, ci/sysemu/init as /init, the kernel modules
# the 9p shares need, and the target's C library from its cross toolchain
# (so that dynamically linked programs of a cross build run as they are).
# Needs: apt-get, dpkg-deb, cpio, gzip, xz, the cross toolchain's C
# library (/usr/TRIPLET/lib; the host's own for amd64).
set -eu
arch=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm
case $arch in
  arm64) flavour=arm64 triplet=aarch64-linux-gnu loader=ld-linux-aarch64.so.1
         modules="virtio_mmio 9pnet_virtio 9p" ;;
  amd64) flavour=amd64 triplet=x86_64-linux-gnu loader=ld-linux-x86-64.so.2
         modules="virtio_pci 9pnet_virtio 9p" ;;
  riscv64) suite=sid flavour=riscv64 triplet=riscv64-linux-gnu loader=ld-linux-riscv64-lp64d.so.1
         modules="virtio_pci 9pnet_virtio 9p" ;;
  ppc64el) flavour=powerpc64le triplet=powerpc64le-linux-gnu loader=ld64.so.2
         modules="virtio_pci 9pnet_virtio 9p" ;;
  s390x) flavour=s390x triplet=s390x-linux-gnu loader=ld64.so.1
         modules="virtio_ccw 9pnet_virtio 9p" ;;
  armhf) flavour=armmp-lpae triplet=arm-linux-gnueabihf loader=ld-linux-armhf.so.3
         modules="virtio_mmio 9pnet_virtio 9p" ;;
  mips64el) flavour=5kc-malta triplet=mips64el-linux-gnuabi64 loader=ld.so.1
         modules="virtio_pci 9pnet_virtio 9p" ;;
  i386) flavour=686 triplet=i686-linux-gnu loader=ld-linux.so.2
         modules="virtio_pci 9pnet_virtio 9p" ;;
  *) echo "image.sh: unknown architecture '$arch' (arm64 amd64 riscv64 ppc64el s390x armhf mips64el i386)" >&2; exit 2 ;;
esac
libdir=/usr/$triplet/lib
[ "$arch" = amd64 ] && libdir=/lib/x86_64-linux-gnu
out=$dir/$arch
# (made again when ci/sysemu/init differs from the one it holds, whatever
# the files' times: a copied image dir once kept an old init)
[ -s "$out/kernel" ] && [ -s "$out/initrd" ] && cmp -s "$here/init" "$out/init" &&
  [ "$out/initrd" -nt "$here/image.sh" ] && exit 0
mkdir -p "$dir/debs" "$out"

# The suite's package lists, once, in apt state of their own.
aptdir=$dir/apt-$suite
case $suite in
  sid) arches=riscv64 ;;
  *) arches="amd64 arm64 ppc64el s390x armhf mips64el i386" ;;
esac
set -- -o "Dir::Etc::SourceList=$aptdir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
  -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache" -o APT::Sandbox::User=root
for a in $arches; do set -- "$@" -o "APT::Architectures::=$a"; done
if [ ! -e "$aptdir/updated" ]; then
  mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
    >"$aptdir/sources.list"
  tries=0
  until apt-get -q "$@" update >"$aptdir/update.log" 2>&1 &&
        ! grep -q '^[WE]:' "$aptdir/update.log"; do
    tries=$((tries + 1))
    [ $tries -lt 3 ] || { cat "$aptdir/update.log" >&2; echo "image.sh: apt-get update of Debian $suite failed 3 times" >&2; exit 1; }
    echo "image.sh: apt-get update of Debian $suite failed (try $tries of 3), again in 20 s" >&2
    sleep 20
  done
  : >"$aptdir/updated"
fi

# The kernel package linux-image-FLAVOUR stands for (and, in newer
# kernels, the linux-binary and linux-modules packages it is split into),
# and busybox-static.
kpkg=$(apt-cache "$@" depends "linux-image-$flavour:$arch" 2>/dev/null |
  sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n 1)
[ -n "$kpkg" ] || { echo "image.sh: no linux-image-$flavour:$arch package in Debian $suite" >&2; exit 1; }
pkgs="$kpkg $(apt-cache "$@" depends "$kpkg:$arch" 2>/dev/null |
  sed -n 's/^ *Depends: \(linux-\(binary\|modules\)-[0-9][^:]*\).*/\1/p' | tr '\n' ' ')busybox-static"
debs=
for p in $pkgs; do
  deb=$(ls "$dir/debs/${p}"_*_"$arch".deb 2>/dev/null | head -n 1) ||
    true
  if [ -z "$deb" ]; then
    (cd "$dir/debs" && apt-get -q "$@" download "$p:$arch" >/dev/null) ||
      { echo "image.sh: cannot download $p:$arch from Debian $suite" >&2; exit 1; }
    deb=$(ls "$dir/debs/${p}"_*_"$arch".deb | head -n 1)
  fi
  debs="$debs $deb"
done
rm -rf "$out/x" && mkdir -p "$out/x"
for deb in $debs; do dpkg-deb -x "$deb" "$out/x"; done
kernel=$(ls "$out/x/boot/vmlinu"[xz]-* "$out/x/usr/lib/modules/"*/vmlinu[xz] 2>/dev/null | head -n 1) ||
  true
[ -n "$kernel" ] || { echo "image.sh: no vmlinuz in $pkgs" >&2; exit 1; }
cp "$kernel" "$out/kernel"

# The initramfs tree.
root=$out/root
rm -rf "$root" && mkdir -p "$root/bin" "$root/lib" "$root/modules" "$root/proc" "$root/sys" \
  "$root/dev" "$root/tmp" "$root/etc"
for b in "$out/x/bin/busybox" "$out/x/usr/bin/busybox"; do
  [ -e "$b" ] && cp "$b" "$root/bin/busybox" && break
done
[ -e "$root/bin/busybox" ] || { echo "image.sh: no busybox in busybox-static:$arch" >&2; exit 1; }
cp "$here/init" "$root/init" && chmod +x "$root/init"
# Modules, each after what it depends on (the "depends=" of its .modinfo);
# compressed ones (.ko.xz) uncompressed.  A module the package does not
# have is one the kernel has built in (sid's split packages have no
# modules.builtin to say so): left out, and said in the log.
kdir=$(ls -d "$out/x/lib/modules/"* "$out/x/usr/lib/modules/"* 2>/dev/null | head -n 1)
order=
add_module() {
  case " $order " in *" $1 "*) return ;; esac
  f=$(find "$kdir" -name "$1.ko" -o -name "$1.ko.xz" | head -n 1)
  [ -n "$f" ] || { echo "image.sh: no module $1 in $pkgs: taken as built in"; return; }
  case $f in
    *.xz) xz -dc "$f" >"$root/modules/$1.ko" ;;
    *) cp "$f" "$root/modules/$1.ko" ;;
  esac
  for d in $(tr '\0' '\n' <"$root/modules/$1.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$d"; done
  order="$order $1"
}
for m in $modules; do add_module "$m"; done
echo $order >"$root/modules/order"
# The target's C library, where its programs look for it: /lib, and
# /lib64 and /lib/TRIPLET as the same directory.
# (mips64el's cross toolchain has its loader in /usr/TRIPLET/lib64)
# (libstdc++: examples/cpp-lambda, which make check runs where a C++
# compiler is found)
for f in "$loader" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libgcc_s.so.1 \
         libstdc++.so.6; do
  for d in "$libdir" "${libdir}64"; do
    [ -e "$d/$f" ] && cp -L "$d/$f" "$root/lib/$f" && break
  done
done
[ -e "$root/lib/$loader" ] || { echo "image.sh: no $libdir/$loader (the $triplet cross C library)" >&2; exit 1; }
ln -s lib "$root/lib64" && ln -s . "$root/lib/$triplet"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.tmp"
mv "$out/initrd.tmp" "$out/initrd"
cp "$here/init" "$out/init"
rm -rf "$out/x"
