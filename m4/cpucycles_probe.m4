# SPDX-License-Identifier: MIT
# cpucycles_probe.m4 - configure-time probes of cycle counters.
#
# SYNOPSIS
#   CPUCYCLES_SET_PROBE_RUNNER
#   CPUCYCLES_PROBE_COUNTERS
#   CPUCYCLES_PROBE(NAME)
#   CPUCYCLES_HOST_FINGERPRINT
#
# DESCRIPTION
#   A probe is a small C program built from the project's own sources
#   (probes/*.c including src/), linked with AC_LINK_IFELSE and then run
#   here, directly or through the probe runner (an emulator or a remote
#   shell: --with-probe-runner or CPUCYCLES_PROBE_RUNNER).  The program
#   prints its result, which configure keeps in conftest.out; it reads
#   conftest.in, if there is one, on standard input.  Nothing but standard
#   input and output, so the runner may run the program on another machine.  A probe
#   that faults or fails reads as "no", with the reason in config.log.  When
#   cross-compiling without a runner nothing can run: the result is
#   "unknown" and the choice is left to run time.
#
#   The counters' probes are one program (probes/probe.c with every
#   counter of the target), compiled and linked once and run once per
#   counter with the counter's name as its argument: a counter that
#   crashes takes no other down.  Only when that program does not compile
#   does each counter get a program of its own, as before.
#
#   Every result is a cache variable (cpucycles_cv_counter_NAME with '-' as
#   '_'), so a user can preset it, e.g.
#     ./configure cpucycles_cv_counter_amd64_tscp='no disabled by hand'
#   A preset that is not a valid result is an error, and so is a preset
#   fingerprint that could not be a C string (m4/cpucycles_validate.m4).

# CPUCYCLES_SET_PROBE_RUNNER
# --------------------------
# Decides how probes run: sets cpucycles_probe_runner ('' = run directly)
# and cpucycles_can_run (yes/no).
AC_DEFUN_ONCE([CPUCYCLES_SET_PROBE_RUNNER], [
# The probes are the core's code: its folders on the include path (as
# Makefile.am's CORE_CPPFLAGS).
cpucycles_probe_paths="-I$srcdir/include -I$srcdir/src/util -I$srcdir/src/core -I$srcdir/src/core/setup -I$srcdir/src"
AC_ARG_WITH([probe-runner],
  [AS_HELP_STRING([--with-probe-runner=CMD],
    [run configure's probes and make check's tests through CMD, e.g.
     'qemu-aarch64 -L /usr/aarch64-linux-gnu' (default: $CPUCYCLES_PROBE_RUNNER)])],
  [AS_CASE([$withval],
     [yes|no|""], [AC_MSG_ERROR([--with-probe-runner needs a command, e.g. --with-probe-runner='qemu-aarch64 -L /usr/aarch64-linux-gnu'])],
     [cpucycles_probe_runner=$withval])],
  [cpucycles_probe_runner=${CPUCYCLES_PROBE_RUNNER-}])
AC_ARG_VAR([CPUCYCLES_PROBE_RUNNER], [command that runs target programs (see --with-probe-runner)])
AC_MSG_CHECKING([how to run probes])
dnl A runner that cannot run an empty program is reported and ignored.
AS_IF([test -n "$cpucycles_probe_runner"],
  [AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
     [AS_IF([(eval "$cpucycles_probe_runner ./conftest$ac_exeext") </dev/null >&AS_MESSAGE_LOG_FD 2>&1],
        [], [cpucycles_bad_runner="it cannot run an empty program (exit status $?)"])],
     [cpucycles_bad_runner="no program could be linked to try it"])])
AS_IF([test -n "$cpucycles_bad_runner"],
  [AC_MSG_RESULT([not through '$cpucycles_probe_runner'])
   AC_MSG_WARN([probe runner '$cpucycles_probe_runner' ignored: $cpucycles_bad_runner])
   cpucycles_probe_runner=
   AC_MSG_CHECKING([how to run probes without it])])
dnl --enable-portable: a distribution's build, for every machine of this
dnl architecture: nothing measured here goes into the installed files, so
dnl they are the same for every build (and the library chooses at run time).
AC_ARG_ENABLE([portable],
  [AS_HELP_STRING([--enable-portable],
    [for distributions: run no probe, inline no counter and record no figure
     or fingerprint of this machine, so that the installed files are the
     same from every build of this architecture; the library chooses at
     run time])],
  [AS_CASE([$enableval], [yes|no], [],
     [AC_MSG_ERROR([--enable-portable takes yes or no, not '$enableval'])])],
  [enable_portable=no])
cpucycles_not_run="compiles; cross-compiling, so not run"
AS_IF([test "x$enable_portable" = xyes],
  [cpucycles_can_run=no
   cpucycles_not_run="portable build (--enable-portable): not compiled, not run"
   AC_MSG_RESULT([not at all: --enable-portable records nothing of this machine])],
  [test -n "$cpucycles_probe_runner"],
  [cpucycles_can_run=yes
   AC_MSG_RESULT([through '$cpucycles_probe_runner'])],
  [test "$cross_compiling" = yes],
  [cpucycles_can_run=no
   AC_MSG_RESULT([they cannot run: cross-compiling without a probe runner])],
  [cpucycles_can_run=yes
   AC_MSG_RESULT([directly])])
dnl One name for the runner everywhere: the option sets the (precious)
dnl variable, which Makefile.am and the tests use; a runner that was
dnl ignored above is empty here.
CPUCYCLES_PROBE_RUNNER=$cpucycles_probe_runner
])

