/*
 * stats.h - `kspec stats` (stats.c), called from kspec.c's main.
 */
#ifndef KS_TOOLS_STATS_H
#define KS_TOOLS_STATS_H

/* Runs `kspec stats` on argv (argv[0] is "stats"); returns the exit
 * status: 0 success, 1 failure, 2 bad usage. */
int kspec_stats_main(int argc, char **argv);

#endif /* KS_TOOLS_STATS_H */
