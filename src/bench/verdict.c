/* SPDX-License-Identifier: MIT */
/* verdict.c - one verdict for every comparison (verdict.h). */
#include "verdict.h"
#include "format.h"
#include "stats.h"
#include <math.h> /* NAN, INFINITY, isfinite: macros, no libm */
#include <string.h>

const char *cpucycles_verdict_word(int verdict)
{
  switch (verdict) {
  case CPUCYCLES_VERDICT_INDISTINGUISHABLE: return "indistinguishable";
  case CPUCYCLES_VERDICT_FASTER: return "faster";
  case CPUCYCLES_VERDICT_SLOWER: return "slower";
  case CPUCYCLES_VERDICT_CANNOT_JUDGE: return "cannot judge";
  default: return 0;
  }
}

const char *cpucycles_verdict_reason_name(unsigned int reason)
{
  switch (reason) {
  case CPUCYCLES_REASON_ACROSS: return "across the tolerance";
  case CPUCYCLES_REASON_DISTURBED: return "disturbed";
  case CPUCYCLES_REASON_APART: return "measured apart";
  case CPUCYCLES_REASON_ONE: return "one execution";
  case CPUCYCLES_REASON_NO_FIGURE: return "no figure";
  case CPUCYCLES_REASON_PLACEMENT: return "placement";
  case CPUCYCLES_REASON_SPEED: return "speed";
  default: return 0;
  }
}

/* ---- log and exp, without libm ---- */

/* 2^k, k within a double's normal exponents */
static double power_of_two(int k)
{
  union {
    double d;
    unsigned long long u;
  } v;
  v.u = (unsigned long long)(k + 1023) << 52;
  return v.d;
}

#define LN2 0.69314718055994530942

