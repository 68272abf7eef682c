# SPDX-License-Identifier: MIT
# cpucycles_choose.m4 - configure's choice of counter and what it records.
#
# SYNOPSIS
#   CPUCYCLES_CHOOSE
#
# DESCRIPTION
#   After the CPUCYCLES_PROBE calls, picks the counter with the library's
#   own rule (probes/choose.c running cpucycles_choose), honours
#   --with-counter=NAME and --disable-inline, and sets what
#   include/cpucycles-config.h.in substitutes:
#     CPUCYCLES_CHOSEN          the chosen counter's name (empty: none)
#     CPUCYCLES_BUILD_CHOICE           1 when the library tries the chosen counter
#                               first (and cpucycles() inlines it if it can)
#     CPUCYCLES_INLINE_INCLUDE, CPUCYCLES_INLINE_READ  whole lines: the
#                               counter file and its read when inlined,
#                               else a comment saying why not
#     CPUCYCLES_BUILD_PRECISION, CPUCYCLES_INLINE_SCALE, CPUCYCLES_INLINE_SCALED
#     CPUCYCLES_BUILD_PERSECOND, CPUCYCLES_BUILD_FINGERPRINT
#     cpucycles_table (AC_SUBST_FILE): the table of every probe's result.
#   Everything substituted comes from results, a fingerprint and names that
#   passed the checks of m4/cpucycles_validate.m4, or is sanitised there.
#   Every fact about a counter (inline, scaled, kind) is what its probe
#   printed (probes/probe.c); nothing here knows one counter or kind.

AC_DEFUN([CPUCYCLES_CHOOSE], [
AC_REQUIRE([CPUCYCLES_HOST_FINGERPRINT])
_CPUCYCLES_CHOOSE_OPTIONS
_CPUCYCLES_CHOOSE_COUNTER
_CPUCYCLES_CHOOSE_INLINE
_CPUCYCLES_CHOOSE_RECORD
])