# _CPUCYCLES_RUN_PROGRAM(PROGRAM, IF-RAN, IF-FAILED-TO-RUN)
# ---------------------------------------------------------
# Runs PROGRAM (a shell word list: ./conftest and its arguments, which are
# counter names) directly or through the probe runner, with conftest.in
# (if any) as input and its output in conftest.out.  In IF-FAILED-TO-RUN,
# $cpucycles_probe_status is the exit status.
AC_DEFUN([_CPUCYCLES_RUN_PROGRAM], [
cpucycles_probe_cmd="$cpucycles_probe_runner $1"
cpucycles_probe_input=/dev/null
test -f conftest.in && cpucycles_probe_input=conftest.in
rm -f conftest.out
_AS_ECHO_LOG([running $cpucycles_probe_cmd <$cpucycles_probe_input])
AS_IF([(eval "$cpucycles_probe_cmd") <$cpucycles_probe_input >conftest.out 2>&AS_MESSAGE_LOG_FD &&
       test -s conftest.out],
  [cpucycles_probe_status=0
   sed 's/^/| conftest.out: /' conftest.out >&AS_MESSAGE_LOG_FD
   $2],
  [cpucycles_probe_status=$?
   _AS_ECHO_LOG([probe exited with status $cpucycles_probe_status])
   $3])
])

# _CPUCYCLES_RUN_PROBE(SOURCE, IF-RAN, IF-FAILED-TO-RUN, IF-NO-COMPILE, IF-CANNOT-RUN)
# -----------------------------------------------------------------------------------
# Links SOURCE with the core's folders on the include path and runs it
# (_CPUCYCLES_RUN_PROGRAM).
AC_DEFUN([_CPUCYCLES_RUN_PROBE], [
AC_REQUIRE([CPUCYCLES_SET_PROBE_RUNNER])
cpucycles_save_CPPFLAGS=$CPPFLAGS
CPPFLAGS="$CPPFLAGS $cpucycles_probe_paths -I$srcdir"
rm -f conftest.out
dnl A portable build runs no probe, so compiles none.
AS_IF([test "x$enable_portable" = xyes], [$5],
  [AC_LINK_IFELSE([$1],
    [AS_IF([test "$cpucycles_can_run" = yes],
      [_CPUCYCLES_RUN_PROGRAM([./conftest$ac_exeext], [$2], [$3])],
      [$5])],
    [$4])])
CPPFLAGS=$cpucycles_save_CPPFLAGS
])

