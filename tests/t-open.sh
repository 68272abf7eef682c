#!/bin/sh
# SPDX-License-Identifier: MIT
# t-open - cpucycles-open against a fake root (CPUCYCLES_OPEN_ROOT), never
# the machine's own files: --help, --dry-run changes nothing and prints the
# plan, the real mode writes the values, a file it cannot write is reported
# with exit 1, a missing file is "not present here", an unknown option is
# exit 2; a value is printed only when it is a number, with no shell error
# for one that is not; the hook is refused (exit 2) as root, for another
# user's tree and when it is a link, and no link below it is followed.
# Needs top_builddir (from AM_TESTS_ENVIRONMENT).
# The hook is for an unprivileged user: when this test runs as root (as CI
# does), the tool runs as nobody (setpriv) on a fake tree owned by nobody,
# from a copy of the script that user can read (the build tree may be closed
# to it); as root without setpriv those cases SKIP.
set -u
. "$top_srcdir/tests/tap.sh"
# a failure also shows the tool's output
failed() { notok "$@"; [ -r "$out" ] && sed 's/^/# /' "$out"; }
open="$top_builddir/cpucycles-open"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-open.XXXXXX") || exit 1
chmod 755 "$tmp"
fake=$tmp/fake out=$tmp/out err=$tmp/err script=$tmp/cpucycles-open
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
asuser='' nohook=''
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null 2>&1; then
    asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
  else
    nohook="root without setpriv"
  fi
fi
# the fake tree belongs to the user the tool runs as
own() { [ -z "$asuser" ] || chown -R 65534:65534 "$@"; }
# Never let a test reach the real /proc and /sys: every run goes through run
# (SH: the shell to run the script with; hook: CPUCYCLES_OPEN_ROOT, $fake
# unless a case says otherwise).  stderr is also kept in $err.
SH=sh hook=
run() {
  CPUCYCLES_OPEN_ROOT=${hook:-$fake} $asuser $SH "$script" "$@" >"$out" 2>"$err"; rs=$?
  cat "$err" >>"$out"; return $rs
}
makefake() {
  rm -rf "$fake" && mkdir -p "$fake/sys/bus/event_source/devices/cpu" \
    "$fake/sys/bus/event_source/devices/cpu_atom" "$fake/proc/sys/kernel" || exit 1
  echo 1 >"$fake/sys/bus/event_source/devices/cpu/rdpmc"
  echo 1 >"$fake/sys/bus/event_source/devices/cpu_atom/rdpmc"
  echo 4 >"$fake/proc/sys/kernel/perf_event_paranoid"
  echo 1 >"$fake/proc/sys/kernel/nmi_watchdog"
  # no perf_user_access: an x86 kernel has none
  own "$fake"
}
values() {
  cat "$fake/sys/bus/event_source/devices/cpu/rdpmc" "$fake/sys/bus/event_source/devices/cpu_atom/rdpmc" \
    "$fake/proc/sys/kernel/perf_event_paranoid" "$fake/proc/sys/kernel/nmi_watchdog" | tr '\n' ' '
}

echo "1..17"

if [ ! -f "$open" ]; then
  for i in $(seq 17); do failed "no $open"; done; exit 0
fi
if [ -n "$nohook" ]; then
  for i in $(seq 17); do skip "the fake-root cases" "$nohook"; done; exit 0
fi
cp "$open" "$script" && chmod 755 "$script" || exit 1

run --help; s=$?
if [ $s -eq 0 ] && grep -q '^usage: cpucycles-open' "$out" && grep -q 'dry-run' "$out" && grep -qi 'timing attack' "$out"; then
  ok "--help: exit 0, usage, the timing-attack warning"
else failed "--help: exit $s"; fi

makefake; before=$(values)
run --dry-run; s=$?
if [ $s -eq 0 ] && [ "$(values)" = "$before" ] && [ ! -e "$fake/proc/sys/kernel/perf_user_access" ] &&
   grep -q 'devices/cpu/rdpmc: would write 2 (now 1)' "$out" &&
   grep -q 'devices/cpu_atom/rdpmc: would write 2' "$out" &&
   grep -q 'perf_event_paranoid: would write 1 (now 4)' "$out" &&
   grep -q 'nmi_watchdog: would write 0 (now 1)' "$out"; then
  ok "--dry-run: the plan printed, nothing changed ($before)"
