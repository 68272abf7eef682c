#!/bin/sh
# SPDX-License-Identifier: MIT
# t-compare-git - cpucycles-compare --git: two revisions of a git
# repository, each cloned into the cache and built there by --build.  On a
# fixture repository made here (tests/compare-fixture.c, its second commit
# at 3 times the work): the slower revision called slower, exit 1, from a
# subdirectory of the working tree; the build's variables
# (CPUCYCLES_REVISION, CPUCYCLES_COMMIT, CPUCYCLES_CHECKOUT, its working
# directory), each checkout a clone (its .git a directory) under
# $XDG_CACHE_HOME/cpucycles; stdout only the report (the build's output in
# its log, the progress lines on stderr); each revision built once across
# two runs (the command appends a line to a file outside the checkout),
# and again with --rebuild; "." with an uncommitted change (3 times the
# work, made with the file's size, inode and time kept, and the index's
# time that time: racily clean), a staged file and an untracked one, but
# not an ignored one, built
# once while unchanged, again when the untracked file changes; and the
# user's repository untouched by all of it: git status, the stash, git
# worktree list, every ref, the index's checksum and a listing of the
# whole working directory with .git (sizes, modes, mtimes, inodes) the
# same before and after.  Errors, exit 2 with a message that names what
# failed, and nothing on stdout: a revision that does not exist (nothing
# built), one with an escape sequence (cleaned), a build that fails (its
# last 20 lines, its exit status, its log), a missing artifact, --git
# without --build or --artifact, those or --rebuild without --git, no git
# in PATH, no repository here, a cache inside the working tree (refused,
# nothing made there); XDG_CACHE_HOME not absolute: the cache in
# ~/.cache.  Only what noise cannot change is asserted (tests/README.md):
# 3 times the work.  Every case SKIPs where git is absent (but the ones
# that need no git).
set -u
. "$top_srcdir/tests/tap.sh"
abs_top_builddir=$(cd "$top_builddir" && pwd) || exit 1
abs_top_srcdir=$(cd "$top_srcdir" && pwd) || exit 1
libtool="$abs_top_builddir/libtool --mode=execute"
tool="$libtool ${CPUCYCLES_PROBE_RUNNER:-} $abs_top_builddir/cpucycles-compare"
dir=$(mktemp -d "${TMPDIR:-/tmp}/t-compare-git.XXXXXX") || exit 1
dir=$(cd "$dir" && pwd -P) || exit 1
trap 'chmod -R u+w "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
out=$dir/out err=$dir/err
quick="--executions 10 --seconds 0.05"
if command -v timeout >/dev/null 2>&1; then bounded="timeout 120"; else bounded=; fi
total=38

echo "1..$total"
skip_rest() { # why: the remaining cases skipped
  while [ $n -lt $total ]; do skip "cpucycles-compare --git" "$1"; done
  exit 0
}
if [ -n "${CPUCYCLES_PROBE_RUNNER:-}" ]; then
  # the tool execs itself, which a user-mode emulator's guest may not do
  skip_rest "run through a probe runner"
fi

# the tests' own git: no configuration of the machine's or the user's, no
# repository but the fixture's, the cache and home in $dir
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
  GIT_COMMON_DIR GIT_NAMESPACE GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_PREFIX
GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$dir/gitconfig HOME=$dir/home XDG_CACHE_HOME=$dir/cache
GIT_CEILING_DIRECTORIES=$dir
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL HOME XDG_CACHE_HOME GIT_CEILING_DIRECTORIES
mkdir "$dir/home" "$dir/norepo" "$dir/nogit" || exit 1
: >"$dir/gitconfig"

run() { # the tool in directory $1: status in $status
  where=$1; shift
  (cd "$where" && $bounded $tool "$@") >"$out" 2>"$err"; status=$?
}
show() { sed 's/^/# /' "$out" "$err" | cat -v; }
refused() { # description pattern directory args...: exit 2, nothing on stdout, pattern on stderr
  what=$1 pattern=$2 where=$3; shift 3
  run "$where" "$@"
  if [ $status -eq 2 ] && [ ! -s "$out" ] && grep -q "^cpucycles-compare: .*$pattern" "$err"; then
    ok "$what: exit 2, $(grep '^cpucycles-compare: ' "$err" | head -n 1 | cat -v)"
  else
    notok "$what: exit $status, want 2 and '$pattern'"; show
  fi
}

