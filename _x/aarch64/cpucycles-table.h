  X("amd64-pmc", 0, 0, 0, 0, "not for this target") \
  X("amd64-perfpmc", 0, 0, 0, 0, "not for this target") \
  X("amd64-tscp", 0, 0, 0, 0, "not for this target") \
  X("amd64-tsc", 0, 0, 0, 0, "not for this target") \
  X("x86-tsc", 0, 0, 0, 0, "not for this target") \
  X("arm64-perfpmc", 0, 0, 0, 0, "perf_event_open: no such system call") \
  X("arm64-pmc", 0, 0, 0, 0, "kernel does not allow user reads of PMCCNTR_EL0 (PMUSERENR_EL0.EN/CR clear)") \
  X("arm64-vct", 1, 2675, 62293942, 3, "") \
  X("arm32-cortex", 0, 0, 0, 0, "not for this target") \
  X("riscv64-perfrdcycle", 0, 0, 0, 0, "not for this target") \
  X("riscv64-rdcycle", 0, 0, 0, 0, "not for this target") \
  X("riscv64-rdtime", 0, 0, 0, 0, "not for this target") \
  X("riscv32-rdcycle", 0, 0, 0, 0, "not for this target") \
  X("ppc64-mftb", 0, 0, 0, 0, "not for this target") \
  X("ppc32-mftb", 0, 0, 0, 0, "not for this target") \
  X("s390x-stckf", 0, 0, 0, 0, "not for this target") \
  X("sparc64-rdtick", 0, 0, 0, 0, "not for this target") \
  X("mips64-cc", 0, 0, 0, 0, "not for this target") \
  X("loong64-rdtime", 0, 0, 0, 0, "not for this target") \
  X("default-perfevent", 0, 0, 0, 0, "perf_event_open: no such system call") \
  X("default-mach", 0, 0, 0, 0, "not for this target") \
  X("default-monotonic", 1, 771, 997405681, 5, "") \
  X("default-gettimeofday", 1, 2796, 997072, 5, "") \
  X("default-zero", 0, 0, 0, 0, "never increases (last resort)") \
  /* end of table */
