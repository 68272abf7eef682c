/* SPDX-License-Identifier: MIT */
/* plot.c - --plot FILE: the comparison's rows as an SVG picture
 * (comparison_svg()).  FILE's directory is checked before anything is
 * measured; the picture is written to a new file beside FILE and renamed
 * over it once whole, so a run or a write that fails leaves FILE as it
 * was.  Each failure is given back in why, for the caller to say. */
#include "compare-tool.h"
#include "comparison.h"
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* why it failed, in why (for the caller to say): 2 */
static int failed(char *why, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int failed(char *why, size_t size, const char *format, ...)
{
  va_list ap;
  va_start(ap, format);
  vsnprintf(why, size, format, ap);
  va_end(ap);
  return 2;
}

/* FILE's directory: "." when it names none */
static int directory_of(const char *path, char *dir, size_t size)
{
  const char *slash = strrchr(path, '/');
  if (!slash) return snprintf(dir, size, ".") >= (int)size ? -1 : 0;
  if (slash == path) return snprintf(dir, size, "/") >= (int)size ? -1 : 0;
  return snprintf(dir, size, "%.*s", (int)(slash - path), path) >= (int)size ? -1 : 0;
}

int plot_check(const char *path, char *why, size_t why_size)
{
  char dir[4096];
  struct stat st;
  if (!path[0] || path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
    return failed(why, why_size, "--plot '%s': a directory, not a file", path);
  if (directory_of(path, dir, sizeof dir) != 0) return failed(why, why_size, "--plot '%s': too long a path", path);
  if (access(dir, W_OK | X_OK) != 0)
    return failed(why, why_size, "--plot '%s': cannot write in %s: %s", path, dir, strerror(errno));
  return 0;
}

int plot_write(const char *path, const struct comparison_head *h, const struct comparison_row *rows, size_t n,
               char *why, size_t why_size)
{
  char tmp[4096 + 16];
  mode_t mask;
  FILE *f;
  int fd, bad;
  if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp || (fd = mkstemp(tmp)) < 0)
    return failed(why, why_size, "--plot '%s': cannot create a file beside it: %s", path, strerror(errno));
  /* as a file the shell would make (mkstemp's is 0600) */
  mask = umask(0), umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0 || !(f = fdopen(fd, "w"))) {
    failed(why, why_size, "--plot '%s': %s", path, strerror(errno));
    close(fd), unlink(tmp);
    return 2;
  }
  comparison_svg(f, h, rows, n);
  bad = fflush(f) != 0 || ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    failed(why, why_size, "--plot '%s': cannot write it: %s", path, strerror(errno));
    unlink(tmp);
    return 2;
  }
  return 0;
}