# ---- what needs no git ----
refused "--git without --build" "--git: needs --build CMD" "$dir" --git --artifact bench.so v1 v2
refused "--git without --artifact" "--git: needs --artifact PATH" "$dir" --git --build true v1 v2
refused "--build without --git" "--build: only with --git" "$dir" --build true --artifact bench.so a.so b.so
refused "--rebuild without --git" "--rebuild: only with --git" "$dir" --rebuild a.so b.so
# (libtool's execute mode, then the tool with a PATH without git)
(cd "$dir" && $bounded $libtool env PATH="$dir/nogit" "$abs_top_builddir/cpucycles-compare" --git --build true \
  --artifact bench.so v1 v2) >"$out" 2>"$err"; status=$?
if [ $status -eq 2 ] && [ ! -s "$out" ] && grep -q '^cpucycles-compare: --git: git is not installed' "$err"; then
  ok "no git in PATH: exit 2, $(cat "$err")"
else
  notok "no git in PATH: exit $status, want 2 and 'git is not installed'"; show
fi

if ! command -v git >/dev/null 2>&1; then skip_rest "git is not installed"; fi

# ---- the fixture: v1, v2 at 3 times the work; HEAD on a branch at v1 ----
repo=$dir/repo
fixture() {
  mkdir "$repo" && cd "$repo" && git init -q . &&
  git config user.name "t-compare-git" && git config user.email "t-compare-git@example.invalid" &&
  git config commit.gpgsign false &&
  cp "$abs_top_srcdir/tests/compare-fixture.c" . && grep -q '^#define WORK 1000$' compare-fixture.c &&
  printf 'bench.so\nignored.txt\n' >.gitignore && mkdir sub && echo sub >sub/readme &&
  git add -A && git commit -q -m v1 && git tag v1 &&
  sed 's/^#define WORK 1000$/#define WORK 3000/' compare-fixture.c >"$dir/edited" &&
  cp "$dir/edited" compare-fixture.c && git commit -q -a -m v2 && git tag v2 &&
  git checkout -q -b topic v1 &&
  # the user's state: a stash, a worktree of its own, a staged file, an
  # unstaged change (3 times the work), an untracked file, an ignored one
  echo stashed >>sub/readme && git stash -q && git worktree add -q --detach "$dir/linked" v2 &&
  echo staged >staged.txt && git add staged.txt &&
  # the change made in place with the file's size, inode and time kept,
  # and the index's time that time (with core.trustctime off): only its
  # content says it changed, which git looks at because the file is not
  # older than the index ("racy git") -- in a copy of the index too?
  git config core.trustctime false && touch -r compare-fixture.c "$dir/stamp" &&
  cp "$dir/edited" compare-fixture.c && touch -r "$dir/stamp" compare-fixture.c &&
  touch -r compare-fixture.c .git/index &&
  echo note-1 >note.txt && echo ignored >ignored.txt &&
  ${CC:-cc} -O2 -shared -fPIC -o "$dir/probe.so" compare-fixture.c
} >"$dir/fixture.log" 2>&1
if ! (fixture); then
  sed 's/^/# /' "$dir/fixture.log"
  skip_rest "no fixture repository (git, or $CC building no shared object)"
fi
v1=$(git -C "$repo" rev-parse v1) v2=$(git -C "$repo" rev-parse v2)

# the build: a line per build to a file outside the checkout, output on
# stdout and stderr (which must land in the log)
builds=$dir/builds
cat >"$dir/build.sh" <<EOF
here=\$(pwd -P) checkout=\$(cd "\$CPUCYCLES_CHECKOUT" && pwd -P)
note=\$(cat note.txt 2>/dev/null || echo no-note)
staged=\$(test -e staged.txt && echo staged || echo no-staged)
ignored=\$(test -e ignored.txt && echo ignored || echo no-ignored)
echo "\$CPUCYCLES_REVISION|\$CPUCYCLES_COMMIT|\$CPUCYCLES_CHECKOUT|\$here|\$checkout|\$note|\$staged|\$ignored" >>"$builds"
echo build-noise-out; echo build-noise-err >&2
exec ${CC:-cc} -O2 -shared -fPIC -o bench.so compare-fixture.c
EOF
: >"$builds"
build="sh '$dir/build.sh'"
built() { awk -F'|' -v r="$1" '$1 == r { n++ } END { print n + 0 }' "$builds"; } # builds of revision $1

