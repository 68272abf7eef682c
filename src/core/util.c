/* SPDX-License-Identifier: MIT */
/* util.c - the counter library's one copy of the helpers of src/util/
 * (util-fn.h): its other files only declare them. */
#define CPUCYCLES_UTIL_DEFINE 1
#include "readfile.h"
#include "text.h"