# _CPUCYCLES_CHOOSE_OPTIONS
# -------------------------
# --with-counter (libcpucycles' names mapped to this list's, the name
# checked before anything else) and --disable-inline, and the combinations
# with --enable-portable that ask for two things at once.
AC_DEFUN([_CPUCYCLES_CHOOSE_OPTIONS], [
AC_ARG_WITH([counter],
  [AS_HELP_STRING([--with-counter=NAME],
    [use counter NAME instead of the best one found (e.g. amd64-tscp;
     libcpucycles 20260105's amd64-pmc, and x86-tscasm, too)])],
  [], [with_counter=auto])
AC_ARG_ENABLE([inline],
  [AS_HELP_STRING([--disable-inline],
    [do not inline the chosen counter in cpucycles(); always choose at run time])],
  [AS_CASE([$enableval], [yes|no], [],
     [AC_MSG_ERROR([--enable-inline takes yes or no, not '$enableval'])])],
  [enable_inline=yes])

dnl Names of libcpucycles' for counters this list has under another: 20260105
dnl (and this library before) called the RDPMC of fixed counter 1 amd64-pmc,
dnl amd64-pmcff since (20260901's name); x86-tscasm is the TSC read from an
dnl assembly file, which x86-tsc's inline read is.
cpucycles_alias=
AS_CASE([$with_counter],
  [amd64-pmc], [cpucycles_alias=amd64-pmcff],
  [x86-tscasm], [cpucycles_alias=x86-tsc])
AS_IF([test -n "$cpucycles_alias"],
  [AC_MSG_NOTICE([--with-counter=$with_counter is libcpucycles' name for $cpucycles_alias here])
   with_counter=$cpucycles_alias])

dnl One name among the probed counters, checked first: before it goes into
dnl an eval, and before any other complaint (a bad name is the first thing
dnl to say, whatever else was asked).
AS_IF([test "x$with_counter" != xauto],
  [CPUCYCLES_VALIDATE_COUNTER([$with_counter], [$cpucycles_probed],
     [AC_MSG_ERROR([--with-counter='$with_counter' is not a counter name; the counters are:$cpucycles_probed])])])
AS_IF([test "x$with_counter" != xauto && test "x$enable_portable" = xyes],
  [AC_MSG_ERROR([--with-counter=$with_counter asks for an inlined counter, --enable-portable for none: use one or the other])])
AS_IF([test "x$with_counter" != xauto && test "x$enable_inline" = xno],
  [AC_MSG_ERROR([--with-counter=$with_counter asks for an inlined counter, --disable-inline for none: use one or the other])])

])

# _CPUCYCLES_CHOOSE_COUNTER
# -------------------------
# Sets cpucycles_chosen (empty: none) and cpucycles_how: the counter named
# by --with-counter, else probes/choose.c's pick from the probes' results.
AC_DEFUN([_CPUCYCLES_CHOOSE_COUNTER], [
# What the probes said, in order, for probes/choose.c.
rm -f conftest.in
cpucycles_any_probe_ran=no
for cpucycles_name in $cpucycles_for_target; do
  _CPUCYCLES_RESULT_OF([$cpucycles_name])
  cpucycles_precision=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [precision])
  AS_CASE([$cpucycles_result], [yes*], [], [cpucycles_precision=])
  AS_CASE([$cpucycles_precision], [""|*[[!0-9]]*], [cpucycles_precision=no])
  AS_CASE([$cpucycles_result], [yes*|no*], [cpucycles_any_probe_ran=yes])
  AS_ECHO(["$cpucycles_name $cpucycles_precision"]) >> conftest.in
done
mv conftest.in cpucycles-probes.txt

AC_MSG_CHECKING([which counter to use])
cpucycles_chosen=
AS_IF([test "x$with_counter" != xauto],
  [_CPUCYCLES_RESULT_OF([$with_counter])
   AS_CASE([$cpucycles_result],
     [yes*], [],
     [unknown*], [AC_MSG_WARN([--with-counter=$with_counter: not probed (cross-compiling); the run-time check decides])],
     [CPUCYCLES_DESCRIBE_RESULT([$cpucycles_result])
      AC_MSG_ERROR([--with-counter=$with_counter: that counter is not available here: $cpucycles_description])])
   cpucycles_chosen=$with_counter
   cpucycles_how="forced by --with-counter"],
  [test "$cpucycles_any_probe_ran" = yes],
  [cp cpucycles-probes.txt conftest.in
   _CPUCYCLES_RUN_PROBE([AC_LANG_SOURCE([[#include "probes/choose.c"]])],
     [cpucycles_chosen=`sed 1q conftest.out`],
     [AC_MSG_FAILURE([the choice program (probes/choose.c) failed])],
     [AC_MSG_FAILURE([cannot compile the choice program (probes/choose.c)])],
     [])
   rm -f conftest.in
   dnl What it printed (perhaps through a runner) goes into an eval and the header.
   AS_IF([test -n "$cpucycles_chosen"],
     [CPUCYCLES_VALIDATE_COUNTER([$cpucycles_chosen], [$cpucycles_for_target],
        [AC_MSG_FAILURE([the choice program (probes/choose.c) printed '$cpucycles_chosen', not one of:$cpucycles_for_target])])])
   cpucycles_how="best precision"])

])

# _CPUCYCLES_CHOOSE_INLINE
# ------------------------
# Whether cpucycles() inlines the chosen counter, and the header lines
# and installed counter files that do it.  Sets cpucycles_result to the
# chosen counter's probe result (empty when it was not probed).
AC_DEFUN([_CPUCYCLES_CHOOSE_INLINE], [
AC_REQUIRE([_CPUCYCLES_IDS_FN])
cpucycles_result=
cpucycles_fn_ids "$cpucycles_chosen"
cpucycles_chosen_id=$cpucycles_id
cpucycles_chosen_uid=$cpucycles_uid
AS_IF([test -n "$cpucycles_chosen"], [_CPUCYCLES_RESULT_OF([$cpucycles_chosen])])
cpucycles_inline=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [inline])
cpucycles_scaled=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [scaled])

AS_IF([test -z "$cpucycles_chosen"],
  [CPUCYCLES_BUILD_CHOICE=0
   cpucycles_inline_why="no counter was chosen (no probe could run); the library chooses at run time"
   AC_MSG_RESULT([none now: chosen at run time (no probe could run)])],
  [test "x$enable_inline" = xno],
  [CPUCYCLES_BUILD_CHOICE=0
   cpucycles_inline_why="--disable-inline; the library chooses at run time"
   AC_MSG_RESULT([$cpucycles_chosen ($cpucycles_how), but not inlined: --disable-inline])],
  [test "x$cpucycles_inline" = x1],
  [CPUCYCLES_BUILD_CHOICE=1
   AC_MSG_RESULT([$cpucycles_chosen ($cpucycles_how), inlined in cpucycles()])],
  [test "x$cpucycles_inline" = x0],
  [CPUCYCLES_BUILD_CHOICE=1
   cpucycles_inline_why="$cpucycles_chosen is read through the library (CPUCYCLES_${cpucycles_chosen_uid}_LIBRARY_READ)"
   AC_MSG_RESULT([$cpucycles_chosen ($cpucycles_how), read through the library (not inlined)])],
  [CPUCYCLES_BUILD_CHOICE=1
   cpucycles_inline_why="$cpucycles_chosen was not probed, so it is read through the library"
   AC_MSG_RESULT([$cpucycles_chosen ($cpucycles_how), read through the library (not probed, so not inlined)])])

CPUCYCLES_CHOSEN=$cpucycles_chosen
# The counter's id for the inline path: its name's CRC (POSIX cksum), in
# 1..2^31-1, so that every build names the same counter by the same id.
AS_IF([test -n "$cpucycles_chosen"],
  [CPUCYCLES_INLINE_ID=`printf '%s' "$cpucycles_chosen" | cksum | awk '{ print $[]1 % 2147483647 + 1 }'`],
  [CPUCYCLES_INLINE_ID=0])
# Whole lines of the header: the counter file and its read when
# cpucycles() inlines it, else a comment that says why not (and no
# #include at all).
AS_IF([test "$CPUCYCLES_BUILD_CHOICE" = 1 && test "x$cpucycles_inline" = x1],
  [CPUCYCLES_INLINE_INCLUDE="@%:@include \"cpucycles/$cpucycles_chosen.h\""
   CPUCYCLES_INLINE_READ="@%:@if defined(CPUCYCLES_HAVE_$cpucycles_chosen_uid)
@%:@define CPUCYCLES_INLINE_READ() cpucycles_${cpucycles_chosen_id}_read()
@%:@endif"],
  [CPUCYCLES_INLINE_INCLUDE="/* Nothing is inlined: $cpucycles_inline_why. */"
   CPUCYCLES_INLINE_READ=])
AC_SUBST([CPUCYCLES_CHOSEN])
AC_SUBST([CPUCYCLES_INLINE_INCLUDE])
AC_SUBST([CPUCYCLES_INLINE_READ])
AC_SUBST([CPUCYCLES_BUILD_CHOICE])
AC_SUBST([CPUCYCLES_INLINE_ID])
])

# _CPUCYCLES_CHOOSE_RECORD
# ------------------------
# The chosen counter's figures (from cpucycles_result), the fingerprint,
# and the table of every probe's result, for the header.
AC_DEFUN([_CPUCYCLES_CHOOSE_RECORD], [
CPUCYCLES_BUILD_PRECISION=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [precision])
CPUCYCLES_INLINE_SCALE=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [scale])
cpucycles_hz=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [hz])
CPUCYCLES_BUILD_PERSECOND=CPUCYCLES_RESULT_FIELD([$cpucycles_result], [persecond])
: "${CPUCYCLES_BUILD_PRECISION:=0}" "${CPUCYCLES_INLINE_SCALE:=1}" "${CPUCYCLES_BUILD_PERSECOND:=0}"
# A counter that counts cycles unscaled defines the CPU frequency by its own
# rate; a scaled one was scaled by the OS's estimate, which is kept.
AS_IF([test "x$cpucycles_scaled" = x0],
  [CPUCYCLES_BUILD_PERSECOND=`AS_ECHO(["$cpucycles_hz"]) | awk '{ printf "%.0f", $[]1 }'`])
AS_IF([test "x$cpucycles_scaled" = x1], [CPUCYCLES_INLINE_SCALED=1], [CPUCYCLES_INLINE_SCALED=0])
CPUCYCLES_BUILD_FINGERPRINT=$cpucycles_cv_fingerprint

# The table of every probe's result, one X(...) line per counter.
cpucycles_table=cpucycles-table.h
: > $cpucycles_table
for cpucycles_name in $cpucycles_for_target; do
  _CPUCYCLES_RESULT_OF([$cpucycles_name])
  AS_CASE([$cpucycles_result],
    [yes*],
    [AS_ECHO(["  X(\"$cpucycles_name\", 1, CPUCYCLES_RESULT_FIELD([$cpucycles_result], [precision]), CPUCYCLES_RESULT_FIELD([$cpucycles_result], [hz]), CPUCYCLES_RESULT_FIELD([$cpucycles_result], [kind]), \"\") \\"])],
    [dnl The reason, one line safe inside the C string.
     cpucycles_reason=CPUCYCLES_SANITIZE_TEXT([$cpucycles_result])
     cpucycles_reason=`AS_ECHO(["$cpucycles_reason"]) | sed 's/^[[a-z]]* *//'`
     AS_CASE([$cpucycles_result], [unknown*], [cpucycles_available=-1], [cpucycles_available=0])
     AS_ECHO(["  X(\"$cpucycles_name\", $cpucycles_available, 0, 0, 0, \"$cpucycles_reason\") \\"])])
done >> $cpucycles_table
AS_ECHO(["  /* end of table */"]) >> $cpucycles_table
AC_SUBST_FILE([cpucycles_table])
AC_SUBST([CPUCYCLES_BUILD_PRECISION])
AC_SUBST([CPUCYCLES_INLINE_SCALE])
AC_SUBST([CPUCYCLES_INLINE_SCALED])
AC_SUBST([CPUCYCLES_BUILD_PERSECOND])
AC_SUBST([CPUCYCLES_BUILD_FINGERPRINT])
])