# the user's repository as git and find see it (git status without the
# index's optional lock: its refresh would write the index)
state() {
  cd "$repo" &&
  GIT_OPTIONAL_LOCKS=0 git status --porcelain --untracked-files=all && echo "-- stash" && git stash list &&
  echo "-- worktrees" && git worktree list --porcelain && echo "-- refs" && git for-each-ref &&
  echo "-- index" && cksum <.git/index && echo "-- files" &&
  find . "$dir/linked" -exec stat -c '%n %F %s %a %i %y' {} + | LC_ALL=C sort
}
(state) >"$dir/state.before" 2>&1
(state) >"$dir/state.again" 2>&1
if cmp -s "$dir/state.before" "$dir/state.again" && grep -q '^?? note.txt$' "$dir/state.before" &&
   grep -q '^ M compare-fixture.c$' "$dir/state.before" && grep -q 'stash@{0}' "$dir/state.before"; then
  ok "the repository's state, observed twice, is the same (the observation writes nothing)"
else
  notok "the repository's state differs between two observations, or misses the fixture's changes"
  diff "$dir/state.before" "$dir/state.again" | sed 's/^/# /'
fi

# ---- two revisions: built once each, slower called slower ----
git_run() { run "$repo/sub" --git --build "$build" --artifact bench.so $quick "$@"; }
git_run --progress v1 v2
if [ $status -eq 1 ] && grep -q '^benchmark .* slower$' "$out"; then
  ok "v2 (3 times the work) against v1, from a subdirectory: slower, exit 1: $(grep '^benchmark ' "$out" | tr -s ' ')"
else
  notok "v1 v2: exit $status, want 1 and slower"; show
fi
if [ "$(built v1)" = 1 ] && [ "$(built v2)" = 1 ]; then
  ok "each revision built once"
else
  notok "builds: v1 $(built v1), v2 $(built v2), want 1 and 1"; sed 's/^/# /' "$builds"
fi
line=$(grep "^v1|" "$builds" | head -n 1)
IFS='|' read -r revision commit checkout here real_checkout note staged ignored <<EOF
$line
EOF
case $checkout in "$XDG_CACHE_HOME"/cpucycles/*) in_cache=1 ;; *) in_cache=0 ;; esac
if [ "$revision" = v1 ] && [ "$commit" = "$v1" ] && [ $in_cache = 1 ] && [ "$here" = "$real_checkout" ] &&
   [ -d "$checkout/.git" ] && [ "$(git -C "$checkout" rev-parse HEAD)" = "$v1" ] &&
   [ "$note" = no-note ] && [ "$staged" = no-staged ]; then
  ok "the build's variables: CPUCYCLES_REVISION v1, CPUCYCLES_COMMIT its id, CPUCYCLES_CHECKOUT (its working directory) a clone in \$XDG_CACHE_HOME/cpucycles, at v1, without the working tree's files"
else
  notok "the build's variables: $line (want v1|$v1|$XDG_CACHE_HOME/cpucycles/...|a clone at v1)"
fi
if head -n 1 "$out" | grep -q "^NEW v2 ($(echo "$v2" | cut -c1-12)) against OLD v1 ($(echo "$v1" | cut -c1-12)): " &&
   ! grep -q 'build-noise\|building' "$out" && ! grep -q 'build-noise' "$err" &&
   grep -q "^cpucycles-compare: building OLD revision 'v1' ($(echo "$v1" | cut -c1-12)) " "$err" &&
   [ "$(cat "$XDG_CACHE_HOME"/cpucycles/git/*/build.log | grep -c '^build-noise-')" = 4 ]; then
  ok "stdout holds only the report, naming the revisions and their commits; the builds' output in their logs, the progress on stderr"
else
  notok "stdout or stderr holds more than the report and the progress, or the logs miss the builds' output"; show
fi

git_run v1 v2
if [ $status -eq 1 ] && [ "$(built v1)" = 1 ] && [ "$(built v2)" = 1 ]; then
  ok "run again: exit 1, neither revision built again (the command not run)"
else
  notok "run again: exit $status, builds v1 $(built v1), v2 $(built v2), want 1, 1 and 1"; show
