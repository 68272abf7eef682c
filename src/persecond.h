/* persecond.h - the CPU frequency estimate behind cpucycles_persecond(). */
#ifndef CPUCYCLES_PERSECOND_H
#define CPUCYCLES_PERSECOND_H

/* Used when nothing else gives a frequency: in the range of real CPUs and
 * close to multiples of the common 24 MHz, 25 MHz and 19.2 MHz crystals. */
#define CPUCYCLES_PERSECOND_DEFAULT 2399987654LL

/* Plausible CPU frequencies; anything outside is rejected as a typo. */
#define CPUCYCLES_PERSECOND_MIN 1000000LL        /* 1 MHz */
#define CPUCYCLES_PERSECOND_MAX 100000000000LL   /* 100 GHz */

/* Parses a frequency in Hz ("2400000000", "2.4e9", surrounding blanks and a
 * newline allowed).  Returns 1 and sets *hz, or 0 with *why set (empty,
 * not a number, trailing junk, <= 0, not finite, out of range). */
int cpucycles_parse_persecond(const char *text, long long *hz, const char **why);

/* What the OS says: cpufreq's cpuinfo_max_freq, then /proc/cpuinfo
 * ("cpu MHz", "clock", "CPU MHz"), then sysctl hw.cpufrequency on BSD and
 * macOS.  Returns 0 when it says nothing usable. */
long long cpucycles_persecond_from_os(void);

/* Where each candidate came from, and what went wrong with those skipped. */
struct cpucycles_persecond_report {
  long long hz;
  const char *source;     /* "/etc/cpucyclespersecond", "environment", ... */
  char problems[512];     /* "environment cpucyclespersecond='abc': not a number; " */
};

/* The whole order: the file at etc_path, then env_value (the value of the
 * cpucyclespersecond variable, or NULL), then build_hz (the configure-time
 * figure, 0 when this host is not the build host), then the OS, then the
 * default.  Never fails. */
long long cpucycles_persecond_resolve(const char *etc_path, const char *env_value,
                                      long long build_hz,
                                      struct cpucycles_persecond_report *report);

#endif
