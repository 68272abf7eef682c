#!/bin/sh
# SPDX-License-Identifier: MIT
# t-installed - install into a scratch DESTDIR and use it as a user would:
# pkg-config flags, strict C99/C11/C++ builds of tests/api-user.c, a run,
# a program written for libcpucycles' interface (tests/upstream-user.c),
# the chosen counter's instruction inline in the user's code, CMake's
# find_package(cpucycles) (SKIP without cmake), and programs built with our
# header run with a stand-in for libcpucycles' own library
# (tests/libcpucycles-standin.c); every exported function has its man page
# (man NAME finds it); and the install hook's ldconfig: a root install
# without DESTDIR into a directory the loader searches runs $(LDCONFIG) on
# the libdir (a stub here, into a scratch prefix: it records its arguments,
# and lists the directories the loader searches as `ldconfig -v -N` does,
# the scratch libdir among them or not); into another directory, or with
# DESTDIR, or not as root, it does not.
# Needs: top_srcdir, top_builddir (from AM_TESTS_ENVIRONMENT), MAKE, CC, CXX;
# the build's CFLAGS and LDFLAGS are added to the link (a sanitizer build).
set -u
. "$top_srcdir/tests/tap.sh"
check() { what=$1; shift; if "$@" >>"$log" 2>&1; then ok "$what"; else notok "$what"; sed 's/^/# /' "$log"; fi; : >"$log"; }

echo "1..30"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cpucycles-installed.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log
: >"$log"
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/cpucycles.pc")
libdir=$(sed -n 's/^libdir=//p' "$top_builddir/cpucycles.pc" | sed "s|\${exec_prefix}|$prefix|; s|\${prefix}|$prefix|")
root=$scratch/root

# ldconfig, as the install hook sees it: a stub whose -v -N lists
# $STUB_SEARCHED as a directory the loader searches, and which records the
# arguments of any other call (one that would update the cache)
stub=$scratch/ldconfig-stub
ldlog=$scratch/ldconfig.log
printf '#!/bin/sh\ncase "$1" in -v) [ -n "${STUB_SEARCHED:-}" ] && echo "$STUB_SEARCHED: (from the stub)"; exit 0 ;; esac\necho "$*" >>"%s"\n' \
  "$ldlog" >"$stub" && chmod +x "$stub"
# (the DESTDIR install below: the stub says the loader searches its libdir)
STUB_SEARCHED=$libdir
export STUB_SEARCHED
check "make install DESTDIR=... succeeds" ${MAKE:-make} -C "$top_builddir" install DESTDIR="$root" LDCONFIG="$stub"
if [ ! -e "$ldlog" ]; then
  ok "a DESTDIR install does not run ldconfig"
else
  notok "a DESTDIR install does not run ldconfig: it ran ldconfig $(cat "$ldlog")"
fi
inc=$root$prefix/include
lib=$root$libdir
# cpucycles-config.h, the one header that differs between architectures,
# is where configure put it (archincludedir: includedir, or includedir/TRIPLET)
includedir=$(sed -n 's/^includedir=//p' "$top_builddir/cpucycles.pc" | sed "s|\${prefix}|$prefix|")
archinc=$root$(sed -n 's/^archincludedir=//p' "$top_builddir/cpucycles.pc" | sed "s|\${includedir}|$includedir|; s|\${prefix}|$prefix|")
incflags="-I$inc -I$archinc"
check "both libraries, their headers and pkg-config files are installed" \
  test -f "$inc/cpucycles.h" -a -f "$archinc/cpucycles-config.h" -a -f "$inc/cpucycles/counter.h" \
  -a -f "$inc/cpucycles-bench.h" -a -f "$lib/pkgconfig/cpucycles.pc" -a -f "$lib/libcpucycles.a" \
  -a -f "$lib/pkgconfig/cpucycles-bench.pc" -a -f "$lib/libcpucycles-bench.a"