fi
git_run --rebuild v1 v2
if [ $status -eq 1 ] && [ "$(built v1)" = 2 ] && [ "$(built v2)" = 2 ]; then
  ok "--rebuild: each built again, exit 1"
else
  notok "--rebuild: exit $status, builds v1 $(built v1), v2 $(built v2), want 1, 2 and 2"; show
fi

# ---- the working tree: its changes, staged or not, its untracked files ----
git_run v1 .
line=$(grep '^\.|' "$builds" | head -n 1)
IFS='|' read -r revision commit checkout here real_checkout note staged ignored <<EOF
$line
EOF
if [ $status -eq 1 ] && grep -q '^benchmark .* slower$' "$out"; then
  ok "v1 against '.' (its uncommitted change: 3 times the work): slower, exit 1"
else
  notok "v1 .: exit $status, want 1 and slower"; show
fi
if [ "$(built .)" = 1 ] && [ "$(built v1)" = 2 ] && [ "$commit" = "$v1" ] && [ "$note" = note-1 ] &&
   [ "$staged" = staged ] && [ "$ignored" = no-ignored ] && [ "$here" = "$real_checkout" ] &&
   [ -d "$checkout/.git" ]; then
  ok "'.': built once (v1 not again), CPUCYCLES_COMMIT HEAD's, with the staged and the untracked file, not the ignored one"
else
  notok "'.': builds $(built .), v1 $(built v1), line $line (want 1, 2, $v1, note-1, staged, no-ignored)"
fi
git_run v1 .
if [ $status -eq 1 ] && [ "$(built .)" = 1 ]; then
  ok "'.' unchanged, run again: not built again, exit 1"
else
  notok "'.' unchanged: exit $status, builds $(built .), want 1 and 1"; show
fi

# ---- errors ----
refused "a revision that does not exist" "NEW revision 'nosuch' does not exist" "$repo" \
  --git --build "$build" --artifact bench.so $quick v1 nosuch
if [ "$(wc -l <"$builds")" -eq 5 ]; then
  ok "a revision that does not exist: nothing built (both named before either is built)"
else
  notok "a revision that does not exist: $(wc -l <"$builds") builds in all, want 5 still"
fi
esc=$(printf 'no\033[31msuch')
run "$repo" --git --build "$build" --artifact bench.so $quick "$esc" v1
if [ $status -eq 2 ] && [ "$(grep -c '' "$err")" -eq 1 ] &&
   grep -q "^cpucycles-compare: OLD revision 'no?\[31msuch' does not exist" "$err"; then
  ok "a revision with an escape sequence: named cleaned, one line: $(cat "$err")"
else
  notok "a revision with an escape sequence: exit $status, want 2 and one clean line"; show
fi
failing='i=0; while [ $i -lt 30 ]; do i=$((i + 1)); echo "line-$i"; done; exit 3'
run "$repo" --git --build "$failing" --artifact bench.so $quick v1 v2
log=$(sed -n 's/^cpucycles-compare: its whole output: //p' "$err")
if [ $status -eq 2 ] && [ ! -s "$out" ] &&
   grep -q "^cpucycles-compare: the build of OLD revision 'v1' .* failed (exit status 3)" "$err" &&
   grep -q '^  line-11$' "$err" && grep -q '^  line-30$' "$err" && ! grep -q 'line-10$' "$err" &&
   [ -n "$log" ] && [ -f "$log" ] && grep -q '^line-1$' "$log"; then
  ok "a build that fails: exit 2, its exit status, its last 20 lines and its log ($log)"
else
  notok "a build that fails: exit $status, want 2, exit status 3, lines 11 to 30 and the log"; show
fi
# (a command of its own, which counts no build: a new key, built now)
refused "an artifact missing after the build" \
  "OLD revision 'v1' ($(echo "$v1" | cut -c1-12)): the artifact 'nothing.so' is missing after its build" "$repo" \
  --git --build "${CC:-cc} -O2 -shared -fPIC -o bench.so compare-fixture.c" --artifact nothing.so $quick v1 v2
refused "an absolute --artifact" "--artifact '/bench.so': not a path relative to the checkout" "$repo" \
  --git --build "$build" --artifact /bench.so $quick v1 v2
