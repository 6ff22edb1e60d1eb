/*
 * kspec_mpi.h - kspec over an MPI job (the optional library kspec_mpi,
 * built where CMake finds MPI; link it with -lkspec_mpi -lkspec and your
 * MPI). The core library does not depend on MPI: this one plugs into it
 * through ks_ctx_share and ks_tune_opts.team.
 *
 * MPI must be initialized with MPI_Init_thread(..., MPI_THREAD_MULTIPLE,
 * ...): a service thread per rank answers the others while the rank's own
 * threads specialize. Requests are point-to-point, never collective: any
 * rank may specialize anything at any time, in any order.
 */
#ifndef KSPEC_MPI_H
#define KSPEC_MPI_H

#include <mpi.h>

#include "kspec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shares ctx's compiles with the ranks of comm: from then on every
 * ks_specialize of ctx, on any rank, compiles each key at most once per
 * communicator. Each key has an owner rank (by its hash) that keeps what
 * was built for it: the first rank to ask builds it and gives it to the
 * owner, the others receive the PTX (and, among ranks with the same device
 * model and driver, the cubin) and keep it in their memory cache. A rank
 * that waits longer than KSPEC_MPI_TIMEOUT seconds (default 30: the owner
 * died or is stuck) builds the kernel itself and says so once, in
 * ks_ctx_warning; that owner is not asked again. ks_cache_stats counts the
 * local compiles (compiles) and what came from other ranks (remote_hits,
 * cubin_remote). With a disk cache, only a key's owner writes its entry,
 * so ranks may share one cache directory.
 *
 * Call it once per context on every rank of comm (it duplicates comm, a
 * collective call), after MPI_Init_thread and before the context's first
 * specialization. Sharing ends at ks_ctx_destroy or at MPI_Finalize,
 * whichever comes first (after MPI_Finalize, ctx compiles alone); neither
 * waits for other ranks.
 * Errors: KS_EINVAL (MPI not initialized or already finalized, a thread
 * level below MPI_THREAD_MULTIPLE: the message names the level given),
 * KS_ENOMEM. */
KS_API ks_status ks_ctx_share_mpi(ks_ctx *ctx, MPI_Comm comm);

/* ks_tune over the ranks of comm (call it on every rank, with the same
 * space and options): every rank compiles and prunes the space (share the
 * compiles with ks_ctx_share_mpi), the variants left are spread over the
 * ranks, each measuring its share on one GPU of its node: opts->gpus[r %
 * ngpus] where given, else GPU r % (the GPUs the driver sees), r being the
 * rank's index among the ranks of its node. Rank 0 gathers the results,
 * measures the finalists again on its own GPU, picks the winner and
 * writes the one store; an interrupted job resumes from that store (rank
 * 0 hands out only what it lacks). On rank 0, *out holds the whole sweep;
 * on the others, the variants they measured.
 * Errors: those of ks_tune; KS_EINVAL when the ranks disagree on the sweep
 * (rank 0's message names the first difference; no rank measures
 * anything) or MPI is not initialized with MPI_THREAD_MULTIPLE. With one
 * rank it is ks_tune on that rank's GPU. */
KS_API ks_status ks_tune_mpi(ks_ctx *ctx, const ks_template *t,
                             const ks_tune_space *space,
                             const ks_tune_opts *opts, MPI_Comm comm,
                             ks_tune_result *out);

/* The message of the calling thread's last failed kspec_mpi call: its own
 * (an MPI problem, ranks that disagree), else ks_errmsg(ctx)'s (a failure
 * inside kspec). Valid until the thread's next call into kspec_mpi. */
KS_API const char *ks_errmsg_mpi(const ks_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* KSPEC_MPI_H */
