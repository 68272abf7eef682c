/* SPDX-License-Identifier: MIT */
/* verdict.h - one verdict for every comparison of OLD and NEW: the
 * harness's cpucycles_bench_compare() (pairs within one process),
 * cpucycles-compare (executions of two builds, or processes of two
 * programs) and cpucycles-info --compare (saved results).  Each measures
 * in its own way and hands this module its figures; the module turns them
 * into the same things for all three:
 *   - an estimate of log(NEW/OLD) with its standard error and degrees of
 *     freedom, from paired samples (one log-ratio per execution or pair)
 *     or from two unpaired ones (each side's executions), 20% trimmed
 *     (Tukey and McLaughlin's one-sample t, Yuen's two-sample t): a
 *     process or two that a busy neighbour slowed, unflagged, weigh no
 *     more than the kept ones;
 *   - the 99% interval of NEW/OLD, Student's t (Bonferroni's at each of
 *     two looks when a second stage may follow: below);
 *   - the verdict, in one vocabulary (slower, faster, indistinguishable,
 *     cannot judge), against a tolerance, with the reasons that forbid
 *     one;
 *   - the exit status, one convention for every tool.
 *
 * The rule.  At tolerance 0 an interval above 1 is slower, below 1
 * faster, and one containing 1 indistinguishable.  Above 0 a pass needs
 * the whole interval below 1 + tolerance, a failure the whole interval
 * above it; an interval across 1 + tolerance is undecided: the tool
 * measures more where it can (a second stage), then says cannot judge.
 * Its word is still by 1: slower (within the tolerance) when the whole
 * interval lies above 1, and so on.
 *
 * Measuring more stays honest: a tool that may look twice (a first
 * stage, then a fixed second one when the first is undecided) takes each
 * look's interval at 1 - 0.01/2 (99.5%), so that the chance that either
 * look errs stays under 1% (Bonferroni); a tool that looks once takes 99%.
 *
 * Nothing here allocates or needs libm (the harness promises neither):
 * the sort is a heap sort in place, the logarithms and exponentials are
 * this module's own (stats.h has the square root). */
#ifndef CPUCYCLES_VERDICT_H
#define CPUCYCLES_VERDICT_H

/* The words, as JSON writes them and as each text verdict begins; the
 * first three are CPUCYCLES_COMPARE_*'s values. */
#define CPUCYCLES_VERDICT_INDISTINGUISHABLE 0
#define CPUCYCLES_VERDICT_FASTER 1
#define CPUCYCLES_VERDICT_SLOWER 2
#define CPUCYCLES_VERDICT_CANNOT_JUDGE 3
const char *cpucycles_verdict_word(int verdict);

/* The exit status of every comparison (cpucycles-compare in every mode,
 * cpucycles-info --compare). */
#define CPUCYCLES_EXIT_NOT_SLOWER 0   /* nothing slower beyond the tolerance */
#define CPUCYCLES_EXIT_SLOWER 1       /* something slower beyond it */
#define CPUCYCLES_EXIT_ERROR 2        /* an error, named on standard error */
#define CPUCYCLES_EXIT_FASTER 3       /* with --exit-faster: nothing slower, nothing
                                         undecided, something faster beyond it */
#define CPUCYCLES_EXIT_CANNOT_JUDGE 4 /* nothing slower, something cannot be judged */

/* What forbids a verdict (a row's reasons; JSON names them by
 * cpucycles_verdict_reason_name()). */
#define CPUCYCLES_REASON_ACROSS 0x1u    /* the interval reaches across the tolerance */
#define CPUCYCLES_REASON_DISTURBED 0x2u /* too many executions flagged (drift, spread,
                                           below resolution, few runs kept) */
#define CPUCYCLES_REASON_APART 0x4u     /* OLD and NEW measured with another counter,
                                           unit, host, library or version */
#define CPUCYCLES_REASON_ONE 0x8u       /* one execution on a side: how processes differ
                                           is unknown */
#define CPUCYCLES_REASON_NO_FIGURE 0x10u /* no ratio or interval could be computed */
#define CPUCYCLES_REASON_PLACEMENT 0x20u /* the code could not move within its cache
                                           lines (data aligned to 64 bytes or more), and
                                           the difference is within what that moves */
#define CPUCYCLES_REASON_SPEED 0x40u    /* OLD and NEW measured at speeds too far apart
                                           to compare, and no reference to normalize by */
/* "across the tolerance", "disturbed", ... or 0 for anything else. */
const char *cpucycles_verdict_reason_name(unsigned int reason);

/* An estimate of log(NEW/OLD). */
struct cpucycles_estimate {
  double log_ratio; /* the estimate */
  double se2;       /* its squared standard error */
  double df;        /* degrees of freedom of its t; 0: a normal point (known error) */
  long long n;      /* samples behind it (each side's fewest, unpaired) */
};

