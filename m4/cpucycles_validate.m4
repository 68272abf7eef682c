# SPDX-License-Identifier: MIT
# cpucycles_validate.m4 - checks on what configure takes from outside.
#
# SYNOPSIS
#   CPUCYCLES_VALIDATE_RESULT(VARIABLE, [IF-INVALID])
#   CPUCYCLES_VALIDATE_FINGERPRINT(VARIABLE)
#   CPUCYCLES_VALIDATE_COUNTER(VALUE, LIST, [IF-INVALID])
#   CPUCYCLES_SANITIZE_TEXT(TEXT)
#
# DESCRIPTION
#   Probe results and the fingerprint are cache variables, so a user (or a
#   stale config.cache) can preset them; their fields end up as C tokens in
#   the installed include/cpucycles-config.h, and a counter name ends up in an
#   eval.  Nothing reaches either without passing one of these checks:
#   a bad value is an error that names it, never a broken header, a wrong
#   cycles/second figure or a command.
#
#   The ranges are the library's own: a cycles/second figure outside
#   1 MHz..100 GHz is what src/core/persecond.c refuses at run time, and a scale
#   is 0 < scale < 2^31 (CPUCYCLES_SCALE_Q32 in include/cpucycles/counter.h).

# _CPUCYCLES_RESULT_FORM
# ----------------------
# What a probe result looks like, for error messages (probes/probe.c).
m4_define([_CPUCYCLES_RESULT_FORM],
[[a probe result is 'yes precision=P hz=H kind=K scale=C persecond=S
  scaled=B inline=B kindname=NAME' (P an integer in 1..999999999, K in
  1..5, C in (0, 2^31) in decimal or exponent form as %.17g prints it, S
  an integer; H, and S unless it is 0, in 1000000..100000000000, that is
  1 MHz..100 GHz; each B 0 or 1, NAME letters, digits, spaces, '-' and
  ','), or 'no REASON', or 'unknown REASON']])