else failed "--dry-run: exit $s, values $(values) (were $before)"; fi

if grep -q 'perf_user_access: not present here' "$out" && ! grep -qi 'error' "$out"; then
  ok "a file this kernel lacks is 'not present here', not an error"
else failed "missing perf_user_access"; fi

if grep -qi 'WARNING:.*timing attacks' "$out"; then
  ok "the output warns about timing attacks"
else failed "no timing-attack warning"; fi

run; s=$?
if [ $s -eq 0 ] && [ "$(values)" = "2 2 1 0 " ] && grep -q 'perf_event_paranoid: changed 4 -> 1' "$out"; then
  ok "real mode on the fake root: the files get the values ($(values))"
else failed "real mode: exit $s, values $(values)"; fi

run; s=$?
if [ $s -eq 0 ] && [ "$(values)" = "2 2 1 0 " ] && [ "$(grep -c 'nothing to do' "$out")" -eq 4 ]; then
  ok "run again: nothing to do, exit 0"
else failed "second run: exit $s"; fi

makefake; echo 0 >"$fake/proc/sys/kernel/perf_event_paranoid"
echo 0 >"$fake/proc/sys/kernel/perf_user_access"; own "$fake"
run; s=$?
if [ $s -eq 0 ] && [ "$(cat "$fake/proc/sys/kernel/perf_event_paranoid")" = 0 ] &&
   [ "$(cat "$fake/proc/sys/kernel/perf_user_access")" = 1 ] && grep -q 'perf_event_paranoid: already 0' "$out"; then
  ok "perf_event_paranoid below 1 is never raised; perf_user_access set to 1"
else failed "paranoid 0 / perf_user_access: exit $s"; fi

# A read-only file (the tool never runs as root here, so mode bits count).
makefake; chmod 444 "$fake/proc/sys/kernel/nmi_watchdog"
run; s=$?
if [ "$s" -eq 1 ] && [ "$(cat "$fake/proc/sys/kernel/nmi_watchdog")" = 1 ] &&
   grep -q 'nmi_watchdog: could not write 0 (now 1): permission denied' "$out" &&
   grep -q 'perf_event_paranoid: changed 4 -> 1' "$out"; then
  ok "a read-only file is reported with its reason, the others done, exit 1"
else failed "read-only nmi_watchdog: exit $s"; fi

run --bogus; s=$?
if [ $s -eq 2 ] && grep -q "unknown option '--bogus'" "$out"; then
  ok "an unknown option: exit 2 with a message"
else failed "unknown option: exit $s"; fi

# perf_event_paranoid that is no number test(1) can compare ("-", 20 digits,
# "1e3") is "not a number" and written, with no shell error on stderr; -5 is
# already <= 1.  Under sh (dash on Debian) and bash.
for SH in sh bash; do
  if ! command -v $SH >/dev/null 2>&1; then skip "odd perf_event_paranoid values under $SH" "no $SH"; continue; fi
  bad=
  for v in - 12345678901234567890 1e3 -5; do
    makefake; echo "$v" >"$fake/proc/sys/kernel/perf_event_paranoid"
    run; s=$?
    now=$(cat "$fake/proc/sys/kernel/perf_event_paranoid")
    if [ -s "$err" ] || [ $s -ne 0 ]; then bad="$bad [$v: exit $s, stderr: $(cat "$err")]"
    elif [ "$v" = -5 ]; then
      [ "$now" = -5 ] && grep -q 'perf_event_paranoid: already -5 (<= 1), nothing to do' "$out" || bad="$bad [$v: $now]"
    else
      [ "$now" = 1 ] && grep -q 'perf_event_paranoid: changed not a number -> 1' "$out" &&
        ! grep -q -e 12345678901234567890 -e 1e3 -e '(now -)' "$out" || bad="$bad [$v: $now]"
    fi
  done
  if [ -z "$bad" ]; then
    ok "perf_event_paranoid -, 20 digits, 1e3 written as not a number, -5 left, no shell error (under $SH)"
  else failed "odd perf_event_paranoid under $SH:$bad"; fi