bad=$(grep -h '^# *define' "$archinc/cpucycles-config.h" "$inc/cpucycles.h" "$inc/cpucycles-bench.h" \
  "$inc"/cpucycles/*.h | grep -v '^# *define CPUCYCLES_')
if [ -z "$bad" ]; then
  ok "the installed headers define only CPUCYCLES_ names"
else
  notok "the installed headers define only CPUCYCLES_ names"; echo "$bad" | sed 's/^/# /'
fi

strict="-Wall -Wextra -Wpedantic -Werror -O2"
check "C99 strict build against the installed headers and library" \
  ${CC:-cc} -std=c99 $strict ${CFLAGS:-} $incflags "$top_srcdir/tests/api-user.c" -o "$scratch/user99" \
  ${LDFLAGS:-} -L"$lib" -lcpucycles -lm
check "C11 strict build" \
  ${CC:-cc} -std=c11 $strict $incflags -c "$top_srcdir/tests/api-user.c" -o "$scratch/user11.o"
# A cross build may have found no C++ compiler for the target and fallen
# back to the native one, which would check the wrong architecture's path.
cc_target=$(${CC:-cc} -dumpmachine 2>/dev/null)
cxx_target=$(${CXX:-c++} -dumpmachine 2>/dev/null)
if ! command -v "${CXX:-c++}" >/dev/null 2>&1; then
  skip "C++ strict build" "no C++ compiler"
elif [ "$cc_target" != "$cxx_target" ]; then
  skip "C++ strict build" "${CXX:-c++} targets $cxx_target, not $cc_target"
else
  check "C++ strict build (-Wold-style-cast too)" \
    ${CXX:-c++} -std=c++11 $strict -Wold-style-cast -x c++ $incflags -c "$top_srcdir/tests/api-user.c" \
    -o "$scratch/userxx.o"
fi
# clang++ -Weverything on a file that only includes the header and reads
# the counter (C++98 has no long long, the API's type: that one is off).
if ! command -v clang++ >/dev/null 2>&1; then
  skip "clang++ -Weverything on the installed headers" "no clang++"
elif [ "$(clang++ -dumpmachine 2>/dev/null | cut -d- -f1)" != "$(echo "$cc_target" | cut -d- -f1)" ]; then
  skip "clang++ -Weverything on the installed headers" "clang++ targets another architecture"
else
  printf '#include <cpucycles.h>\nlong long cpucycles_user_read();\nlong long cpucycles_user_read() { return cpucycles(); }\n' \
    >"$scratch/everything.cc"
  check "clang++ -Weverything on the installed headers" \
    clang++ -std=c++11 -Weverything -Wno-c++98-compat-pedantic -Werror $incflags -c "$scratch/everything.cc" \
    -o "$scratch/everything.o"
fi
if [ -x "$scratch/user99" ] && LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/user99" >"$log" 2>&1 && grep -q api-ok "$log"; then
  ok "the program runs against the installed library: $(head -n 1 "$log")"
else
  notok "the program runs against the installed library"; sed 's/^/# /' "$log"
fi
: >"$log"

# libcpucycles' binary interface: a program that declares it itself.
check "a program written for libcpucycles' interface (no header of ours) links with -lcpucycles" \
  ${CC:-cc} ${CFLAGS:-} "$top_srcdir/tests/upstream-user.c" -o "$scratch/upstream" \
  ${LDFLAGS:-} -L"$lib" -lcpucycles
if [ -x "$scratch/upstream" ] && LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/upstream" >"$log" 2>&1 &&
   grep -q '^upstream-ok' "$log" && grep -q '^cpucycles tracesetup 0 ' "$log"; then
  ok "it runs, with tracesetup lines: $(grep -c '^cpucycles tracesetup' "$log") counters, $(grep '^cpucycles implementation' "$log")"
  sed 's/^/# /' "$log"
else
  notok "it runs, with cpucycles_tracesetup() lines"; sed 's/^/# /' "$log"
fi
: >"$log"

# Every installed header compiles on its own, as C99 with -Wpedantic
# -Werror and as C++: the two APIs and every counter's file (a counter of
# another architecture compiles to nothing).
bad=
for h in cpucycles.h cpucycles-bench.h $(cd "$inc" && ls cpucycles/*.h); do
  printf '#include <%s>\n' "$h" >"$scratch/alone.c"
  ${CC:-cc} -std=c99 -Wall -Wextra -Wpedantic -Werror $incflags -c "$scratch/alone.c" -o "$scratch/alone.o" \
    >>"$log" 2>&1 || bad="$bad $h"
  if command -v "${CXX:-c++}" >/dev/null 2>&1 && [ "$cc_target" = "$cxx_target" ]; then
    ${CXX:-c++} -std=c++11 -Wall -Wextra -Wpedantic -Werror -x c++ $incflags -c "$scratch/alone.c" \
      -o "$scratch/alone.o" >>"$log" 2>&1 || bad="$bad $h(C++)"
  fi
done
if [ -z "$bad" ]; then
  ok "every installed header compiles alone, C99 and C++, -Wpedantic -Werror: $(cd "$inc" && ls cpucycles/*.h | wc -l) counter files and the two APIs"
else
  notok "installed headers that do not compile alone:$bad"; sed 's/^/# /' "$log"
fi
: >"$log"

# A program written for libcpucycles' API (it includes <cpucycles.h>):
# source-compatible with ours.
check "a program written for libcpucycles' <cpucycles.h> builds unchanged against ours" \
  ${CC:-cc} -std=c99 $strict ${CFLAGS:-} $incflags "$top_srcdir/tests/libcpucycles-user.c" \
  -o "$scratch/libcpucycles-user" ${LDFLAGS:-} -L"$lib" -lcpucycles
if [ -x "$scratch/libcpucycles-user" ] &&
   LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/libcpucycles-user" >"$log" 2>&1 &&
   grep -q '^libcpucycles-user-ok' "$log"; then
  ok "and runs: $(grep '^cpucycles implementation' "$log")"
else
  notok "and runs"; sed 's/^/# /' "$log"
fi
: >"$log"

# What each shared library exports: exactly the names its sources declare
# with CPUCYCLES_API (the headers, and the core's private interface), and
# the counter library no more than 14 of them.
declared() { # file...: the names declared with CPUCYCLES_API
  grep -ho '^CPUCYCLES_API[^(;]*[ *(]*cpucycles[a-z_0-9]*' "$@" | grep -o 'cpucycles[a-z_0-9]*$' |
    sort -u | tr '\n' ' ' | sed 's/ $//'
}
exports() { # library: its defined dynamic symbols, less the C runtime's
  # _init and _fini (musl's crti.o leaves them global; glibc's hides them)
  $NM -D --defined-only "$1" | awk '$2 ~ /^[A-Z]$/ && $3 != "_init" && $3 != "_fini" { print $3 }' |
    sort | tr '\n' ' ' | sed 's/ $//'
}
NM=${NM:-nm}
core_api=$(declared "$top_srcdir/include/cpucycles.h" "$top_srcdir/src/private.h")
bench_api=$(declared "$top_srcdir/include/cpucycles-bench.h")
so=$(ls "$lib"/libcpucycles.so.* 2>/dev/null | head -n 1)
bench_so=$(ls "$lib"/libcpucycles-bench.so.* 2>/dev/null | head -n 1)
if [ -z "$so" ] || [ -z "$bench_so" ]; then
  skip "each shared library exports exactly what it declares" "no shared library in this build"
elif ! command -v "${NM%% *}" >/dev/null 2>&1; then
  skip "each shared library exports exactly what it declares" "no ${NM%% *}"
elif [ "$(exports "$so")" = "$core_api" ] && [ "$(exports "$bench_so")" = "$bench_api" ] &&
     [ "$(echo "$core_api" | wc -w)" -le 14 ]; then
  ok "libcpucycles exports the $(echo "$core_api" | wc -w) it declares ($core_api); libcpucycles-bench its $(echo "$bench_api" | wc -w)"
else
  notok "each shared library exports exactly what it declares (the counter's at most 14)"
  echo "# libcpucycles declares: $core_api"; echo "# exports:               $(exports "$so")"
  echo "# libcpucycles-bench declares: $bench_api"; echo "# exports:                     $(exports "$bench_so")"
fi

# The harness, as its users build it: pkg-config's cpucycles-bench, a run
# (measures, compares, prints JSON).
bench_flags=$(PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags --libs cpucycles-bench 2>>"$log")
if [ -z "$bench_flags" ]; then
  skip "a harness program builds with pkg-config cpucycles-bench and runs" "no pkg-config"
else
  if ${CC:-cc} -std=c99 $strict ${CFLAGS:-} "$top_srcdir/tests/bench-user.c" -o "$scratch/bench-user" \
       $bench_flags -I"$archinc" ${LDFLAGS:-} >>"$log" 2>&1 &&
     LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/bench-user" >>"$log" 2>&1 &&
     grep -q '^bench-ok' "$log"; then
    ok "a harness program builds with pkg-config cpucycles-bench ($bench_flags) and runs: $(grep '^bench-ok' "$log")"
  else
    notok "a harness program builds with pkg-config cpucycles-bench and runs"; sed 's/^/# /' "$log"
  fi
fi
: >"$log"

# man cpucycles_bench_compare: each harness function's page is a link to
# cpucycles_bench(3), which renders from the installed tree.
man3=$root$prefix/share/man/man3
if ! command -v soelim >/dev/null 2>&1 || ! command -v groff >/dev/null 2>&1; then
  skip "man cpucycles_bench_compare finds cpucycles_bench(3)" "no soelim and groff (apt-get install groff-base)"
elif [ -f "$man3/cpucycles_bench_compare.3" ] &&
     (cd "$root$prefix/share/man" && soelim man3/cpucycles_bench_compare.3 | groff -man -Tutf8 -P-cbou 2>&1) |
       grep -q 'cpucycles_bench_compare'; then
  ok "man cpucycles_bench_compare finds cpucycles_bench(3): $(cat "$man3/cpucycles_bench_compare.3")"
else
  notok "man cpucycles_bench_compare finds cpucycles_bench(3)"; ls "$man3" | sed 's/^/# /'
fi

# man NAME finds a page for every function the two libraries export (but
# the private interface's): the page itself, or a ".so" link to an
# installed page whose NAME section names it.
private=$(declared "$top_srcdir/src/private.h")
functions() { # library: its exported functions (exports(): the C runtime's _init and _fini left out)
  for name in $(exports "$1"); do
    $NM -D --defined-only "$1" | awk -v n="$name" '$3 == n && $2 == "T" { print n }'
  done
}
if [ -z "$so" ] || [ -z "$bench_so" ]; then
  skip "every exported function has its man page" "no shared library in this build"
elif ! command -v "${NM%% *}" >/dev/null 2>&1; then
  skip "every exported function has its man page" "no ${NM%% *}"
else
  missing= count=0
  for name in $(functions "$so") $(functions "$bench_so"); do
    case " $private " in *" $name "*) continue ;; esac
    count=$((count + 1))
    page=$man3/$name.3
    target=$(sed -n 's|^\.so man3/\(.*\)$|\1|p' "$page" 2>/dev/null)
    [ -n "$target" ] && page=$man3/$target
    if [ ! -f "$page" ] || ! sed -n '/^\.SH NAME/,/^\.SH/p' "$page" | grep -qw "$name"; then
      missing="$missing $name"
    fi
  done
  if [ "$count" -gt 0 ] && [ -z "$missing" ]; then
    ok "every exported function has its man page: $count names, each its page or a link to one that names it"
  else
    notok "exported functions without a man page that names them:$missing"; ls "$man3" | sed 's/^/# /'
  fi
fi

# The install hook's ldconfig: a root install without DESTDIR into a
# directory the loader searches runs it on the libdir (so that the loader
# finds the library at once); one into another directory, or a user's,
# does not.  Into a scratch prefix, every directory the install writes
# given on the command line (none may fall outside it), ldconfig the stub;
# the counter library alone (libtool relinks the harness against the
# installed counter, which it does only into configure's libdir).
sys=$scratch/sys
sys_install() { # what the stub says the loader searches
  STUB_SEARCHED=$1 ${MAKE:-make} -C "$top_builddir" install \
    prefix="$sys" exec_prefix="$sys" bindir="$sys/bin" libdir="$sys/lib" includedir="$sys/include" \
    archincludedir="$sys/include" datarootdir="$sys/share" mandir="$sys/share/man" LDCONFIG="$stub" \
    lib_LTLIBRARIES=libcpucycles.la
}
: >"$log"; rm -f "$ldlog"
if sys_install "$scratch/elsewhere" >"$log" 2>&1 && [ ! -e "$ldlog" ] &&
   { [ "$(id -u)" != 0 ] || grep -q "note: the loader does not search $sys/lib" "$log"; }; then
  ok "make install prefix=SCRATCH, a directory the loader does not search: no ldconfig$(grep -m1 '^note:' "$log" | sed 's/^note/, and a note/')"
else
  notok "make install prefix=SCRATCH, a directory the loader does not search: no ldconfig, a note"
  sed 's/^/# /' "$log"; [ -e "$ldlog" ] && echo "# ran ldconfig $(cat "$ldlog")"
fi
: >"$log"; rm -f "$ldlog"
sys_install "$sys/lib" >"$log" 2>&1; status=$?
if [ "$(id -u)" = 0 ]; then
  if [ $status -eq 0 ] && [ "$(cat "$ldlog" 2>/dev/null)" = "$sys/lib" ]; then
    ok "as root, without DESTDIR, into a directory the loader searches, it runs ldconfig on the libdir: ldconfig $(cat "$ldlog")"
  else
    notok "as root, without DESTDIR, into a directory the loader searches, it runs ldconfig on the libdir ($sys/lib): $(cat "$ldlog" 2>/dev/null || echo not run)"
    sed 's/^/# /' "$log"
  fi
else
  if [ $status -eq 0 ] && [ ! -e "$ldlog" ]; then
    ok "not root: it does not run ldconfig"
  else
    notok "not root: it does not run ldconfig (exit $status)$(cat "$ldlog" 2>/dev/null | sed 's/^/, but ran ldconfig /')"
    sed 's/^/# /' "$log"
  fi
fi
: >"$log"

# Which instruction the chosen counter's read is: its installed file says
# so (CPUCYCLES_<ID>_INSTRUCTION), when its read is one inline instruction.
chosen=$(sed -n 's/^#define CPUCYCLES_CHOSEN "\(.*\)"/\1/p' "$archinc/cpucycles-config.h")
choice=$(sed -n 's/^#define CPUCYCLES_BUILD_CHOICE \([01]\)$/\1/p' "$archinc/cpucycles-config.h")
insn=
if [ -n "$chosen" ]; then
  uid=$(echo "$chosen" | tr a-z- A-Z_)
  insn=$(sed -n "s/^#define CPUCYCLES_${uid}_INSTRUCTION \"\([^\"]*\)\".*/\1/p" "$inc/cpucycles/$chosen.h")
fi
OBJDUMP=${OBJDUMP:-objdump}
if [ "$choice" != 1 ]; then
  skip "the counter's instruction is inline in the user's code" "no counter chosen at build time"
elif ! grep -q '^#define CPUCYCLES_INLINE_READ' "$archinc/cpucycles-config.h"; then
  skip "the counter's instruction is inline in the user's code" "$chosen is read through the library"
elif [ -z "$insn" ]; then
  skip "the counter's instruction is inline in the user's code" "$chosen is not a single instruction (its file names none)"
elif ! command -v "$OBJDUMP" >/dev/null 2>&1; then
  skip "the counter's instruction is inline in the user's code" "no $OBJDUMP"
else
  "$OBJDUMP" -d "$scratch/user99" | awk '/<[.]?cpucycles_user_measure>:/{f=1;next} /^$/{f=0} f' >"$log"
  if grep -qiw "$insn" "$log"; then
    ok "$insn is inline in cpucycles_user_measure ($chosen)"
  else
    notok "$insn is inline in cpucycles_user_measure ($chosen)"; sed 's/^/# /' "$log"
  fi
fi

# CMake: find_package(cpucycles) from the DESTDIR tree (the config file's
# paths are relative to itself), the imported target, a run; a request for
# a version this is not refused.
if ! command -v cmake >/dev/null 2>&1; then
  skip "CMake find_package(cpucycles) builds and runs a program" "no cmake (apt-get install cmake)"
  skip "CMake find_package(cpucycles 9.0) is refused" "no cmake"
else
  mkdir -p "$scratch/cmake"
  cp "$top_srcdir/tests/api-user.c" "$scratch/cmake/"
  cp "$top_srcdir/tests/bench-user.c" "$scratch/cmake/"
  cat >"$scratch/cmake/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.10)
project(cpucycles_user C)
find_package(cpucycles ${WANT} REQUIRED)
add_executable(api-user api-user.c)
target_link_libraries(api-user PRIVATE cpucycles::cpucycles)
add_executable(bench-user bench-user.c)
target_link_libraries(bench-user PRIVATE cpucycles::bench)
CMAKE
  set -- ${CC:-cc}
  compiler=$1; shift
  compiler_flags="$*"
  : >"$log"
  cmake_build() { # version build-dir
    rm -rf "$2"
    cmake -S "$scratch/cmake" -B "$2" -DWANT="$1" -DCMAKE_PREFIX_PATH="$root$prefix" \
      -DCMAKE_C_COMPILER="$compiler" -DCMAKE_C_FLAGS="$compiler_flags ${CFLAGS:-}" \
      -DCMAKE_EXE_LINKER_FLAGS="${CFLAGS:-} ${LDFLAGS:-}" >>"$log" 2>&1 &&
      cmake --build "$2" >>"$log" 2>&1
  }
  if cmake_build 0.1 "$scratch/cmake/build" &&
     LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/cmake/build/api-user" >>"$log" 2>&1 &&
     grep -q api-ok "$log" &&
     LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/cmake/build/bench-user" >>"$log" 2>&1 &&
     grep -q bench-ok "$log"; then
    ok "CMake find_package(cpucycles 0.1) builds and runs a program with cpucycles::cpucycles and one with cpucycles::bench"
  else
    notok "CMake find_package(cpucycles 0.1) builds and runs programs with cpucycles::cpucycles and cpucycles::bench"
    sed 's/^/# /' "$log"
  fi
  : >"$log"
  version=$(sed -n 's/^Version: //p' "$top_builddir/cpucycles.pc")
  if ! cmake_build 9.0 "$scratch/cmake/build9" && grep -q "version: $version" "$log"; then
    ok "CMake find_package(cpucycles 9.0) is refused: $(grep -m1 "version: $version" "$log" | sed 's/^ *//')"
  else
    notok "CMake find_package(cpucycles 9.0) is refused"; sed 's/^/# /' "$log"
  fi
  : >"$log"
fi

# The other way round: programs built against this header and library, run
# with libcpucycles' own libcpucycles.so.1 (a stand-in that has its binary
# interface only).  cpucycles() must read through that library's pointer,
# also when the program takes cpucycles' address: the copy it then gets
# must not be named "cpucycles" (the reference to libcpucycles' pointer
# would bind to it and jump into code; a volatile pointer keeps the
# compiler from inlining the call again).
standin=$scratch/standin
if [ ! -f "$lib/libcpucycles.so.1" ]; then
  skip "the stand-in builds as libcpucycles.so.1" "no shared library in this build"
  skip "the installed cpucycles-info needs libcpucycles.so.1" "no shared library in this build"
  skip "cpucycles-info with libcpucycles' own library" "no shared library in this build"
  skip "cpucycles-info with another build's library" "no shared library in this build"
  skip "a program built with our header runs with libcpucycles' own library" "no shared library in this build"
  skip "cpucycles' address, with either library" "no shared library in this build"
  skip "the harness on libcpucycles' own library" "no shared library in this build"
elif ! ${CC:-cc} -E -dM $incflags "$inc/cpucycles.h" 2>/dev/null | grep -q 'CPUCYCLES_LIBCPUCYCLES_FALLBACK 1'; then
  skip "the stand-in builds as libcpucycles.so.1" "no weak references with this compiler"
  skip "the installed cpucycles-info needs libcpucycles.so.1" "no weak references with this compiler"
  skip "cpucycles-info with libcpucycles' own library" "no weak references with this compiler"
  skip "cpucycles-info with another build's library" "no weak references with this compiler"
  skip "a program built with our header runs with libcpucycles' own library" "no weak references with this compiler"
  skip "cpucycles' address, with either library" "no weak references with this compiler"
  skip "the harness on libcpucycles' own library" "no weak references with this compiler"
else
  mkdir -p "$standin"
  check "the stand-in builds as libcpucycles.so.1" \
    ${CC:-cc} ${CFLAGS:-} -shared -fPIC -Wl,-soname,libcpucycles.so.1 "$top_srcdir/tests/libcpucycles-standin.c" \
    -o "$standin/libcpucycles.so.1" ${LDFLAGS:-}
  if [ -x "$scratch/libcpucycles-user" ] &&
     LD_LIBRARY_PATH=$standin ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/libcpucycles-user" >"$log" 2>&1 &&
     grep -q '^libcpucycles-user-ok' "$log" && grep -q '^cpucycles implementation standin-monotonic' "$log"; then
    ok "a program built with our header and library runs with libcpucycles' own: $(grep '^cpucycles implementation' "$log")"
  else
    notok "a program built with our header and library runs with libcpucycles' own"; sed 's/^/# /' "$log"
  fi
  : >"$log"
  # cpucycles-info is linked to the library and reports what it decides;
  # with libcpucycles' own it says what to install.
  info=$root$prefix/bin/cpucycles-info
  if "${OBJDUMP:-objdump}" -p "$info" 2>/dev/null | grep -q 'NEEDED *libcpucycles\.so\.1' &&
     LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$info" >"$log" 2>&1 &&
     grep -q '^cpucycles implementation ' "$log"; then
    ok "the installed cpucycles-info needs libcpucycles.so.1 and runs with it: $(grep '^cpucycles implementation ' "$log")"
  else
    notok "the installed cpucycles-info needs libcpucycles.so.1 and runs with it"; sed 's/^/# /' "$log"
  fi
  LD_LIBRARY_PATH=$standin ${CPUCYCLES_PROBE_RUNNER:-} "$info" >"$log" 2>&1; status=$?
  if [ "$status" -eq 2 ] && grep -q "is not cpucycles'.*install cpucycles" "$log"; then
    ok "with libcpucycles' own library it exits 2: $(head -n 1 "$log")"
  else
    notok "with libcpucycles' own library it exits 2 with a message (exit $status)"; sed 's/^/# /' "$log"
  fi
  : >"$log"
  # another build of this version, whose private interface is another:
  # refused, not read as its own (it read past that build's structures)
  version=$(sed -n 's/^#define CPUCYCLES_VERSION "\(.*\)"$/\1/p' "$top_builddir/include/cpucycles-config.h")
  mkdir -p "$scratch/otherbuild"
  if ${CC:-cc} ${CFLAGS:-} -shared -fPIC -Wl,-soname,libcpucycles.so.1 -DSTANDIN_OTHER_BUILD="$version" \
       "$top_srcdir/tests/libcpucycles-standin.c" -o "$scratch/otherbuild/libcpucycles.so.1" ${LDFLAGS:-} >>"$log" 2>&1; then
    LD_LIBRARY_PATH=$scratch/otherbuild ${CPUCYCLES_PROBE_RUNNER:-} "$info" >"$log" 2>&1; status=$?
    if [ "$status" -eq 2 ] && grep -q "the library is another build of cpucycles $version" "$log"; then
      ok "with another build of $version (private interface 1) it exits 2: $(head -n 1 "$log")"
    else
      notok "with another build of $version it exits 2 with a message (exit $status)"; sed 's/^/# /' "$log"
    fi
  else
    notok "the other build's stand-in builds"; sed 's/^/# /' "$log"
  fi
  : >"$log"
  # The harness on libcpucycles' own library: it runs, and its results
  # say what that library could not tell.
  if [ -x "$scratch/bench-user" ] &&
     LD_LIBRARY_PATH=$standin:$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/bench-user" >"$log" 2>&1 &&
     grep -q '^bench-ok standin-monotonic' "$log" && grep -q '"other-library"' "$log" &&
     grep -q '"host": "unknown' "$log" && grep -q '"unit": "unknown"' "$log"; then
    ok "the harness runs on libcpucycles' own library, and its results say so (other-library, host and unit unknown): $(grep '^bench-ok' "$log")"
  else
    notok "the harness runs on libcpucycles' own library, and its results say so"; sed 's/^/# /' "$log"
  fi
  : >"$log"
  printf '#include <cpucycles.h>\n#include <stdio.h>\nint main(void)\n{\n  long long (*volatile read)(void) = cpucycles;\n  long long t0 = read(), t1 = read();\n  printf("%%s %%lld\\n", cpucycles_implementation(), t1 - t0);\n  return t1 >= t0 && t0 != 0 ? 0 : 1;\n}\n' >"$scratch/address.c"
  if ${CC:-cc} -std=c99 $strict ${CFLAGS:-} $incflags "$scratch/address.c" -o "$scratch/address" \
       ${LDFLAGS:-} -L"$lib" -lcpucycles >"$log" 2>&1 &&
     LD_LIBRARY_PATH=$lib ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/address" >>"$log" 2>&1 &&
     LD_LIBRARY_PATH=$standin ${CPUCYCLES_PROBE_RUNNER:-} "$scratch/address" >>"$log" 2>&1 &&
     grep -q '^standin-monotonic ' "$log"; then
    ok "cpucycles' address counts with either library: $(tr '\n' ' ' <"$log")"
  else
    notok "cpucycles' address counts with either library"; sed 's/^/# /' "$log"
  fi
  : >"$log"
fi