# _CPUCYCLES_NOW(VARIABLE)
# ------------------------
# Sets VARIABLE to the wall-clock time in seconds, with a fraction where
# date knows %N (GNU, busybox), else in whole seconds.
m4_define([_CPUCYCLES_NOW],
[$1=`date +%s.%N 2>/dev/null`
AS_CASE([$$1], [*N*|""|*.], [$1=`date +%s`])
])

# CPUCYCLES_PROBE_COUNTERS
# ------------------------
# Probes every counter of CPUCYCLES_COUNTERS (m4/cpucycles_counters.m4), in
# order, with one CPUCYCLES_PROBE each; first finds in one preprocessing
# which counters not preset are for this target, and compiles and links
# one probe program for all of them (conftest-probes).  Writes the seconds
# it took to cpucycles-probe-time.txt and sets cpucycles_probe_seconds.
AC_DEFUN([CPUCYCLES_PROBE_COUNTERS], [
AC_REQUIRE([CPUCYCLES_SET_PROBE_RUNNER])
AC_REQUIRE([_CPUCYCLES_IDS_FN])
_CPUCYCLES_NOW([cpucycles_probe_t0])
cpucycles_target_known=no
cpucycles_target_list=
cpucycles_probe_all=
cpucycles_todo=
for cpucycles_name in m4_map_args_sep([], [], [ ], CPUCYCLES_COUNTERS); do
  cpucycles_fn_ids "$cpucycles_name"
  eval "test \"\${cpucycles_cv_counter_$cpucycles_id+set}\" = set" ||
    cpucycles_todo="$cpucycles_todo $cpucycles_name"
done
AS_IF([test -n "$cpucycles_todo"], [
  dnl Which of them are for this target: one preprocessing of all their
  dnl files, each marking itself when it defines CPUCYCLES_HAVE_<ID>.  If
  dnl that fails, each counter is checked alone (CPUCYCLES_PROBE).
  for cpucycles_name in $cpucycles_todo; do
    cpucycles_fn_ids "$cpucycles_name"
    AS_ECHO(["@%:@include \"cpucycles/$cpucycles_name.h\""])
    AS_ECHO(["@%:@ifdef CPUCYCLES_HAVE_$cpucycles_uid"])
    AS_ECHO(["cpucycles_probe_for_target $cpucycles_name"])
    AS_ECHO(["@%:@endif"])
  done > conftest-probes.h
  cpucycles_save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $cpucycles_probe_paths -I."
  AC_PREPROC_IFELSE([AC_LANG_SOURCE([[@%:@include "conftest-probes.h"]])],
    [cpucycles_target_known=yes
     cpucycles_target_list=`sed -n 's/^ *cpucycles_probe_for_target  *\([[a-z0-9-]]*\).*/\1/p' conftest.i | tr '\n' ' '`
     cpucycles_target_list=" $cpucycles_target_list"])
  CPPFLAGS=$cpucycles_save_CPPFLAGS
  _AS_ECHO_LOG([counters for this target, to probe:$cpucycles_target_list (known: $cpucycles_target_known)])
  dnl One program for them all; if it does not compile, one each.  None
  dnl for a portable build, which runs no probe.
  AS_IF([test $cpucycles_target_known = yes && test "x$cpucycles_target_list" != "x " &&
         test "x$enable_portable" != xyes], [
    {
      AS_ECHO(["@%:@include \"counter-setup.h\""])
      AS_ECHO(["@%:@define CPUCYCLES_STATE_STORAGE"])
      for cpucycles_name in $cpucycles_target_list; do
        cpucycles_fn_ids "$cpucycles_name"
        AS_ECHO(["@%:@include \"cpucycles/$cpucycles_name.h\""])
        AS_ECHO(["@%:@if CPUCYCLES_${cpucycles_uid}_LIBRARY_READ"])
        AS_ECHO(["@%:@define PROBE_INLINE_$cpucycles_id 0"])
        AS_ECHO(["@%:@else"])
        AS_ECHO(["@%:@define PROBE_INLINE_$cpucycles_id 1"])
        AS_ECHO(["@%:@endif"])
      done
      AS_ECHO_N(["@%:@define CPUCYCLES_PROBE_LIST(X)"])
      for cpucycles_name in $cpucycles_target_list; do
        cpucycles_fn_ids "$cpucycles_name"
        AS_ECHO_N([" X($cpucycles_id, \"$cpucycles_name\")"])
      done
      AS_ECHO([""])
    } > conftest-probes.h
    cpucycles_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $cpucycles_probe_paths -I$srcdir -I."
    AC_LINK_IFELSE([AC_LANG_SOURCE([[@%:@include "conftest-probes.h"
@%:@include "probes/probe.c"]])],
      [mv -f conftest$ac_exeext conftest-probes$ac_exeext && cpucycles_probe_all="$cpucycles_target_list "],
      [_AS_ECHO_LOG([the probe program for all counters does not compile: one program per counter])])
    CPPFLAGS=$cpucycles_save_CPPFLAGS])
  rm -f conftest-probes.h])
m4_foreach([cpucycles_counter], [CPUCYCLES_COUNTERS], [CPUCYCLES_PROBE(cpucycles_counter)
])
rm -f conftest-probes$ac_exeext conftest.out
_CPUCYCLES_NOW([cpucycles_probe_t1])
cpucycles_probe_seconds=`$AWK "BEGIN { printf \"%.2f\", $cpucycles_probe_t1 - $cpucycles_probe_t0 }" </dev/null`
AS_ECHO(["$cpucycles_probe_seconds"]) > cpucycles-probe-time.txt
_AS_ECHO_LOG([the probes took $cpucycles_probe_seconds s])
])