done
SH=sh

# A file's text is never printed, only a number: nmi_watchdog holding a line
# of text shows "not a number", in --dry-run and in the real run.
makefake; echo 'root:$6$secret-hash:19000:0:99999:7:::' >"$fake/proc/sys/kernel/nmi_watchdog"
run --dry-run; s=$?; dry=$(cat "$out")
run; s2=$?
if [ $s -eq 0 ] && [ $s2 -eq 0 ] && ! grep -q secret "$out" && ! printf '%s\n' "$dry" | grep -q secret &&
   printf '%s\n' "$dry" | grep -q 'nmi_watchdog: would write 0 (now not a number)' &&
   grep -q 'nmi_watchdog: changed not a number -> 0' "$out"; then
  ok "a file holding text: shown as not a number, its text never printed"
else failed "text in nmi_watchdog: exit $s/$s2"; printf '%s\n' "$dry" | sed 's/^/# dry run: /'; fi

# The hook is refused, exit 2 with a message on stderr and nothing printed
# on stdout, nothing read or written: as root (here nmi_watchdog links to a
# victim file that root would overwrite and print), for a tree of another
# user's, and for a hook that is itself a symbolic link.
victim=$tmp/victim
if [ "$(id -u)" != 0 ]; then
  skip "as root, CPUCYCLES_OPEN_ROOT is refused" "not root"
else
  makefake; echo 'victim-secret 4242' >"$victim"; rm -f "$fake/proc/sys/kernel/nmi_watchdog"
  ln -s "$victim" "$fake/proc/sys/kernel/nmi_watchdog"
  bad=
  for a in --dry-run ''; do
    CPUCYCLES_OPEN_ROOT=$fake sh "$script" $a >"$out" 2>"$err"; s=$?
    stdout=$(cat "$out"); cat "$err" >>"$out"
    { [ $s -eq 2 ] && [ -z "$stdout" ] && grep -q 'CPUCYCLES_OPEN_ROOT=.* refused: .*not for root' "$err" &&
      ! grep -q -e victim-secret -e 4242 "$out" && [ "$(cat "$victim")" = 'victim-secret 4242' ] &&
      [ "$(cat "$fake/proc/sys/kernel/perf_event_paranoid")" = 4 ]; } || bad="$bad [${a:-real run}: exit $s, victim now: $(tr -d "\n" <"$victim")]"
  done
  if [ -z "$bad" ]; then
    ok "as root, CPUCYCLES_OPEN_ROOT is refused: exit 2, the victim of a link untouched and not printed"
  else failed "root with the hook:$bad"; fi
fi

makefake; before=$(values)
if [ -n "$asuser" ]; then
  # root's tree, every file writable by nobody: only the owner check stops it
  chown -R 0:0 "$fake"; chmod -R a+rwX "$fake"
else
  hook=/dev # not ours, and no proc or sys in it
  [ "$(ls -ldn /dev | { read -r _ _ o _; echo "$o"; })" != "$(id -u)" ] || hook=
fi
if [ -z "$asuser" ] && [ -z "$hook" ]; then
  skip "a tree of another user's is refused" "no directory of another user's"
else
  run; s=$?
  if [ $s -eq 2 ] && [ "$(values)" = "$before" ] && grep -q 'refused: not a directory of yours' "$err" &&
     [ "$(cat "$out")" = "$(cat "$err")" ]; then
    ok "a tree of another user's is refused: exit 2, nothing written"
  else failed "another user's tree: exit $s, values $(values) (were $before)"; fi
fi
hook=

makefake; before=$(values); ln -s "$fake" "$tmp/link"
hook=$tmp/link/; run; s=$?; hook=
if [ $s -eq 2 ] && [ "$(values)" = "$before" ] && grep -q 'refused: a symbolic link' "$err" &&
   [ "$(cat "$out")" = "$(cat "$err")" ]; then
  ok "a hook that is a symbolic link (to the user's own tree) is refused: exit 2, nothing written"
else failed "a linked hook: exit $s, values $(values) (were $before)"; fi

