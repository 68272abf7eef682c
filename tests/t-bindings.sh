#!/bin/sh
# SPDX-License-Identifier: MIT
# t-bindings - bindings from other languages, on this library and on
# libcpucycles' own (built from tests/libcpucycles-standin.c, and
# tests/libcpucycles-lazy.c: a pointer set on the first call, a frequency
# above 2^31), each as libcpucycles.so.1:
#   <cpucycles.h> with -DCPUCYCLES_NO_INLINE compiles alone (C99
#     -Wpedantic -Werror, C++) and preprocesses to declarations only;
#   tests/bindings-user.c, built with it, takes &cpucycles and counts;
#   doc/bindings.md's snippets, each taken from the page as written: the
#     ctypes snippet (SKIP without python3); the command that preprocesses
#     the header for cffi's cdef() (through pkg-config, a .pc file here
#     naming the build's headers and library); cffi's ABI mode (SKIP
#     without cffi: Debian's python3-cffi) and API mode (SKIP without
#     Python's headers: Debian's python3-dev), and API mode without
#     CPUCYCLES_NO_INLINE stopped by the header's #error;
#   under _CFFI_ (what cffi's API mode defines) the header stops with an
#     #error naming CPUCYCLES_NO_INLINE;
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

echo "1..21"
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
# cffi's API mode defines _CFFI_ in the C it generates: without
# CPUCYCLES_NO_INLINE the header must stop it, saying what to define.
printf '#define _CFFI_\n#include <cpucycles.h>\n' >"$scratch/cffi-api.c"
if ! ${CC:-cc} $incflags -c "$scratch/cffi-api.c" -o "$scratch/cffi-api.o" >"$log" 2>&1 &&
   grep -q 'error.*define CPUCYCLES_NO_INLINE' "$log" &&
   ${CC:-cc} -DCPUCYCLES_NO_INLINE $incflags -c "$scratch/cffi-api.c" -o "$scratch/cffi-api.o" >>"$log" 2>&1; then
  ok "under _CFFI_ (cffi's API mode) <cpucycles.h> stops with an #error naming CPUCYCLES_NO_INLINE, and compiles with it"
else
  notok "under _CFFI_ (cffi's API mode) <cpucycles.h> stops with an #error naming CPUCYCLES_NO_INLINE, and compiles with it"
  sed 's/^/# /' "$log"
fi
: >"$log"

