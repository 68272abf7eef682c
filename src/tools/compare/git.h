/* SPDX-License-Identifier: MIT */
/* git.h - cpucycles-compare --git: two revisions of the git repository
 * that holds the working directory, each checked out in a clone of its
 * own in the cache and built there, their artifacts the two files the
 * comparison takes.  git.c says how. */
#ifndef CPUCYCLES_COMPARE_GIT_H
#define CPUCYCLES_COMPARE_GIT_H

#define GIT_PATH_MAX 4096

struct git_request {
  const char *revisions[2]; /* OLD's and NEW's, as given: a commit's name, or "." */
  const char *build;        /* --build: run by /bin/sh -c in each checkout */
  const char *artifact;     /* --artifact: a path relative to each checkout */
  int rebuild;              /* --rebuild: build even what was built before */
  int progress;             /* --progress (else: on a terminal) */
  /* filled: how the report names each revision, "main (1a2b3c4d5e6f)",
   * ". (uncommitted changes on 1a2b3c4d5e6f)" */
  char names[2][GIT_PATH_MAX];
};

/* OLD, then NEW, checked out and built in the cache (or found built
 * there), and each artifact's absolute path in paths[0] (OLD's) and
 * paths[1] (NEW's): 0, or 2 with a message on stderr.  The cache entries
 * stay locked (shared: no other run rebuilds them) until this process
 * ends. */
int git_artifacts(struct git_request *r, char paths[2][GIT_PATH_MAX]);

#endif