# Under the hook no link is followed, however the victim is reached: each
# such file is "refused" (naming the link), neither read nor written, exit
# 1, the other files done.  The victims are the user's own and writable, so
# following a link would change them; one holds a number, which would be
# printed.  First the files themselves: nmi_watchdog links to a victim,
# perf_user_access to a file that does not exist yet (a write would make it).
victim=$tmp/v/victim; mkdir -p "$tmp/v"
makefake; printf 'victim-secret\n' >"$victim"; printf '4242\n' >"$victim.num"
rm -f "$fake/proc/sys/kernel/nmi_watchdog" "$fake/proc/sys/kernel/perf_event_paranoid"
ln -s "$victim" "$fake/proc/sys/kernel/nmi_watchdog"
ln -s "$victim.num" "$fake/proc/sys/kernel/perf_event_paranoid"
ln -s "$victim.new" "$fake/proc/sys/kernel/perf_user_access"
own "$fake" "$tmp/v"
bad=
for a in --dry-run ''; do
  run $a; s=$?
  { [ $s -eq 1 ] && ! grep -q -e victim-secret -e 4242 "$out" &&
    grep -q '^/proc/sys/kernel/nmi_watchdog: refused: /proc/sys/kernel/nmi_watchdog is a symbolic link' "$out" &&
    grep -q '^/proc/sys/kernel/perf_event_paranoid: refused: .* symbolic link' "$out" &&
    grep -q '^/proc/sys/kernel/perf_user_access: refused: .* symbolic link' "$out" &&
    [ "$(cat "$victim")" = victim-secret ] && [ "$(cat "$victim.num")" = 4242 ] && [ ! -e "$victim.new" ] &&
    [ "$(cat "$fake/sys/bus/event_source/devices/cpu/rdpmc")" = "$([ -n "$a" ] && echo 1 || echo 2)" ]
  } || bad="$bad [${a:-real run}: exit $s, victims now: $(cat "$victim" "$victim.num" | tr '\n' ' ')$([ ! -e "$victim.new" ] || echo "and $victim.new made")]"
done
if [ -z "$bad" ]; then
  ok "symbolic links to files in the fake tree: refused, not followed, not printed, exit 1, the others done"
else failed "linked files:$bad"; fi

# Then directories: proc/sys and sys/bus/event_source/devices link to trees
# of victims.
makefake; rm -rf "$fake/proc/sys" "$fake/sys/bus/event_source/devices" "$tmp/vsys" "$tmp/vdev"
mkdir -p "$tmp/vsys/kernel" "$tmp/vdev/cpu"
printf '4242\n' >"$tmp/vsys/kernel/perf_event_paranoid"; printf 'victim-secret\n' >"$tmp/vsys/kernel/nmi_watchdog"
printf '4343\n' >"$tmp/vdev/cpu/rdpmc"
ln -s "$tmp/vsys" "$fake/proc/sys"; ln -s "$tmp/vdev" "$fake/sys/bus/event_source/devices"
own "$fake" "$tmp/vsys" "$tmp/vdev"
victims() { cat "$tmp/vsys/kernel/perf_event_paranoid" "$tmp/vsys/kernel/nmi_watchdog" "$tmp/vdev/cpu/rdpmc" | tr '\n' ' '; }
bad=
for a in --dry-run ''; do
  run $a; s=$?
  { [ $s -eq 1 ] && ! grep -q -e victim-secret -e 4242 -e 4343 "$out" &&
    grep -q '^/proc/sys/kernel/nmi_watchdog: refused: /proc/sys is a symbolic link' "$out" &&
    grep -q '^/proc/sys/kernel/perf_event_paranoid: refused: /proc/sys is a symbolic link' "$out" &&
    grep -q '^/sys/bus/event_source/devices/cpu/rdpmc: refused: /sys/bus/event_source/devices is a symbolic link' "$out" &&
    [ "$(victims)" = "4242 victim-secret 4343 " ] && [ ! -e "$tmp/vsys/kernel/perf_user_access" ]
  } || bad="$bad [${a:-real run}: exit $s, victims now: $(victims)]"
done
if [ -z "$bad" ]; then
  ok "symbolic links to directories in the fake tree: refused, not followed, not printed, exit 1"
else failed "linked directories:$bad"; fi
