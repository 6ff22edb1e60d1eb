/*
 * tune.h - `kspec tune` (tune.c), called from kspec.c's main.
 */
#ifndef KS_TOOLS_TUNE_H
#define KS_TOOLS_TUNE_H

/* Runs `kspec tune` on argv (argv[0] is "tune"); returns the exit status:
 * 0 success, 1 failure, 2 bad usage. */
int kspec_tune_main(int argc, char **argv);

#endif /* KS_TOOLS_TUNE_H */