/* From n >= 2 paired samples x of log(NEW/OLD) (an execution's, a
 * pair's), finite: their 20% trimmed mean, the squared standard error
 * from the winsorized variance, and h - 1 degrees of freedom (h kept;
 * below 5 samples nothing is trimmed: the mean and the plain variance).
 * x is left sorted and winsorized.  0, or -1 for n < 2 or a value that
 * is not finite. */
int cpucycles_estimate_paired(double *x, long long n, struct cpucycles_estimate *e);

/* From unpaired samples of log(figure) on each side, n_old and n_new >= 1
 * (arrays left sorted and winsorized): the difference of their trimmed
 * means, the sum of their squared standard errors, and Welch's degrees of
 * freedom (Yuen's t).  A side of one sample has no spread of its own: its
 * squared error is given in one_se2 (the result's own, within its
 * process; 0 when not known) and counts as known (no degrees of its own).
 * 0, or -1 for a value that is not finite. */
int cpucycles_estimate_unpaired(double *old_logs, long long n_old, double old_one_se2, double *new_logs,
                                long long n_new, double new_one_se2, struct cpucycles_estimate *e);

/* The trimmed mean of a side alone (as the unpaired estimate takes it):
 * its mean, squared standard error and winsorized standard deviation. */
int cpucycles_estimate_side(double *logs, long long n, double *mean, double *se2, double *sd);

/* Two-sided confidence at each look: 1 - 0.01 / looks (looks 1 or 2). */
double cpucycles_verdict_confidence(int looks);
/* Student's t at that confidence, df degrees of freedom (0: the normal
 * point; a fraction rounded down). */
double cpucycles_verdict_t(double df, int looks);
/* NEW/OLD and its interval at that confidence.  0, or -1 when they are
 * not finite. */
int cpucycles_interval(const struct cpucycles_estimate *e, int looks, double *ratio, double *low,
                       double *high);

/* The interval of a difference (NEW - OLD, not a ratio) from an estimate
 * made of differences: estimate +- t sqrt(se2), at that confidence. */
void cpucycles_interval_difference(const struct cpucycles_estimate *e, int looks, double *low, double *high);

/* One row judged. */
struct cpucycles_judgement {
  int verdict;         /* CPUCYCLES_VERDICT_* */
  int beyond;          /* slower beyond the tolerance */
  int faster_beyond;   /* faster beyond it (1 - tolerance; below 1 at 0) */
  int undecided;       /* across the tolerance: more measuring may decide */
  unsigned int reasons; /* what forbids a verdict (the caller's, and ACROSS) */
  int status;          /* CPUCYCLES_EXIT_* for this row alone */
};

/* The rule above, on the interval [low, high] of NEW/OLD, tolerance a
 * fraction (0.05 for 5%), reasons what the caller found forbids a verdict
 * (0: none).  NaN bounds are NO_FIGURE.  exit_faster: a row faster beyond
 * the tolerance has status 3. */
void cpucycles_judge(double low, double high, double tolerance, unsigned int reasons, int exit_faster,
                     struct cpucycles_judgement *j);

/* The judgement behind a verdict given at tolerance 0 with no reason
 * against it (a cpucycles_bench_compare() result's): slower is beyond the
 * tolerance, faster beyond it the other way. */
void cpucycles_judgement_at_zero(int verdict, struct cpucycles_judgement *j);

/* Where there is no ratio (OLD measures nothing: an empty function), the
 * interval of the difference NEW - OLD against 0: only a tolerance of 0
 * can be exceeded. */
void cpucycles_judge_difference(double low, double high, unsigned int reasons, int exit_faster,
                                struct cpucycles_judgement *j);

/* The verdict in words, for text: its word first ("slower", "faster",
 * "indistinguishable", "cannot judge"), then what the tolerance (in
 * percent) and the reasons add: "slower, beyond the tolerance of 5%",
 * "cannot judge: the interval reaches across the tolerance of 2%". */
struct cpucycles_out;
void cpucycles_verdict_phrase(struct cpucycles_out *o, const struct cpucycles_judgement *j,
                              double tolerance_percent);

/* A suite's status from its rows': 1 when a row is slower, else 4 when one
 * cannot be judged, else 3 when one is faster (with exit_faster), else 0;
 * an error (2) wins over all. */
int cpucycles_exit_combine(int status, int row_status);

/* log and exp without libm (IEEE 754 doubles), to about 1e-15 relative:
 * log of x > 0 (else NaN), exp of |x| < 700 (else inf or 0). */
double cpucycles_log(double x);
double cpucycles_exp(double x);

#endif
