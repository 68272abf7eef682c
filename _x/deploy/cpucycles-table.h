  X("amd64-pmc", 0, 0, 0, 0, "faulted with SIGSEGV (instruction or access forbidden)") \
  X("amd64-perfpmc", 0, 0, 0, 0, "perf_event_open: hardware cycle events not supported (no PMU)") \
  X("amd64-tscp", 1, 152, 2596110982, 2, "") \
  X("amd64-tsc", 1, 101, 2596064147, 2, "") \
  X("x86-tsc", 0, 0, 0, 0, "not for this target") \
  X("arm64-perfpmc", 0, 0, 0, 0, "not for this target") \
  X("arm64-pmc", 0, 0, 0, 0, "not for this target") \
  X("arm64-vct", 0, 0, 0, 0, "not for this target") \
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
  X("default-perfevent", 0, 0, 0, 0, "perf_event_open: hardware cycle events not supported (no PMU)") \
  X("default-mach", 0, 0, 0, 0, "not for this target") \
  X("default-monotonic", 1, 252, 999995000, 5, "") \
  X("default-gettimeofday", 1, 2796, 999955, 5, "") \
  X("default-zero", 0, 0, 0, 0, "never increases (last resort)") \
  /* end of table */
