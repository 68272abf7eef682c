#!/bin/sh
# SPDX-License-Identifier: MIT
# multiarch-install - what a distribution's multiarch packages need: an
# x86-64 and an aarch64 build, each with --prefix=/usr
# --libdir=/usr/lib/TRIPLET, installed into one tree, share only files
# that are byte-identical (dpkg refuses to co-install M-A: same packages
# otherwise), and a client builds and runs for each architecture with
# pkg-config alone.  Prints TAP.  Needs gcc, aarch64-linux-gnu-gcc,
# qemu-aarch64 and pkg-config (CI: after ci/cross-matrix.sh --install).
#   sh ci/multiarch-install.sh [WORKDIR]   (from the source tree)
set -u
src=$(pwd)
work=${1:-$src/_multiarch}
. "$src/tests/tap.sh"
echo "1..4"
rm -rf "$work" && mkdir -p "$work/root" || exit 1
for tool in aarch64-linux-gnu-gcc qemu-aarch64 pkg-config; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    for i in 1 2 3 4; do ok "multiarch install # SKIP no $tool"; done
    exit 0
  fi
done

# install TRIPLET [CONFIGURE ARGS]: configure, build, install into root-TRIPLET
install() {
  triplet=$1; shift
  mkdir -p "$work/$triplet" &&
    (cd "$work/$triplet" && "$src/configure" --prefix=/usr --libdir="/usr/lib/$triplet" "$@" &&
       make -j2 && make install DESTDIR="$work/root-$triplet") >"$work/$triplet.log" 2>&1
}
if install x86_64-linux-gnu &&
   install aarch64-linux-gnu --host=aarch64-linux-gnu \
     --with-probe-runner="qemu-aarch64 -L /usr/aarch64-linux-gnu"; then
  ok "x86-64 and aarch64 built and installed with --libdir=/usr/lib/TRIPLET"
else
  notok "x86-64 and aarch64 built and installed"; tail -n 20 "$work"/*.log | sed 's/^/# /'
fi

# Files at the same path must be the same bytes, but for the programs in
# /usr/bin: those are one architecture's by nature, and a distribution
# ships them in a Multi-Arch: foreign package (libcpucycles-dev and
# libcpucycles1 are the Multi-Arch: same ones).
(cd "$work/root-x86_64-linux-gnu" && find . -type f ! -path './usr/bin/*' | sort) >"$work/amd64.files"
(cd "$work/root-aarch64-linux-gnu" && find . -type f ! -path './usr/bin/*' | sort) >"$work/arm64.files"
shared=$(comm -12 "$work/amd64.files" "$work/arm64.files")
differ=
for f in $shared; do
  cmp -s "$work/root-x86_64-linux-gnu/$f" "$work/root-aarch64-linux-gnu/$f" || differ="$differ $f"
done
if [ -n "$shared" ] && [ -z "$differ" ]; then
  ok "the $(echo "$shared" | wc -l) files both install outside /usr/bin are identical; the configuration headers are $(grep -h 'cpucycles-config.h$' "$work"/*.files | tr '\n' ' ')"
else
  notok "files both install differ:$differ"
fi

# One tree with both, as dpkg would leave it; a client per architecture.
cp -a "$work/root-x86_64-linux-gnu/." "$work/root/" && cp -a "$work/root-aarch64-linux-gnu/." "$work/root/"
client() { # triplet compiler runner...
  triplet=$1 compiler=$2; shift 2
  flags=$(PKG_CONFIG_SYSROOT_DIR=$work/root PKG_CONFIG_LIBDIR=$work/root/usr/lib/$triplet/pkgconfig \
    pkg-config --cflags --libs cpucycles) &&
    $compiler "$src/tests/api-user.c" $flags -o "$work/user-$triplet" >"$work/user-$triplet.log" 2>&1 &&
    "$@" "$work/user-$triplet" >>"$work/user-$triplet.log" 2>&1 && grep -q api-ok "$work/user-$triplet.log"
}
if client x86_64-linux-gnu gcc env LD_LIBRARY_PATH="$work/root/usr/lib/x86_64-linux-gnu"; then
  ok "an x86-64 client builds with pkg-config alone and runs: $(grep -m1 api-ok "$work/user-x86_64-linux-gnu.log")"
else
  notok "an x86-64 client builds with pkg-config and runs"; sed 's/^/# /' "$work/user-x86_64-linux-gnu.log"
fi
if client aarch64-linux-gnu aarch64-linux-gnu-gcc qemu-aarch64 -L /usr/aarch64-linux-gnu \
     -E LD_LIBRARY_PATH="$work/root/usr/lib/aarch64-linux-gnu"; then
  ok "an aarch64 client builds with pkg-config alone and runs: $(grep -m1 api-ok "$work/user-aarch64-linux-gnu.log")"
else
  notok "an aarch64 client builds with pkg-config and runs"; sed 's/^/# /' "$work/user-aarch64-linux-gnu.log"
fi
