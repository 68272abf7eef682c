#!/bin/sh
# SPDX-License-Identifier: MIT
# vm.sh - boot or stop one guest of the system-emulation tier
# (doc/testing.md, "Real kernels").
#
#   ci/sysemu/vm.sh start VMDIR IMAGES ARCH SMP CPU "KERNEL ARGS" DIR...
#   ci/sysemu/vm.sh stop VMDIR
#
# start boots IMAGES/ARCH/kernel with its initrd (ci/sysemu/image.sh)
# under qemu-system (TCG: nested KVM does not boot on our machines) with
# SMP CPUs of model CPU (default: the machine's own), shares each DIR at the same path in the guest, and
# returns once the guest serves jobs from VMDIR/jobs (ci/sysemu/run).
# The console goes to VMDIR/console.log, qemu's own messages to
# VMDIR/qemu.log.  stop powers the guest off.
set -eu
cmd=$1 vm=$2

stop() {
  [ -s "$vm/pid" ] || return 0
  pid=$(cat "$vm/pid")
  : >"$vm/jobs/poweroff"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill "$pid" 2>/dev/null || true
  rm -f "$vm/pid"
}

case $cmd in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "vm.sh: start or stop" >&2; exit 2 ;;
esac
images=$3 arch=$4 smp=$5 cpu=$6 append=$7
shift 7
stop
rm -rf "$vm/jobs" && mkdir -p "$vm/jobs"
vm=$(cd "$vm" && pwd)
shares="$vm/jobs $*"
# passthrough: the guest's FIFOs and devices are real ones on the host
# (t-persecond makes a FIFO in the build directory); it needs root, and
# mapped-xattr keeps them in extended attributes otherwise.
security=mapped-xattr
[ "$(id -u)" != 0 ] || security=passthrough
set --
n=0 list=
for d in $shares; do
  d=$(cd "$d" && pwd)
  set -- "$@" -fsdev "local,id=fs$n,path=$d,security_model=$security"
  case $arch in
    arm64|armhf) set -- "$@" -device "virtio-9p-device,fsdev=fs$n,mount_tag=s$n" ;;
    s390x) set -- "$@" -device "virtio-9p-ccw,fsdev=fs$n,mount_tag=s$n" ;;
    *) set -- "$@" -device "virtio-9p-pci,fsdev=fs$n,mount_tag=s$n" ;;
  esac
  list="$list${list:+,}s$n:$d"
  n=$((n + 1))
done
# An oops panics too (oops=panic), so that the guest ends instead of
# leaving its job hung until run's timeout: Debian sid's riscv64 7.2.13
# once oopsed in perf_ctx_sched_task_cb() (a NULL pointer, at a context
# switch) under t-firstcall's 64 threads opening perf events, and that
# task hung with interrupts disabled while the guest lived on.
append="$append panic=-1 oops=panic"
# The shares' list goes to the guest as the file /shares of a second
# initramfs archive after the image's (the kernel unpacks both), not on
# the kernel command line: malta passes only about 210 characters of it
# (one 256-byte entry of the boot monitor's environment, after
# "rd_start=... rd_size=..."), and a CI run's paths made 222.
# (An archive starts on a multiple of 4 bytes: zeros in between are skipped.)
rm -rf "$vm/initrd.d" && mkdir -p "$vm/initrd.d"
printf '%s\n' "$list" >"$vm/initrd.d/shares"
pad=$(( (4 - $(wc -c <"$images/$arch/initrd") % 4) % 4 ))
{ cat "$images/$arch/initrd"; head -c "$pad" /dev/zero
  (cd "$vm/initrd.d" && echo shares | cpio -o -H newc --quiet); } >"$vm/initrd"
memory=1024
case $arch in
  arm64) qemu=qemu-system-aarch64 console=ttyAMA0 machine="-M virt" ;;
  amd64) qemu=qemu-system-x86_64 console=ttyS0 machine="-M pc" ;;
  riscv64) qemu=qemu-system-riscv64 console=ttyS0 machine="-M virt" ;;
  ppc64el) qemu=qemu-system-ppc64 console=hvc0 machine="-M pseries" ;;
  s390x) qemu=qemu-system-s390x console=ttysclp0 machine="-M s390-ccw-virtio" ;;
  armhf) qemu=qemu-system-arm console=ttyAMA0 machine="-M virt" ;;
  mips64el) qemu=qemu-system-mips64el console=ttyS0 machine="-M malta" memory=256 ;;
  i386) qemu=qemu-system-i386 console=ttyS0 machine="-M pc" ;;
  *) echo "vm.sh: unknown architecture '$arch'" >&2; exit 2 ;;
esac
# CPU "default": the machine's own model (no -cpu).
cpuflag="-cpu $cpu"
[ "$cpu" != default ] || cpuflag=
rm -f "$vm/console.log" "$vm/pid"
# In the background, not -daemonize: a daemon's standard error is
# /dev/null, and qemu's own last words (an assertion, a TCG error) are
# what says why a guest vanished without a kernel panic on its console.
# shellcheck disable=SC2086
$qemu $machine -accel tcg $cpuflag -smp "$smp" -m $memory -no-reboot \
  -display none -monitor none -serial "file:$vm/console.log" \
  -kernel "$images/$arch/kernel" -initrd "$vm/initrd" \
  -append "console=$console $append" "$@" -pidfile "$vm/pid" \
  </dev/null >"$vm/qemu.log" 2>&1 &
qemu_pid=$!
for _ in $(seq 600); do
  [ -e "$vm/jobs/ready" ] && exit 0
  kill -0 "$qemu_pid" 2>/dev/null || break
  sleep 0.2
done
echo "vm.sh: the $arch guest did not come up; its console and qemu's messages:" >&2
tail -n 30 "$vm/console.log" "$vm/qemu.log" >&2
stop
exit 1