refused "not inside a git repository" "--git: not inside a git repository's working tree" "$dir/norepo" \
  --git --build "$build" --artifact bench.so $quick v1 v2
cache=$XDG_CACHE_HOME XDG_CACHE_HOME=$repo/cache
refused "a cache inside the working tree" \
  "--git: the cache $repo/cache/cpucycles/git lies inside the repository" "$repo" \
  --git --build "$build" --artifact bench.so $quick v1 v2
XDG_CACHE_HOME=$cache
if [ ! -e "$repo/cache" ]; then
  ok "a cache inside the working tree: nothing made there"
else
  notok "a cache inside the working tree: $repo/cache was made"
fi

# ---- the user's repository, after all of it ----
(state) >"$dir/state.after" 2>&1
if cmp -s "$dir/state.before" "$dir/state.after"; then
  ok "the repository untouched: git status, stash, worktree list, refs, the index's checksum, every file's size, mode, inode and mtime, .git's too"
else
  notok "the repository changed"; diff "$dir/state.before" "$dir/state.after" | sed 's/^/# /'
fi
if [ "$(built v1)" = 2 ] && [ "$(built v2)" = 2 ] && [ "$(built .)" = 1 ]; then
  ok "after the errors: v1, v2 and '.' still built twice, twice and once"
else
  notok "after the errors: builds v1 $(built v1), v2 $(built v2), . $(built .), want 2, 2, 1"
fi
if [ "$(git -C "$repo" worktree list | grep -c '')" -eq 2 ] && ! grep -rq "$XDG_CACHE_HOME" "$repo/.git" 2>/dev/null; then
  ok "no checkout is a worktree of the repository, and its .git does not name the cache"
else
  notok "a checkout is a worktree of the repository, or its .git names the cache"
  git -C "$repo" worktree list | sed 's/^/# /'
fi

# ---- '.' keyed by its content ----
echo note-2 >"$repo/note.txt"
git_run v1 .
if [ $status -eq 1 ] && [ "$(built .)" = 2 ] && grep '^\.|' "$builds" | tail -n 1 | grep -q '|note-2|'; then
  ok "an untracked file changed: '.' built again, with it"
else
  notok "an untracked file changed: exit $status, builds of '.' $(built .), want 1 and 2 with note-2"; show
fi
cp "$abs_top_srcdir/tests/compare-fixture.c" "$repo/compare-fixture.c"
git_run . v2
if [ $status -eq 1 ] && [ "$(built .)" = 3 ] && grep -q '^benchmark .* slower$' "$out"; then
  ok "the change undone: '.' built again, now v1's work: v2 slower than it, exit 1"
else
  notok "the change undone: exit $status, builds of '.' $(built .), want 1 and 3"; show
fi
git_run --rebuild . v2
if [ $status -eq 1 ] && [ "$(built .)" = 4 ] && [ "$(built v2)" = 3 ]; then
  ok "--rebuild with '.': both built again"
else
  notok "--rebuild with '.': exit $status, builds of '.' $(built .), v2 $(built v2), want 1, 4 and 3"; show
fi

