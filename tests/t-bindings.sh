#!/bin/sh
# SPDX-License-Identifier: MIT
# t-bindings - bindings from other languages, on this library and on
# libcpucycles' own (built from tests/libcpucycles-standin.c, and
# tests/libcpucycles-lazy.c: a pointer set on the first call, a frequency
# above 2^31), each as libcpucycles.so.1:
#   <cpucycles.h> with -DCPUCYCLES_NO_INLINE compiles alone (C99
#     -Wpedantic -Werror, C++) and preprocesses to declarations only;
#   tests/bindings-user.c, built with it, takes &cpucycles and counts;
#   README's ctypes snippet, taken from README.md itself (SKIP without
#     python3);
#   cffi's cdef() of the preprocessed header, ABI mode (SKIP without cffi:
#     Debian's python3-cffi);
#   bindgen over the header, and a Rust program that calls
#     cpucycles.unwrap()() (SKIP without bindgen or rustc: Debian's bindgen
#     and rustc).
# The libraries are the build tree's (.libs); the other languages load them
# only where this host's python3 and rustc can (no probe runner, no
# sanitizer, the same file format and C library).
# Needs: top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), CC, CXX.
set -u
. "$top_srcdir/tests/tap.sh"
check() { what=$1; shift; if "$@" >>"$log" 2>&1; then ok "$what"; else notok "$what"; sed 's/^/# /' "$log"; fi; : >"$log"; }

echo "1..18"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-bindings.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log
: >"$log"
incflags="-I$top_srcdir/include -I$top_builddir/include"
strict="-Wall -Wextra -Wpedantic -Werror"
cc_target=$(${CC:-cc} -dumpmachine 2>/dev/null)
cxx_target=$(${CXX:-c++} -dumpmachine 2>/dev/null)

# The header as bindings read it.
printf '#include <cpucycles.h>\n' >"$scratch/alone.c"
bad=
${CC:-cc} -std=c99 $strict -DCPUCYCLES_NO_INLINE $incflags -c "$scratch/alone.c" -o "$scratch/alone.o" \
  >>"$log" 2>&1 || bad="$bad C99"
if command -v "${CXX:-c++}" >/dev/null 2>&1 && [ "$cc_target" = "$cxx_target" ]; then
  ${CXX:-c++} -std=c++11 $strict -DCPUCYCLES_NO_INLINE -x c++ $incflags -c "$scratch/alone.c" \
    -o "$scratch/alone.o" >>"$log" 2>&1 || bad="$bad C++"
fi
if [ -z "$bad" ]; then
  ok "<cpucycles.h> with -DCPUCYCLES_NO_INLINE compiles alone, C99 and C++, -Wpedantic -Werror"
else
  notok "<cpucycles.h> with -DCPUCYCLES_NO_INLINE does not compile alone:$bad"; sed 's/^/# /' "$log"
fi
: >"$log"
# README's command: what cffi's cdef() is given.
${CC:-cc} -E -P -DCPUCYCLES_NO_INLINE -DCPUCYCLES_API= $incflags - <"$scratch/alone.c" 2>>"$log" |
  grep -v '^ *$' >"$scratch/cdef.h"
if grep -q '^ *extern long long (\*cpucycles)(void);$' "$scratch/cdef.h" &&
   ! grep -Eq 'inline|asm|__attribute__|[{}#]' "$scratch/cdef.h"; then
  ok "with -DCPUCYCLES_NO_INLINE -DCPUCYCLES_API= it preprocesses to $(wc -l <"$scratch/cdef.h") declarations, no inline function, asm or attribute, libcpucycles' pointer among them"
else
  notok "with -DCPUCYCLES_NO_INLINE -DCPUCYCLES_API= it preprocesses to declarations only, libcpucycles' pointer among them"
  sed 's/^/# /' "$log" "$scratch/cdef.h"
fi
: >"$log"

# The libraries: ours, and libcpucycles' two stand-ins, each alone in a
# directory as libcpucycles.so.1.
# (A static build's programs carry ours in them: they run, the stand-ins
# cannot replace it.)
ours=$(cd "$top_builddir/.libs" 2>/dev/null && pwd)
libs="ours=$ours"
shared=
if [ -n "$ours" ] && [ -f "$ours/libcpucycles.so.1" ]; then
  shared=yes
  standin() { # source directory
    mkdir -p "$scratch/$2" &&
      ${CC:-cc} ${CFLAGS:-} -shared -fPIC -Wl,-soname,libcpucycles.so.1 "$top_srcdir/tests/$1" \
        -o "$scratch/$2/libcpucycles.so.1" ${LDFLAGS:-}
  }
  check "libcpucycles' stand-ins build as libcpucycles.so.1 (tests/libcpucycles-standin.c, tests/libcpucycles-lazy.c)" \
    eval 'standin libcpucycles-standin.c standin && standin libcpucycles-lazy.c lazy'
  libs="$libs standin=$scratch/standin lazy=$scratch/lazy"
