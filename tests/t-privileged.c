/* SPDX-License-Identifier: MIT */
/* t-privileged - a setuid program linked with the library does not take
 * its frequency from its caller's environment (cpucyclespersecond), and
 * the report says why; the same program without the setuid bit does.
 *
 * The variable is the last of the frequency's sources (after every OS
 * mechanism), so the check resolves with a host that says nothing.
 * As root, a copy of this program is made setuid to nobody (uid 65534) in
 * a fresh directory and run with cpucyclespersecond=1234567: the kernel
 * marks it AT_SECURE (its effective uid is not its caller's).  Not root,
 * a mount with nosuid, or an exec that fails (an emulator): SKIP. */
#include "persecond.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define ASKED "1234567"
#define NOBODY 65534

/* A host whose own mechanisms (CPUID, cpufreq, /proc) say nothing: only
 * then is the variable consulted (libcpucycles' order). */
static long long host_silent(const char **source)
{
  (void)source;
  return 0;
}

/* The child's side: AT_SECURE, the frequency the library's resolution
 * takes from this process's environment, the report's problems. */
static int report(void)
{
  struct cpucycles_persecond_report r;
  long long hz = cpucycles_persecond_resolve_with("/nonexistent/cpucyclespersecond",
                                                  getenv("cpucyclespersecond"), 0, host_silent, &r);
  int secure = 0;
#if defined(__linux__) && defined(AT_SECURE)
  secure = getauxval(AT_SECURE) != 0;
#endif
  printf("secure %d persecond %lld problems %s\n", secure, hz, r.problems);
  return 0;
}

/* Runs program with the variable set; its line in line[size]. */
static int run(const char *program, char *line, size_t size)
{
  char command[4200];
  FILE *p;
  snprintf(command, sizeof command, "cpucyclespersecond=" ASKED " '%s' --report 2>&1", program);
  line[0] = 0;
  if (!(p = popen(command, "r"))) return -1;
  if (!fgets(line, (int)size, p)) line[0] = 0;
  return pclose(p);
}

/* A copy of this program (at self) at path, mode 04755, owned by nobody. */
static int setuid_copy(const char *self, const char *path)
{
  char command[8400];
  snprintf(command, sizeof command, "cp '%s' '%s' 2>/dev/null", self, path);
  return system(command) == 0 && chown(path, NOBODY, NOBODY) == 0 && chmod(path, 04755) == 0
             ? 0
             : -1;
}

int main(int argc, char **argv)
{
  char dir[] = "/tmp/t-privileged.XXXXXX", self[4096], path[4096], line[1024];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  long long hz;

  if (argc > 1 && !strcmp(argv[1], "--report")) return report();
  tap_plan(2);
  self[n > 0 ? n : 0] = 0;
  if (n <= 0 || run(self, line, sizeof line) != 0 ||
      sscanf(line, "secure 0 persecond %lld", &hz) != 1) {
    tap_skip("an unprivileged program takes the variable", "this program cannot run itself here");
    tap_skip("a setuid program ignores it", "this program cannot run itself here");
    return tap_done();
  }
  tap_ok(hz == atoll(ASKED), "without setuid the variable is taken: %lld", hz);

  if (geteuid() != 0) {
    tap_skip("a setuid program ignores the variable", "not root: cannot make a setuid copy");
    return tap_done();
  }
  if (!mkdtemp(dir) || chmod(dir, 0755) != 0) {
    tap_skip("a setuid program ignores the variable", "no temporary directory");
    return tap_done();
  }
  snprintf(path, sizeof path, "%s/t-privileged", dir);
  if (setuid_copy(self, path) != 0 || run(path, line, sizeof line) != 0 ||
      strncmp(line, "secure 1 ", 9) != 0) {
    tap_skip("a setuid program ignores the variable",
             "the setuid copy did not run with AT_SECURE (nosuid mount?)");
  } else {
    line[strcspn(line, "\n")] = 0;
    tap_ok(sscanf(line, "secure 1 persecond %lld", &hz) == 1 && hz != atoll(ASKED) &&
               strstr(line, "cpucyclespersecond") && strstr(line, "privileged") &&
               !strstr(line, ASKED),
           "a setuid program ignores the variable, says so, and does not echo it: %s", line);
  }
  unlink(path);
  rmdir(dir);
  return tap_done();
}
