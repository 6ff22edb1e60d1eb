/*
 * prewarm.h - `kspec prewarm` (prewarm.c), called from kspec.c's main.
 */
#ifndef KS_TOOLS_PREWARM_H
#define KS_TOOLS_PREWARM_H

/* Runs `kspec prewarm` on argv (argv[0] is "prewarm"); returns the exit
 * status: 0 success, 1 failure (some request failed), 2 bad usage. */
int kspec_prewarm_main(int argc, char **argv);

#endif /* KS_TOOLS_PREWARM_H */