else
  skip "libcpucycles' stand-ins build as libcpucycles.so.1" "no shared library in this build"
fi
# what each library must say: ours what the C program found, the stand-ins
# their names and frequencies
expect_ours=
expect() { # library: "IMPLEMENTATION PERSECOND"
  case $1 in
    ours) echo "$expect_ours" ;;
    standin) echo "standin-monotonic 1000000000" ;;
    lazy) echo "standin-lazy 3400000000" ;;
  esac
}

# C with -DCPUCYCLES_NO_INLINE: &cpucycles is libcpucycles' pointer's address.
check "tests/bindings-user.c (&cpucycles) builds with -DCPUCYCLES_NO_INLINE -Werror and links with -lcpucycles" \
  ${CC:-cc} -std=c99 $strict -DCPUCYCLES_NO_INLINE ${CFLAGS:-} $incflags "$top_srcdir/tests/bindings-user.c" \
  -o "$scratch/bindings-user" ${LDFLAGS:-} -L"$top_builddir/.libs" -lcpucycles
for name in ours standin lazy; do
  dir=
  for l in $libs; do case $l in "$name="*) dir=${l#*=} ;; esac; done
  if [ -z "$dir" ]; then
    skip "C through &cpucycles on $name" "no shared library in this build"; continue
  fi
  if [ -x "$scratch/bindings-user" ] &&
     LD_LIBRARY_PATH=$dir ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/bindings-user" >"$log" 2>&1 &&
     line=$(grep '^bindings-user-ok ' "$log") &&
     { [ $name = ours ] || [ "$(echo "$line" | cut -d' ' -f2,3)" = "$(expect $name)" ]; }; then
    [ $name = ours ] && expect_ours=$(echo "$line" | cut -d' ' -f2,3)
    ok "C through &cpucycles on $name: $line"
  else
    notok "C through &cpucycles on $name (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done

# Where this host's python3 and rustc can load the build's library.
foreign=
if [ -z "$shared" ]; then
  foreign="no shared library in this build"
elif [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  foreign="target programs run through $CPUCYCLES_PROBE_RUNNER"
else
  case " ${CFLAGS:-} ${LDFLAGS:-} " in
    *-fsanitize*) foreign="a sanitizer build (its runtime must come first in the process)" ;;
  esac
fi
if [ -z "$foreign" ] && command -v python3 >/dev/null 2>&1 && command -v "${OBJDUMP:-objdump}" >/dev/null 2>&1; then
  py=$(python3 -c 'import sys; print(sys.executable)')
  format() { "${OBJDUMP:-objdump}" -f "$1" 2>/dev/null | sed -n 's/.*file format //p'; }
  libc_of_lib=$("${OBJDUMP:-objdump}" -p "$ours/libcpucycles.so.1" 2>/dev/null | awk '$1 == "NEEDED" && $2 ~ /^libc[.]/ { print $2 }')
  libc_of_py=$(python3 -c 'import ctypes.util; print(ctypes.util.find_library("c"))')
  if [ "$(format "$ours/libcpucycles.so.1")" != "$(format "$py")" ]; then
    foreign="the library is $(format "$ours/libcpucycles.so.1"), python3 $(format "$py")"
  elif [ -n "$libc_of_lib" ] && [ "$libc_of_lib" != "$libc_of_py" ]; then
    foreign="the library needs $libc_of_lib, python3 has $libc_of_py"
  fi
fi

# README's ctypes snippet, as README.md has it (the first python block of
# its "From other languages" paragraph).
awk '/^\*\*From other languages\*\*/ { f = 1 } f && /^## / { exit }
     f && /^```python$/ { p = 1; next } p && /^```$/ { exit } p' "$top_srcdir/README.md" >"$scratch/snippet.py"
if [ -s "$scratch/snippet.py" ]; then
  ok "README's \"From other languages\" has a ctypes snippet ($(wc -l <"$scratch/snippet.py") lines)"
else
  notok "README's \"From other languages\" has a ctypes snippet (a \`\`\`python block)"
fi
# its line: "DIFFERENCE cycles; PERSECOND per second; IMPLEMENTATION"
for name in ours standin lazy; do
  what="README's ctypes snippet on $name: a count that goes forward, cpucycles_persecond() whole, the implementation"
  dir=
  for l in $libs; do case $l in "$name="*) dir=${l#*=} ;; esac; done
  if ! command -v python3 >/dev/null 2>&1; then
    skip "$what" "no python3"
  elif [ -n "$foreign" ]; then
    skip "$what" "$foreign"
  elif [ ! -s "$scratch/snippet.py" ]; then
    notok "$what: no snippet"
  elif LD_LIBRARY_PATH=$dir python3 "$scratch/snippet.py" >"$log" 2>&1 &&
       got=$(awk 'NR == 1 && NF == 6 && $2 == "cycles;" && $5 == "second;" && $1 > 0 { print $6, $3 }' "$log") &&
       [ -n "$got" ] && [ "$got" = "$(expect $name)" ]; then
    ok "README's ctypes snippet on $name: $(cat "$log")"
  else
    notok "$what (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done

# cffi, ABI mode: cdef() of the preprocessed header, the pointer read at
# each call (lib.cpucycles is the variable's current value).
cat >"$scratch/cffi-user.py" <<'PY'
import sys, warnings
warnings.simplefilter("error", UserWarning)  # cffi's "String literal found in cdef()"
import cffi
ffi = cffi.FFI()
with open(sys.argv[1]) as f:
    ffi.cdef(f.read())
lib = ffi.dlopen("libcpucycles.so.1")
t0 = lib.cpucycles()
t1 = lib.cpucycles()
print(t1 - t0, "cycles;", lib.cpucycles_persecond(), "per second;", ffi.string(lib.cpucycles_implementation()).decode())
PY
for name in ours standin lazy; do
  what="cffi's cdef() of the preprocessed header on $name"
  dir=
  for l in $libs; do case $l in "$name="*) dir=${l#*=} ;; esac; done
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import cffi' >/dev/null 2>&1; then
    skip "$what" "no python3 with cffi (apt-get install python3-cffi)"
  elif [ -n "$foreign" ]; then
    skip "$what" "$foreign"
  elif LD_LIBRARY_PATH=$dir python3 "$scratch/cffi-user.py" "$scratch/cdef.h" >"$log" 2>&1 &&
       got=$(awk 'NR == 1 && NF == 6 && $1 > 0 { print $6, $3 }' "$log") &&
       [ -n "$got" ] && [ "$got" = "$(expect $name)" ]; then
    ok "$what: $(cat "$log")"
  else
    notok "$what (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done

# bindgen over the header with -DCPUCYCLES_NO_INLINE, as a -sys crate's
# build script runs it, and a Rust program written for libcpucycles.
cat >"$scratch/main.rs" <<'RS'
#![allow(non_upper_case_globals, dead_code)]
include!("bindings.rs");
fn main() {
    unsafe {
        let t0 = cpucycles.unwrap()();
        let t1 = cpucycles.unwrap()();
        let name = std::ffi::CStr::from_ptr(cpucycles_implementation()).to_str().unwrap();
        println!("{} cycles; {} per second; {}", t1 - t0, cpucycles_persecond(), name);
    }
}
RS
what="bindgen over <cpucycles.h> with -DCPUCYCLES_NO_INLINE binds the pointer; a Rust program calling cpucycles.unwrap()() builds"
rust=
if ! command -v bindgen >/dev/null 2>&1 || ! command -v rustc >/dev/null 2>&1; then
  skip "$what" "no bindgen and rustc (apt-get install bindgen rustc)"
elif [ -n "$foreign" ]; then
  skip "$what" "$foreign"
elif bindgen "$top_srcdir/include/cpucycles.h" -o "$scratch/bindings.rs" -- -DCPUCYCLES_NO_INLINE $incflags \
       >>"$log" 2>&1 &&
     tr -s ' \n' ' ' <"$scratch/bindings.rs" | grep -q 'pub static mut cpucycles: ::std::option::Option<unsafe extern "C" fn() -> ::std::os::raw::c_longlong>' &&
     rustc --edition 2018 -O "$scratch/main.rs" -o "$scratch/rust-user" -L "native=$ours" -l dylib=cpucycles \
       >>"$log" 2>&1; then
  ok "$what"; rust=yes
else
  notok "$what"; sed 's/^/# /' "$log"; grep -A2 'cpucycles\b' "$scratch/bindings.rs" 2>/dev/null | sed 's/^/# /'
fi
: >"$log"
for name in ours standin lazy; do
  what="the Rust program on $name"
  dir=
  for l in $libs; do case $l in "$name="*) dir=${l#*=} ;; esac; done
  if [ -z "$rust" ]; then
    skip "$what" "no program (above)"
  elif LD_LIBRARY_PATH=$dir "$scratch/rust-user" >"$log" 2>&1 &&
       got=$(awk 'NR == 1 && NF == 6 && $1 > 0 { print $6, $3 }' "$log") &&
       [ -n "$got" ] && [ "$got" = "$(expect $name)" ]; then
    ok "$what: $(cat "$log")"
  else
    notok "$what (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done