# ---- where the cache is ----
# XDG_CACHE_HOME not an absolute path: ~/.cache (a missing artifact ends
# the run after OLD's build)
XDG_CACHE_HOME=relative/cache
run "$repo" --git --build "$build" --artifact nothing.so $quick v1 v2
XDG_CACHE_HOME=$cache
if [ $status -eq 2 ] && ls "$HOME"/.cache/cpucycles/git/*/build.log >/dev/null 2>&1 && [ ! -e "$repo/relative" ] &&
   grep -q "$HOME/.cache/cpucycles/git/" "$err"; then
  ok "XDG_CACHE_HOME not absolute: the cache in ~/.cache/cpucycles"
else
  notok "XDG_CACHE_HOME not absolute: exit $status, want 2 and a build in $HOME/.cache/cpucycles"; show
fi
refused "a revision that starts with '-'" "unknown option '-x'" "$repo" \
  --git --build "$build" --artifact bench.so $quick v1 -x
refused "one revision" "missing: NEW, a revision" "$repo" --git --build "$build" --artifact bench.so v1
# the same revision twice: one build, one entry
git_run --rebuild v2 v2
if [ $status -le 1 ] && [ "$(built v2)" = 4 ] && ! grep -q waiting "$err"; then
  ok "the same revision as OLD and NEW, --rebuild: built once, exit $status"
else
  notok "v2 v2 --rebuild: exit $status, builds of v2 $(built v2), want 0 or 1 and 4"; show
fi
run "$repo" --git --build "$build" --artifact sub $quick v1 v2
if [ $status -eq 2 ] && grep -q "the artifact 'sub' is not a regular file in its build, made before" "$err"; then
  ok "an artifact that is a directory: exit 2, $(cat "$err")"
else
  notok "an artifact that is a directory: exit $status, want 2 and 'not a regular file'"; show
fi

# ---- two runs at once ----
# OLD and NEW swapped, both --rebuild: both end (neither waits for the
# other for ever), and no entry is built by both at once (each build
# writes when it starts and when it ends)
cat >"$dir/slow-build.sh" <<EOF
echo "start \$CPUCYCLES_REVISION" >>"$dir/spans"
sleep 1
echo "end \$CPUCYCLES_REVISION" >>"$dir/spans"
exec ${CC:-cc} -O2 -shared -fPIC -o bench.so compare-fixture.c
EOF
slow="sh '$dir/slow-build.sh'"
: >"$dir/spans"
(cd "$repo" && $bounded $tool --git --build "$slow" --artifact bench.so --rebuild $quick v1 v2 \
  >"$dir/out1" 2>"$dir/err1"; echo $? >"$dir/status1") &
(cd "$repo" && $bounded $tool --git --build "$slow" --artifact bench.so --rebuild $quick v2 v1 \
  >"$dir/out2" 2>"$dir/err2"; echo $? >"$dir/status2") &
wait
if [ "$(cat "$dir/status1")" = 1 ] && [ "$(cat "$dir/status2")" = 0 ] &&
   grep -q '^benchmark .* slower$' "$dir/out1" && grep -q '^benchmark .* faster$' "$dir/out2"; then
  ok "two runs at once, OLD and NEW swapped, --rebuild: both ended, v1 v2 slower (exit 1), v2 v1 faster (exit 0)"
else
  notok "two runs at once: exit $(cat "$dir/status1") and $(cat "$dir/status2"), want 1 and 0"
  sed 's/^/# 1: /' "$dir/out1" "$dir/err1"; sed 's/^/# 2: /' "$dir/out2" "$dir/err2"
fi
overlap=$(awk '$1 == "start" { if (open[$2]) bad = 1; open[$2] = 1; n++ }
               $1 == "end" { if (!open[$2]) bad = 1; open[$2] = 0 }
               END { print (bad ? "overlap" : "none") " " n }' "$dir/spans")
if [ "$overlap" = "none 4" ]; then
  ok "two runs at once: 4 builds, never two of one entry at once"
else
  notok "two runs at once: $overlap (want none 4)"; sed 's/^/# /' "$dir/spans"
fi

# ---- git's variables of the caller's, as in a hook ----
# GIT_DIR and GIT_INDEX_FILE set to the repository's: the clone and the
# checkout are the cache's all the same, git in the build works on the
# checkout, and the repository is left as it was (a missing artifact
# ends the run after OLD's build)
(state) >"$dir/state.before" 2>&1
GIT_DIR=$repo/.git GIT_INDEX_FILE=$repo/.git/index
export GIT_DIR GIT_INDEX_FILE
run "$repo" --git --build "git rev-parse --git-dir >'$dir/gitdir'" --artifact nothing.so $quick v1 v2
unset GIT_DIR GIT_INDEX_FILE
(state) >"$dir/state.after" 2>&1
gitdir=$(cat "$dir/gitdir" 2>/dev/null)
if [ $status -eq 2 ] && grep -q "the artifact 'nothing.so' is missing after its build" "$err" &&
   { [ "$gitdir" = .git ] || case $gitdir in "$XDG_CACHE_HOME"/*/checkout/.git) true ;; *) false ;; esac; } &&
   cmp -s "$dir/state.before" "$dir/state.after"; then
  ok "GIT_DIR and GIT_INDEX_FILE in the caller's environment: the build's git works on the checkout ($gitdir), the repository untouched"
else
  notok "GIT_DIR in the caller's environment: exit $status, the build's git dir '$gitdir', or the repository changed"
  show; diff "$dir/state.before" "$dir/state.after" | sed 's/^/# /'
fi
