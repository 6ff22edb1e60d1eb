/*
 * kspec_mpi_int.h - what the files of kspec_mpi share: the calling
 * thread's message (kspec_mpi is built on kspec.h alone, so it keeps its
 * own, which ks_errmsg_mpi gives) and the check of MPI's thread level.
 */
#ifndef KS_MPI_INT_H
#define KS_MPI_INT_H

#include "kspec_mpi.h"

/* Sets the calling thread's kspec_mpi message and returns s. */
ks_status ks_mpi_fail(ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clears it (the next ks_errmsg_mpi gives kspec's). */
void ks_mpi_clear(void);
/* KS_OK when MPI is initialized, not finalized, with MPI_THREAD_MULTIPLE;
 * else KS_EINVAL with a message naming what (and the level given). */
ks_status ks_mpi_check(const char *what);

#endif /* KS_MPI_INT_H */
