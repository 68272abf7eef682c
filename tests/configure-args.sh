# SPDX-License-Identifier: MIT
# configure-args.sh - sourced by the tests that run configure again
# (t-configure, t-portable): sets the positional parameters to the build's
# own configure arguments (--host, CC=..., --with-probe-runner ...), less
# those that name the build's directories or cache, its presets, and any
# whose shell pattern is in $configure_args_drop (e.g. '--disable-inline').
# Needs: top_builddir.
eval "set x $("$top_builddir/config.status" --config)"
shift
for configure_arg; do
  shift
  case $configure_arg in
    --srcdir=*|--cache-file=*|-C|--config-cache|cpucycles_cv_*) continue ;;
  esac
  for configure_drop in ${configure_args_drop:-}; do
    case $configure_arg in $configure_drop) continue 2 ;; esac
  done
  set -- "$@" "$configure_arg"
done