# doc/bindings.md's blocks, as the page has them: the N-th ```LANG block
# after the heading that starts with TITLE.
doc_block() { # title lang n
  awk -v t="$1" -v l="$2" -v n="$3" 'index($0, "## " t) == 1 { f = 1; next } f && /^## / { exit }
    f && $0 == "```" l { k++; if (k == n) { p = 1; next } } p && /^```$/ { exit } p' \
    "$top_srcdir/doc/bindings.md"
}
# pkg-config, as after an install: a .pc file naming the build's headers
# and library (a stand-in for pkg-config where there is none).
abs_src=$(cd "$top_srcdir" && pwd) abs_build=$(cd "$top_builddir" && pwd)
mkdir -p "$scratch/pc" "$scratch/bin"
printf 'Name: cpucycles\nDescription: the build tree\nVersion: 0\nCflags: -I%s/include -I%s/include\nLibs: -L%s/.libs -lcpucycles\n' \
  "$abs_src" "$abs_build" "$abs_build" >"$scratch/pc/cpucycles.pc"
if ! command -v pkg-config >/dev/null 2>&1; then
  printf '#!/bin/sh\ncase "$*" in *--cflags*) echo "-I%s/include -I%s/include" ;; *) echo "-L%s/.libs -lcpucycles" ;; esac\n' \
    "$abs_src" "$abs_build" "$abs_build" >"$scratch/bin/pkg-config" && chmod +x "$scratch/bin/pkg-config"
fi
export PKG_CONFIG_PATH="$scratch/pc"
PATH=$scratch/bin:$PATH
# doc/bindings.md's command: what cffi's cdef() is given.
doc_block "The header for generators" sh 1 >"$scratch/cdef.sh"
if [ -s "$scratch/cdef.sh" ] && (cd "$scratch" && sh ./cdef.sh) >>"$log" 2>&1 &&
   cp "$scratch/cpucycles.cdef" "$scratch/cdef.h" &&
   grep -q '^ *extern long long (\*cpucycles)(void);$' "$scratch/cdef.h" &&
   ! grep -Eq 'inline|asm|__attribute__|[{}#]' "$scratch/cdef.h"; then
  ok "doc/bindings.md's command preprocesses the header to $(grep -cv '^ *$' "$scratch/cdef.h") declarations, no inline function, asm or attribute, libcpucycles' pointer among them"
else
  notok "doc/bindings.md's command (a \`\`\`sh block) preprocesses the header to declarations only, libcpucycles' pointer among them"
  sed 's/^/# /' "$scratch/cdef.sh" "$log" "$scratch/cdef.h" 2>/dev/null
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

# doc/bindings.md's ctypes snippet, as the page has it.
doc_block "Python, ctypes" python 1 >"$scratch/snippet.py"
if [ -s "$scratch/snippet.py" ]; then
  ok "doc/bindings.md has a ctypes snippet ($(wc -l <"$scratch/snippet.py") lines)"
else
  notok "doc/bindings.md has a ctypes snippet (a \`\`\`python block under \"## Python, ctypes\")"
fi
# its line: "DIFFERENCE cycles; PERSECOND per second; IMPLEMENTATION"
for name in ours standin lazy; do
  what="doc/bindings.md's ctypes snippet on $name: a count that goes forward, cpucycles_persecond() whole, the implementation"
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
    ok "doc/bindings.md's ctypes snippet on $name: $(cat "$log")"
  else
    notok "$what (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done

# cffi, ABI mode: doc/bindings.md's snippet, cdef() of the preprocessed
# header, the pointer read at each call (lib.cpucycles is the variable's
# current value); cffi's warnings are errors ("String literal found in
# cdef()").
doc_block "Python, cffi's ABI mode" python 1 >"$scratch/cffi-user.py"
for name in ours standin lazy; do
  what="doc/bindings.md's cffi ABI-mode snippet on $name"
  dir=
  for l in $libs; do case $l in "$name="*) dir=${l#*=} ;; esac; done
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import cffi' >/dev/null 2>&1; then
    skip "$what" "no python3 with cffi (apt-get install python3-cffi)"
  elif [ -n "$foreign" ]; then
    skip "$what" "$foreign"
  elif (cd "$scratch" && LD_LIBRARY_PATH=$dir python3 -W error::UserWarning cffi-user.py) >"$log" 2>&1 &&
       got=$(awk 'NR == 1 && NF == 6 && $1 > 0 { print $6, $3 }' "$log") &&
       [ -n "$got" ] && [ "$got" = "$(expect $name)" ]; then
    ok "$what: $(cat "$log")"
  else
    notok "$what (want: $(expect $name))"; sed 's/^/# /' "$log"
  fi
  : >"$log"
done

# cffi, API mode: doc/bindings.md's build script compiles a module that
# runs; without its CPUCYCLES_NO_INLINE the build stops at the header's
# #error (it used to build, with a warning, and crash).
what="doc/bindings.md's cffi API-mode build script builds a module that counts on ours"
what_bad="cffi's API mode without CPUCYCLES_NO_INLINE stops at the build, naming it"
api_skip=
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import cffi' >/dev/null 2>&1; then
  api_skip="no python3 with cffi (apt-get install python3-cffi)"
elif [ -n "$foreign" ]; then
  api_skip=$foreign
elif ! python3 -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  api_skip="no Python.h (apt-get install python3-dev)"
fi
if [ -n "$api_skip" ]; then
  skip "$what" "$api_skip"; skip "$what_bad" "$api_skip"
else
  mkdir -p "$scratch/api" "$scratch/api-bad"
  doc_block "Python, cffi's API mode" python 1 >"$scratch/api/build.py"
  sed 's/define_macros=\[("CPUCYCLES_NO_INLINE", None)\], *//' "$scratch/api/build.py" >"$scratch/api-bad/build.py"
  cp "$scratch/cpucycles.cdef" "$scratch/api/" 2>/dev/null; cp "$scratch/cpucycles.cdef" "$scratch/api-bad/" 2>/dev/null
  if grep -q CPUCYCLES_NO_INLINE "$scratch/api/build.py" &&
     (cd "$scratch/api" && python3 build.py) >>"$log" 2>&1 &&
     (cd "$scratch/api" && LD_LIBRARY_PATH=$ours python3 -c 'from _cpucycles import ffi, lib
t0 = lib.cpucycles(); t1 = lib.cpucycles()
print(t1 - t0, "cycles;", lib.cpucycles_persecond(), "per second;", ffi.string(lib.cpucycles_implementation()).decode())') >"$log.run" 2>&1 &&
     got=$(awk 'NR == 1 && NF == 6 && $1 > 0 { print $6, $3 }' "$log.run") && [ "$got" = "$expect_ours" ]; then
    ok "$what: $(cat "$log.run")"
  else
    notok "$what (want: $expect_ours)"; sed 's/^/# /' "$scratch/api/build.py" "$log" "$log.run" 2>/dev/null
  fi
  : >"$log"
  if ! grep -q CPUCYCLES_NO_INLINE "$scratch/api-bad/build.py" &&
     ! (cd "$scratch/api-bad" && python3 build.py) >>"$log" 2>&1 &&
     grep -q 'error.*define CPUCYCLES_NO_INLINE' "$log"; then
    ok "$what_bad: $(grep -m1 -o 'error: #error.*' "$log" | cut -c1-100)..."
  else
    notok "$what_bad"; sed 's/^/# /' "$log"
  fi
  : >"$log"
fi

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
