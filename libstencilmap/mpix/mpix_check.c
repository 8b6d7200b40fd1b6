/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The arguments of MPIX_Cart_stencil_comm checked before anything
 * collective happens, so that every process, given the same arguments,
 * returns the same error class and none aborts. */
#include <stdlib.h>
#include <string.h>

#include "mpix_internal.h"

static int offset_is_zero(const int *v, int ndims)
{
    for (int i = 0; i < ndims; i++)
        if (v[i])
            return 0;
    return 1;
}

static int check_offsets(const smx_request *rq)
{
    if (!rq->offsets)
        return rq->k == 0 ? MPI_SUCCESS : MPI_ERR_ARG;
    if (rq->k < 1 || rq->k > SMP_MAX_OFFSETS)
        return MPI_ERR_ARG;
    for (int j = 0; j < rq->k; j++) {
        const int *v = rq->offsets + (size_t)j * (size_t)rq->ndims;
        for (int i = 0; i < rq->ndims; i++)
            if (v[i] < -SMP_MAX_OFFSET_ABS || v[i] > SMP_MAX_OFFSET_ABS)
                return MPI_ERR_ARG;
        if (offset_is_zero(v, rq->ndims))
            return MPI_ERR_ARG;
        for (int p = 0; p < j; p++)
            if (!memcmp(rq->offsets + (size_t)p * (size_t)rq->ndims, v,
                        sizeof(int) * (size_t)rq->ndims))
                return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int smx_check(const smx_request *rq, int size)
{
    if (rq->ndims < 1 || rq->ndims > SMP_MAX_DIMS)
        return MPI_ERR_DIMS;
    if (!rq->dims || !rq->periods)
        return MPI_ERR_ARG;
    int64_t product = 1;
    for (int i = 0; i < rq->ndims; i++) {
        if (rq->dims[i] < 1)
            return MPI_ERR_DIMS;
        product *= rq->dims[i]; /* at most 8 factors below 2^31 each, checked below */
        if (product > SMP_MAX_RANKS)
            return MPI_ERR_DIMS;
    }
    if (product != size)
        return MPI_ERR_DIMS;
    return check_offsets(rq);
}