# _CPUCYCLES_CHECK_RESULT_FN
# --------------------------
# The shell function cpucycles_fn_check_result, defined once in configure:
# reads one probe result on standard input and prints what is wrong with
# it, or nothing when it is valid.  The numbers become C literals in the
# header, so they have no leading zeros (which would make them octal).
# Scaled counters (scaled=1: OS clocks and other clocks at a stated rate)
# tick at a stated rate that the probe times against CLOCK_MONOTONIC, good
# to a few 1e-4: gettimeofday's 1 MHz often reads 9999xx, so for them hz
# may be up to 1% under 1 MHz.  kindname, the last field, is the rest of
# the line: words for people, without '=' or anything a shell or a C
# string would take specially.  (No awk index() or substr() here: m4
# would expand them.)
AC_DEFUN([_CPUCYCLES_CHECK_RESULT_FN], [
AC_REQUIRE([AC_PROG_AWK])
AS_REQUIRE_SHELL_FN([cpucycles_fn_check_result],
  [AS_FUNCTION_DESCRIBE([cpucycles_fn_check_result], [],
    [Print what is wrong with the probe result on standard input, if anything.])],
[$AWK '
function bad(field, what) {
  if (problem == "") problem = field "=" v[[field]] " is not " what
}
NR == 1 { line = $[]0 }
END {
  if (NR > 1 && line !~ /^(no|unknown)( |$)/) {
    print "it is " NR " lines, not one line"; exit
  }
  if (line ~ /^(no|unknown)( |$)/) exit
  if (line !~ /^yes( |$)/) {
    print "it does not start with yes, no or unknown"; exit
  }
  if (line !~ /^yes precision=[[^ ]]+ hz=[[^ ]]+ kind=[[^ ]]+ scale=[[^ ]]+ persecond=[[^ ]]+ scaled=[[^ ]]+ inline=[[^ ]]+ kindname=[[^ ]].*$/) {
    print "its fields are not precision=, hz=, kind=, scale=, persecond=, scaled=, inline=, kindname=, in that order and one space apart"
    exit
  }
  v[["kindname"]] = line; sub(/^.* kindname=/, "", v[["kindname"]])
  fields = line; sub(/ kindname=.*$/, "", fields)
  split(fields, f, " ")
  for (i = 2; i <= 8; i++) {
    name = f[[i]]; sub(/=.*/, "", name)
    value = f[[i]]; sub(/^[[^=]]*=/, "", value)
    v[[name]] = value
  }
  num = "^(0|[[1-9]][[0-9]]*)([[.]][[0-9]]+)?([[eE]][[-+]]?[[0-9]]+)?$"
  problem = ""
  if (v[["precision"]] !~ /^[[1-9]][[0-9]]*$/ || length(v[["precision"]]) > 9)
    bad("precision", "an integer in 1..999999999")
  if (v[["hz"]] !~ num) bad("hz", "a number (decimal or exponent form)")
  if (v[["kind"]] !~ /^[[1-5]]$/) bad("kind", "one of 1, 2, 3, 4, 5")
  if (v[["scale"]] !~ num || v[["scale"]] + 0 <= 0 || v[["scale"]] + 0 >= 2147483648)
    bad("scale", "a number in (0, 2^31)")
  if (v[["persecond"]] !~ /^(0|-?[[1-9]][[0-9]]*)$/) bad("persecond", "an integer (without leading zeros)")
  if (v[["scaled"]] !~ /^[[01]]$/) bad("scaled", "0 or 1")
  if (v[["inline"]] !~ /^[[01]]$/) bad("inline", "0 or 1")
  if (v[["kindname"]] !~ /^[[A-Za-z0-9]]([[-A-Za-z0-9 ,]]*[[A-Za-z0-9]])?$/ || length(v[["kindname"]]) > 40)
    bad("kindname", "up to 40 letters, digits, spaces, - and , (starting and ending with a letter or digit)")
  if (problem == "") {
    low = v[["scaled"]] == 1 ? 990000 : 1000000
    if (v[["hz"]] + 0 < low || v[["hz"]] + 0 > 100000000000)
      bad("hz", "in 1000000..100000000000 (1 MHz..100 GHz)")
    else if (v[["persecond"]] != "0" &&
             (v[["persecond"]] + 0 < 1000000 || v[["persecond"]] + 0 > 100000000000))
      bad("persecond", "0 or in 1000000..100000000000 (1 MHz..100 GHz)")
  }
  if (problem != "") print problem
}'])
])

# CPUCYCLES_VALIDATE_RESULT(VARIABLE, [IF-INVALID])
# -------------------------------------------------
# Checks the probe result in the shell variable VARIABLE (a literal name,
# e.g. cpucycles_cv_counter_amd64_tsc): exactly 'yes precision=P hz=H
# kind=K scale=C persecond=S scaled=B inline=B kindname=NAME' with valid
# values, or 'no REASON' or 'unknown REASON'
# (the REASON is sanitised where it is used, see CPUCYCLES_SANITIZE_TEXT).  When it is not, runs IF-INVALID with
# $cpucycles_problem saying why; the default is an error that names
# VARIABLE, shows its value and the accepted form.
AC_DEFUN([CPUCYCLES_VALIDATE_RESULT], [
AC_REQUIRE([_CPUCYCLES_CHECK_RESULT_FN])
cpucycles_problem=`AS_ECHO(["$$1"]) | cpucycles_fn_check_result`
AS_IF([test -n "$cpucycles_problem"],
  [m4_default([$2], [_CPUCYCLES_RESULT_ERROR([$1])])])
])

# _CPUCYCLES_RESULT_ERROR(VARIABLE)
# ---------------------------------
# The error for an invalid result in VARIABLE, after
# CPUCYCLES_VALIDATE_RESULT set $cpucycles_problem.
m4_define([_CPUCYCLES_RESULT_ERROR],
[AC_MSG_ERROR([invalid $1='$$1': $cpucycles_problem;
  ]_CPUCYCLES_RESULT_FORM)])

# CPUCYCLES_VALIDATE_FINGERPRINT(VARIABLE)
# ----------------------------------------
# The fingerprint in the shell variable VARIABLE becomes a C string in the
# header: it must be printable ASCII without '"', '\' or '??' (a trigraph
# such as ??/ is a backslash to a C99 compiler).  Otherwise an error that
# names VARIABLE.  A measured one is made so by CPUCYCLES_SANITIZE_TEXT.
AC_DEFUN([CPUCYCLES_VALIDATE_FINGERPRINT], [
AS_CASE([$$1],
  [*[[!\ -~]]*|*[[\"\\]]*|*'??'*],
  [AC_MSG_ERROR([invalid $1='$$1': a fingerprint is one line of printable ASCII characters without double quotes, backslashes or '??'])])
])

# CPUCYCLES_VALIDATE_COUNTER(VALUE, LIST, [IF-INVALID])
# -----------------------------------------------------
# Checks that VALUE is one counter name ([a-z0-9][a-z0-9-]*) and a word of
# the space-separated LIST, before it goes near an eval.  Otherwise runs
# IF-INVALID; the default is an error listing LIST.
AC_DEFUN([CPUCYCLES_VALIDATE_COUNTER], [
cpucycles_valid_counter=no
AS_CASE([$1],
  [""|[[!a-z0-9]]*|*[[!a-z0-9-]]*], [],
  [for cpucycles_word in $2; do
     test "x$cpucycles_word" = "x$1" && cpucycles_valid_counter=yes
   done])
AS_IF([test $cpucycles_valid_counter = no],
  [m4_default([$3], [AC_MSG_ERROR(['$1' is not a counter; the counters are: $2])])])
])

# CPUCYCLES_SANITIZE_TEXT(TEXT)
# -----------------------------
# Expands to a command substitution: TEXT as one line that is safe inside
# a C string literal: printable ASCII only (anything else becomes a space,
# lines are joined with spaces), without '"' and '\', and with runs of '?'
# made one '?' (no trigraph), trailing spaces dropped.
AC_DEFUN([CPUCYCLES_SANITIZE_TEXT],
[`AS_ECHO(["$1"]) | tr -c ' -~\n' ' ' | paste -s -d ' ' - | sed -e 's/[["\\\\]]//g' -e 's/??*/?/g' -e 's/ *$//'`])