# CPUCYCLES_PROBE(NAME)
# ---------------------
# Probes counter NAME (include/cpucycles/NAME.h), prints one line such as
#   checking counter amd64-tsc... yes, precision 124, 2596 MHz, off-core
# and appends NAME to cpucycles_probed (the order of preference), and to
# cpucycles_for_target unless it is for another architecture or OS.
AC_DEFUN([CPUCYCLES_PROBE], [
m4_pushdef([_cpucycles_id], AS_TR_SH([$1]))
AC_MSG_CHECKING([counter $1])
cpucycles_fresh=no
AC_CACHE_VAL([cpucycles_cv_counter_]_cpucycles_id, [
  cpucycles_fresh=yes
  dnl A counter file for another architecture or OS defines nothing: known
  dnl from CPUCYCLES_PROBE_COUNTERS's one preprocessing, or checked here.
  AS_IF([test $cpucycles_target_known = yes],
    [AS_CASE([$cpucycles_target_list], [*" $1 "*],
       [cpucycles_is_for_target=yes], [cpucycles_is_for_target=no])],
    [cpucycles_save_CPPFLAGS=$CPPFLAGS
     CPPFLAGS="$CPPFLAGS $cpucycles_probe_paths"
     AC_PREPROC_IFELSE([AC_LANG_SOURCE([[
#include "cpucycles/$1.h"
#ifndef CPUCYCLES_HAVE_]]AS_TR_CPP([$1])[[
#error not for this target
#endif
]])], [cpucycles_is_for_target=yes], [cpucycles_is_for_target=no])
     CPPFLAGS=$cpucycles_save_CPPFLAGS])
  AS_IF([test $cpucycles_is_for_target = no],
    [cpucycles_cv_counter_[]_cpucycles_id="no not for this target"],
    [AS_CASE([$cpucycles_probe_all], [*" $1 "*],
      [dnl In the one program for all counters.
       AS_IF([test "$cpucycles_can_run" = yes],
         [_CPUCYCLES_RUN_PROGRAM([./conftest-probes$ac_exeext $1],
            [cpucycles_cv_counter_[]_cpucycles_id=`cat conftest.out`],
            [cpucycles_cv_counter_[]_cpucycles_id="no probe crashed or failed (exit status $cpucycles_probe_status)"])],
         [cpucycles_cv_counter_[]_cpucycles_id="unknown $cpucycles_not_run"])],
      [_CPUCYCLES_RUN_PROBE([AC_LANG_SOURCE([[
#define CPUCYCLES_PROBE_HEADER "cpucycles/$1.h"
#define CPUCYCLES_PROBE_ID ]]_cpucycles_id[[
#define CPUCYCLES_PROBE_UID ]]AS_TR_CPP([$1])[[
#include "probes/probe.c"
]])],
    [cpucycles_cv_counter_[]_cpucycles_id=`cat conftest.out`],
    [cpucycles_cv_counter_[]_cpucycles_id="no probe crashed or failed (exit status $cpucycles_probe_status)"],
    [cpucycles_cv_counter_[]_cpucycles_id="no does not compile (see config.log)"],
    [cpucycles_cv_counter_[]_cpucycles_id="unknown $cpucycles_not_run"])])])])
dnl A preset (or cached) result that is not valid is an error; what a probe
dnl just printed, if not valid (a runner's noise, a rate outside the range),
dnl leaves the counter out with a warning.
dnl (A counter for another target, just found so here, is neither checked
dnl nor described by a process: most of the list is such on any target.)
cpucycles_rejected=
AS_IF([test $cpucycles_fresh = yes && test "x$cpucycles_cv_counter_[]_cpucycles_id" = "xno not for this target"],
  [cpucycles_description="no (not for this target)"],
  [CPUCYCLES_VALIDATE_RESULT([cpucycles_cv_counter_]_cpucycles_id,
    [AS_IF([test $cpucycles_fresh = yes],
       [_AS_ECHO_LOG([rejected probe result '$cpucycles_cv_counter_]_cpucycles_id[': $cpucycles_problem])
        cpucycles_rejected=$cpucycles_problem
        cpucycles_cv_counter_[]_cpucycles_id="no probe result rejected: $cpucycles_problem"],
       [AC_MSG_RESULT([invalid])
        _CPUCYCLES_RESULT_ERROR([cpucycles_cv_counter_]_cpucycles_id)])])
   CPUCYCLES_DESCRIBE_RESULT([$cpucycles_cv_counter_]_cpucycles_id)])
AC_MSG_RESULT([$cpucycles_description])
AS_IF([test -n "$cpucycles_rejected"],
  [AC_MSG_WARN([counter $1 left out: its probe printed a result that is not valid: $cpucycles_rejected (see config.log)])])
AS_VAR_APPEND([cpucycles_probed], [" $1"])
AS_CASE([$cpucycles_cv_counter_]_cpucycles_id, ["no not for this target"], [],
  [AS_VAR_APPEND([cpucycles_for_target], [" $1"])])
m4_popdef([_cpucycles_id])
])

# _CPUCYCLES_RESULT_OF(NAME)
# --------------------------
# Sets cpucycles_result to the probe result (cache variable) of the
# counter whose name is the shell word NAME.
m4_define([_CPUCYCLES_RESULT_OF],
[AS_VAR_COPY([cpucycles_result], [cpucycles_cv_counter_]AS_TR_SH([$1]))])

# CPUCYCLES_RESULT_FIELD(RESULT, FIELD)
# -------------------------------------
# The value of FIELD=value in a probe result, or empty.  Not for kindname,
# whose value may hold spaces: CPUCYCLES_RESULT_KINDNAME.
AC_DEFUN([CPUCYCLES_RESULT_FIELD],
[`AS_ECHO(["$1"]) | sed -n 's/.* $2=\([[^ ]]*\).*/\1/p'`])

# CPUCYCLES_RESULT_KINDNAME(RESULT)
# ---------------------------------
# The kind's name for people in a probe result (the rest of the line after
# kindname=, the last field), or empty.
AC_DEFUN([CPUCYCLES_RESULT_KINDNAME],
[`AS_ECHO(["$1"]) | sed -n 's/.* kindname=//p'`])

# CPUCYCLES_DESCRIBE_RESULT(RESULT)
# ---------------------------------
# Sets cpucycles_description to the human form of a probe result, one
# that passed CPUCYCLES_VALIDATE_RESULT: what the probe printed (the kind's
# name is the library's own, cpucycles_kind_name), in words.
AC_DEFUN([CPUCYCLES_DESCRIBE_RESULT], [
cpucycles_result="$1"
dnl Its fields by the shell's own expansions (a valid result's fields are
dnl one space apart, kindname last), and a "no REASON" of printable ASCII
dnl with nothing to take out as it is: configure describes every counter,
dnl and a process for each field cost a third of the probes' time.  (Each
dnl '@%:@' is a hash, written so that m4 reads no comment into it.)
AS_CASE([$cpucycles_result],
  [yes*],
  [cpucycles_precision=${cpucycles_result@%:@* precision=}
   cpucycles_precision=${cpucycles_precision%% *}
   cpucycles_hz=${cpucycles_result@%:@* hz=}
   cpucycles_hz=${cpucycles_hz%% *}
   cpucycles_kind_name=${cpucycles_result@%:@* kindname=}
   AS_CASE([$cpucycles_hz],
     [*[[!0-9]]*|???????????????????*],
     [cpucycles_mhz=`AS_ECHO(["$cpucycles_hz"]) | awk '{ printf "%.0f", $[]1 / 1e6 }'`],
     [cpucycles_mhz=$(( (cpucycles_hz + 500000) / 1000000 ))])
   cpucycles_description="yes, precision $cpucycles_precision, $cpucycles_mhz MHz, $cpucycles_kind_name"],
  [*[[!\ -~]]*|*[[\"\\]]*|*'??'*|*' '],
  [cpucycles_description=CPUCYCLES_SANITIZE_TEXT([$cpucycles_result])
   cpucycles_description=`AS_ECHO(["$cpucycles_description"]) | sed 's/^\([[a-z]]*\) \(.*\)/\1 (\2)/'`],
  [*' '*],
  [cpucycles_description="${cpucycles_result%% *} (${cpucycles_result@%:@* })"],
  [cpucycles_description=$cpucycles_result])
])

# CPUCYCLES_HOST_FINGERPRINT
# --------------------------
# Sets cpucycles_cv_fingerprint to the build host's fingerprint
# (src/core/fingerprint.c), or to "unknown" when probes cannot run.  It becomes
# a C string in the header: a measured one is made safe for that, a preset
# one that is not is an error.
AC_DEFUN([CPUCYCLES_HOST_FINGERPRINT], [
AC_CACHE_CHECK([the build host's fingerprint], [cpucycles_cv_fingerprint], [
  _CPUCYCLES_RUN_PROBE([AC_LANG_SOURCE([[#include "probes/host.c"]])],
    [cpucycles_cv_fingerprint=`sed 1q conftest.out`
     cpucycles_cv_fingerprint=CPUCYCLES_SANITIZE_TEXT([$cpucycles_cv_fingerprint])],
    [cpucycles_cv_fingerprint=unknown],
    [AC_MSG_FAILURE([cannot compile the host probe (probes/host.c)])],
    [cpucycles_cv_fingerprint=unknown])])
dnl A measured one is sanitised above; a preset one must already be valid.
CPUCYCLES_VALIDATE_FINGERPRINT([cpucycles_cv_fingerprint])
])