double cpucycles_log(double x)
{
  union {
    double d;
    unsigned long long u;
  } v;
  double m, s, s2, term, sum;
  int e, i;
  if (!(x > 0) || x == INFINITY) return x == INFINITY ? x : NAN;
  v.d = x;
  e = (int)((v.u >> 52) & 0x7ff);
  if (e == 0) return cpucycles_log(x * 4503599627370496.0) - 52 * LN2; /* subnormal: times 2^52 */
  /* x = m 2^(e - 1023), m in [1, 2): then m in [0.75, 1.5) */
  v.u = (v.u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  m = v.d, e -= 1023;
  if (m > 1.5) m /= 2, e++;
  /* log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.2 */
  s = (m - 1) / (m + 1), s2 = s * s, term = s, sum = 0;
  for (i = 1; i < 60; i += 2) {
    sum += term / i;
    term *= s2;
    if (term < 1e-18 * sum && term > -1e-18 * sum) break;
  }
  return 2 * sum + e * LN2;
}

double cpucycles_exp(double x)
{
  double r, term, sum;
  int k, i;
  if (x != x) return x;
  if (x > 709) return INFINITY;
  if (x < -708) return 0;
  /* x = k ln 2 + r, |r| <= ln 2 / 2 */
  k = (int)(x / LN2 + (x < 0 ? -0.5 : 0.5));
  r = x - k * LN2;
  for (term = 1, sum = 1, i = 1; i < 30; i++) {
    term *= r / i;
    sum += term;
    if (term < 1e-18 && term > -1e-18) break;
  }
  return sum * power_of_two(k);
}

/* ---- trimmed estimates ---- */

/* Heap sort of v[0..n), ascending, in place (qsort() may allocate). */
static void sift(double *v, long long root, long long n)
{
  long long child;
  double x = v[root];
  while ((child = 2 * root + 1) < n) {
    if (child + 1 < n && v[child + 1] > v[child]) child++;
    if (!(v[child] > x)) break;
    v[root] = v[child];
    root = child;
  }
  v[root] = x;
}

static void sort(double *v, long long n)
{
  long long i;
  double x;
  for (i = n / 2 - 1; i >= 0; i--) sift(v, i, n);
  for (i = n - 1; i > 0; i--) {
    x = v[0], v[0] = v[i], v[i] = x;
    sift(v, 0, i);
  }
}

/* The 20% trimmed mean of v[0..n) (n >= 2, finite), its squared standard
 * error from the winsorized variance, with h - 1 degrees of freedom (h
 * kept), and the winsorized variance itself; v left sorted and
 * winsorized (each trimmed value as the nearest kept one). */
struct trimmed {
  double mean, se2, variance;
  long long df;
};
static void trim(double *v, long long n, struct trimmed *t)
{
  long long i, cut = n / 5, h = n - 2 * cut;
  double m = 0, w = 0, d = 0;
  sort(v, n);
  for (i = cut; i < n - cut; i++) m += v[i] / (double)h;
  for (i = 0; i < n; i++) v[i] = v[i < cut ? cut : i >= n - cut ? n - cut - 1 : i], w += v[i] / (double)n;
  for (i = 0; i < n; i++) d += (v[i] - w) * (v[i] - w);
  t->mean = m;
  t->variance = d / (double)(n - 1);
  t->se2 = d / ((double)h * (double)(h - 1));
  t->df = h - 1;
}

static int all_finite(const double *v, long long n)
{
  long long i;
  for (i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

int cpucycles_estimate_paired(double *x, long long n, struct cpucycles_estimate *e)
{
  struct trimmed t;
  if (n < 2 || !all_finite(x, n)) return -1;
  trim(x, n, &t);
  e->log_ratio = t.mean, e->se2 = t.se2, e->df = (double)t.df, e->n = n;
  return 0;
}

int cpucycles_estimate_side(double *logs, long long n, double *mean, double *se2, double *sd)
{
  struct trimmed t;
  if (n < 1 || !all_finite(logs, n)) return -1;
  if (n == 1) {
    *mean = logs[0], *se2 = 0, *sd = 0;
    return 0;
  }
  trim(logs, n, &t);
  *mean = t.mean, *se2 = t.se2, *sd = cpucycles_sqrt(t.variance);
  return 0;
}

int cpucycles_estimate_unpaired(double *old_logs, long long n_old, double old_one_se2, double *new_logs,
                                long long n_new, double new_one_se2, struct cpucycles_estimate *e)
{
  double mo, mn, so, sn, sd, denominator = 0, df_o, df_n;
  if (cpucycles_estimate_side(old_logs, n_old, &mo, &so, &sd) != 0 ||
      cpucycles_estimate_side(new_logs, n_new, &mn, &sn, &sd) != 0)
    return -1;
  if (n_old == 1) so = old_one_se2;
  if (n_new == 1) sn = new_one_se2;
  /* a side's degrees of freedom: h - 1 (h kept), none for one sample */
  df_o = n_old > 1 ? (double)(n_old - 2 * (n_old / 5) - 1) : 0;
  df_n = n_new > 1 ? (double)(n_new - 2 * (n_new / 5) - 1) : 0;
  if (df_o > 0) denominator += so * so / df_o;
  if (df_n > 0) denominator += sn * sn / df_n;
  e->log_ratio = mn - mo;
  e->se2 = so + sn;
  /* Welch and Satterthwaite's; rounded down later (a whole 4 may come
   * out as 3.9999999: the 1e-6) */
  e->df = denominator > 0 ? e->se2 * e->se2 / denominator + 1e-6 : 0;
  e->n = n_old < n_new ? n_old : n_new;
  return 0;
}

/* ---- the interval ---- */

/* Student's t, two-sided, at 1 - 0.01/looks: the table to 30 degrees,
 * then the Cornish-Fisher expansion from the normal point (within 0.001
 * from there on); 0 degrees: the normal point.  The one table of every
 * interval cpucycles gives. */
double cpucycles_verdict_t(double df, int looks)
{
  static const double table[2][30] = {
      {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
       3.106,  3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
       2.831,  2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750},
      {127.321, 14.089, 7.453, 5.598, 4.773, 4.317, 4.029, 3.833, 3.690, 3.581,
       3.497,   3.428,  3.372, 3.326, 3.286, 3.252, 3.222, 3.197, 3.174, 3.153,
       3.135,   3.119,  3.104, 3.091, 3.078, 3.067, 3.057, 3.047, 3.038, 3.030}};
  static const double normal[2] = {2.575829, 2.807034}; /* 99%, 99.5% */
  int k = looks >= 2 ? 1 : 0;
  double z = normal[k], z3 = z * z * z, z5 = z3 * z * z;
  long long whole = (long long)df;
  if (!(df > 0)) return z;
  if (whole < 1) whole = 1;
  if (whole <= 30) return table[k][whole - 1];
  return z + (z3 + z) / (4 * (double)whole) + (5 * z5 + 16 * z3 + 3 * z) / (96 * (double)whole * (double)whole);
}

double cpucycles_verdict_confidence(int looks)
{
  return looks >= 2 ? 0.995 : 0.99;
}

int cpucycles_interval(const struct cpucycles_estimate *e, int looks, double *ratio, double *low, double *high)
{
  double half = cpucycles_verdict_t(e->df, looks) * cpucycles_sqrt(e->se2);
  *ratio = cpucycles_exp(e->log_ratio);
  *low = cpucycles_exp(e->log_ratio - half);
  *high = cpucycles_exp(e->log_ratio + half);
  if (!isfinite(*ratio) || !isfinite(*low) || !isfinite(*high) || !(*ratio > 0)) {
    *ratio = *low = *high = NAN;
    return -1;
  }
  return 0;
}

void cpucycles_interval_difference(const struct cpucycles_estimate *e, int looks, double *low, double *high)
{
  double half = cpucycles_verdict_t(e->df, looks) * cpucycles_sqrt(e->se2);
  *low = e->log_ratio - half, *high = e->log_ratio + half;
}

/* ---- the verdict ---- */

static void status_of(int exit_faster, struct cpucycles_judgement *j)
{
  if (j->verdict == CPUCYCLES_VERDICT_CANNOT_JUDGE) j->status = CPUCYCLES_EXIT_CANNOT_JUDGE;
  else if (j->beyond) j->status = CPUCYCLES_EXIT_SLOWER;
  else if (j->faster_beyond && exit_faster) j->status = CPUCYCLES_EXIT_FASTER;
  else j->status = CPUCYCLES_EXIT_NOT_SLOWER;
}

void cpucycles_judge(double low, double high, double tolerance, unsigned int reasons, int exit_faster,
                     struct cpucycles_judgement *j)
{
  memset(j, 0, sizeof *j);
  if (!(low <= high) || !isfinite(low) || !isfinite(high)) reasons |= CPUCYCLES_REASON_NO_FIGURE;
  else {
    j->verdict = low > 1    ? CPUCYCLES_VERDICT_SLOWER
                 : high < 1 ? CPUCYCLES_VERDICT_FASTER
                            : CPUCYCLES_VERDICT_INDISTINGUISHABLE;
    j->beyond = low > 1 + tolerance;
    j->faster_beyond = high < 1 - tolerance;
    /* above 0, a pass needs the whole interval below 1 + tolerance */
    if (tolerance > 0 && !j->beyond && high >= 1 + tolerance) {
      j->undecided = 1;
      reasons |= CPUCYCLES_REASON_ACROSS;
    }
  }
  j->reasons = reasons;
  if (reasons) {
    j->verdict = CPUCYCLES_VERDICT_CANNOT_JUDGE;
    j->beyond = j->faster_beyond = 0;
  }
  status_of(exit_faster, j);
}

void cpucycles_judgement_at_zero(int verdict, struct cpucycles_judgement *j)
{
  memset(j, 0, sizeof *j);
  j->verdict = verdict;
  j->beyond = verdict == CPUCYCLES_VERDICT_SLOWER;
  j->faster_beyond = verdict == CPUCYCLES_VERDICT_FASTER;
  status_of(0, j);
}

void cpucycles_judge_difference(double low, double high, unsigned int reasons, int exit_faster,
                                struct cpucycles_judgement *j)
{
  memset(j, 0, sizeof *j);
  if (!(low <= high) || !isfinite(low) || !isfinite(high)) reasons |= CPUCYCLES_REASON_NO_FIGURE;
  else
    cpucycles_judgement_at_zero(low > 0    ? CPUCYCLES_VERDICT_SLOWER
                                : high < 0 ? CPUCYCLES_VERDICT_FASTER
                                           : CPUCYCLES_VERDICT_INDISTINGUISHABLE,
                                j);
  j->reasons = reasons;
  if (reasons) {
    j->verdict = CPUCYCLES_VERDICT_CANNOT_JUDGE;
    j->beyond = j->faster_beyond = 0;
  }
  status_of(exit_faster, j);
}

/* the tolerance as a percentage: "5%", "2.5%" */
static void percent(struct cpucycles_out *o, double tolerance)
{
  cpucycles_out_double(o, tolerance);
  cpucycles_out_str(o, "%");
}

void cpucycles_verdict_phrase(struct cpucycles_out *o, const struct cpucycles_judgement *j,
                              double tolerance_percent)
{
  static const struct {
    unsigned int reason;
    const char *words;
  } why[] = {
      {CPUCYCLES_REASON_NO_FIGURE, "no ratio or interval could be computed"},
      {CPUCYCLES_REASON_ONE, "one execution on a side: how processes differ is not known"},
      {CPUCYCLES_REASON_APART, "OLD and NEW were measured apart"},
      {CPUCYCLES_REASON_DISTURBED, "too many of its executions were disturbed"},
      {CPUCYCLES_REASON_SPEED, "OLD and NEW ran at speeds too far apart, with no reference to normalize by"},
      {CPUCYCLES_REASON_PLACEMENT, "its code could not move within its cache lines, and the difference is within what that moves"},
  };
  size_t i;
  int n = 0;
  cpucycles_out_str(o, cpucycles_verdict_word(j->verdict));
  if (j->verdict == CPUCYCLES_VERDICT_CANNOT_JUDGE) {
    cpucycles_out_str(o, ": ");
    for (i = 0; i < sizeof why / sizeof why[0]; i++)
      if (j->reasons & why[i].reason) {
        if (n++) cpucycles_out_str(o, "; ");
        cpucycles_out_str(o, why[i].words);
      }
    if (j->reasons & CPUCYCLES_REASON_ACROSS) {
      if (n++) cpucycles_out_str(o, "; ");
      cpucycles_out_str(o, "the interval reaches across the tolerance of ");
      percent(o, tolerance_percent);
    }
    return;
  }
  if (!(tolerance_percent > 0)) return;
  if (j->undecided) { /* judged anyway (cpucycles-info --judge-anyway) */
    cpucycles_out_str(o, ", the interval reaching across the tolerance of ");
    percent(o, tolerance_percent);
    return;
  }
  cpucycles_out_str(o, (j->verdict == CPUCYCLES_VERDICT_SLOWER && j->beyond) ||
                               (j->verdict == CPUCYCLES_VERDICT_FASTER && j->faster_beyond)
                           ? ", beyond the tolerance of "
                           : ", within the tolerance of ");
  percent(o, tolerance_percent);
}

int cpucycles_exit_combine(int status, int row_status)
{
  static const int rank[5] = {0, 3, 4, 1, 2}; /* by status: 0, 1, 2, 3, 4 */
  if (status < 0 || status > 4) return row_status;
  if (row_status < 0 || row_status > 4) return status;
  return rank[row_status] > rank[status] ? row_status : status;
}
