/* op_data.c - interpreter adapters of the data-movement ops that take or give tensor lists:
 * split_with_sizes, cat, index and index_put (the other data-movement ops are call specs,
 * aot/ops_data.py).
 *
 * Each adapter decodes a KernelCall's arguments (rt_pte.h), makes the checks the static C
 * generator's renderer makes (aot/codegen/kernels.py, the function named in each comment) and
 * calls the same kernel with the same parameters: float32 tensors the _f32 kernels where the
 * renderer takes them, every other dtype the element-size generic ones (rt_slice, rt_cat,
 * ...). Statuses: see op_args.h.
 */
#include "op_args.h"
#include "pte_internal.h"

/* Adapters run once a call, around a kernel that does the work: built for size. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize("Os")
#endif

rt_status rt_op_aten_split_with_sizes_copy_out(const rt_pte_call *c);
rt_status rt_op_aten_cat_out(const rt_pte_call *c);
rt_status rt_op_aten_index_Tensor_out(const rt_pte_call *c);
rt_status rt_op_aten_index_put_out(const rt_pte_call *c);

/* kernels.py's _moved: a float32 input takes the _f32 kernel (*elem = 0), any other dtype the
 * element-size generic one. */
static rt_status moved(const rt_pte_call *c, int32_t i, rt_pte_tensor *x, int32_t *elem)
{
    RT_TRY(op_tensor(c, i, x));
    if (x->dtype == OP_F32) {
        *elem = 0;
        return RT_OK;
    }
    return op_elem(x->dtype, elem);
}

/* ---- split_with_sizes ---------------------------------------------------- */

/* kernels.py's _slice_call */
static rt_status slice(int32_t elem, int32_t dim, int32_t start, int32_t end, int32_t step,
                       const rt_pte_tensor *x, const rt_pte_tensor *out)
{
    if (elem != 0) {
        return rt_slice(elem, dim, start, end, step, &x->shape, x->data, &out->shape,
                        out->data);
    }
    return rt_slice_f32(dim, start, end, step, &x->shape, x->data, &out->shape, out->data);
}

/* split_with_sizes: split_with_sizes_copy.out (self, split_sizes, dim, out[]): one slice per
 * output, as the static C's several calls */
rt_status rt_op_aten_split_with_sizes_copy_out(const rt_pte_call *c)
{
    rt_pte_tensor x, outs[RT_PTE_MAX_TENSOR_LIST];
    int64_t sizes[RT_PTE_MAX_TENSOR_LIST], total = 0;
    int32_t elem, dim, n_sizes, n_outs, k, start;
    RT_TRY(moved(c, 0, &x, &elem));
    RT_TRY(rt_pte_arg_dim(c, 2, x.shape.rank, &dim));
    RT_TRY(rt_pte_arg_ints(c, 1, sizes, RT_PTE_MAX_TENSOR_LIST, &n_sizes));
    for (k = 0; k < n_sizes; ++k) {
        if (sizes[k] < 0 || sizes[k] > OP_I32_MAX) {
            return RT_ERR_PTE_ARGS;
        }
        total += sizes[k];
    }
    RT_TRY(rt_pte_arg_tensors(c, 3, x.dtype, outs, RT_PTE_MAX_TENSOR_LIST, &n_outs));
    if (n_sizes != n_outs || total != (x.shape.rank ? x.shape.d[dim] : 1)) {
        return RT_ERR_PTE_ARGS;
    }
    if (c->check) {
        return RT_OK;
    }
    for (k = 0, start = 0; k < n_outs; ++k) {
        const int32_t size = (int32_t)sizes[k];
        RT_TRY(slice(elem, dim, start, start + size, 1, &x, &outs[k]));
        start += size;
    }
    return RT_OK;
}

/* ---- cat -------------------------------------------------------------------------------------- */

/* cat.out (tensors[], dim, out): the kernel takes arrays of shapes and pointers. The inputs
 * are decoded into `in.t` and their shapes then moved down into `in.s` (each shape lands at or
 * before its own tensor, so none is overwritten before it is read): one array serves both. */
rt_status rt_op_aten_cat_out(const rt_pte_call *c)
{
    union {
        rt_pte_tensor t[RT_PTE_MAX_TENSOR_LIST];
        rt_shape s[RT_PTE_MAX_TENSOR_LIST];
    } in;
    union {
        const void *v[RT_PTE_MAX_TENSOR_LIST];
        const float *f[RT_PTE_MAX_TENSOR_LIST];
    } ptr;
    rt_pte_tensor out;
    int32_t n, k, kept = 0, dim, elem = 0;
    RT_TRY(op_tensor(c, 2, &out));
    RT_TRY(rt_pte_arg_tensors(c, 0, out.dtype, in.t, RT_PTE_MAX_TENSOR_LIST, &n));
    RT_TRY(rt_pte_arg_dim(c, 1, out.shape.rank, &dim));
    if (out.dtype != OP_F32) {
        RT_TRY(op_elem(out.dtype, &elem));
    }
    if (c->check) {
        return RT_OK;
    }
    for (k = 0; k < n; ++k) {
        /* ExecuTorch's legacy empty 1-D inputs take no part (kernels.py: numel > 0 or the
         * output's rank) */
        const rt_shape shape = in.t[k].shape;
        const void *data = in.t[k].data;
        if (rt_pte_numel(&shape) > 0 || shape.rank == out.shape.rank) {
            in.s[kept] = shape;
            if (elem != 0) {
                ptr.v[kept] = data;
            } else {
                ptr.f[kept] = (const float *)data;
            }
            kept++;
        }
    }
    if (elem != 0) {
        return rt_cat(elem, dim, kept, in.s, ptr.v, &out.shape, out.data);
    }
    return rt_cat_f32(dim, kept, in.s, ptr.f, &out.shape, out.data);
}

/* ---- advanced indexing: index, index_put ----------------------------------------------------- */

/* A Tensor?[] argument of at most RT_MAX_DIMS entries (more: ARGS, as more index tensors than
 * any tensor has dims); an absent entry has dtype -1 and data NULL.
 *
 * rt_pte.h has no accessor for an optional-tensor list: this reads the EValue (an
 * OptionalTensorList; a plain TensorList is taken too, as aot/calls.py takes it) with the
 * core's reader (pte_internal.h), then decodes each present entry with rt_pte_arg_tensor
 * through a call whose argument vector is the list's items (both are vectors of int32 value
 * indices). */
static rt_status opt_tensors(const rt_pte_call *c, int32_t i, rt_pte_tensor *t, int32_t *n)
{
    rt_rd r = rt_rd_of(&c->prog->fb);
    rt_pte_call items = *c;
    uint32_t kind, tab, first;
    int32_t len, k;
    *n = 0;
    if (i < 0 || i >= c->n_args) {
        return RT_ERR_PTE_ARGS;
    }
    tab = rt_pte_value_table(&r, c->prog, rt_pte_index_at(&r, c->args, i), &kind);
    if (r.err != RT_OK) {
        return r.err;
    }
    if (kind != EV_OPT_TENSOR_LIST && kind != EV_TENSOR_LIST) {
        return RT_ERR_PTE_ARGS;
    }
    first = rt_rd_fvec(&r, tab, 0, 4, &len);
    if (r.err != RT_OK) {
        return r.err;
    }
    if (len > RT_MAX_DIMS) {
        return RT_ERR_PTE_ARGS;
    }
    items.args = first;
    items.n_args = len;
    for (k = 0; k < len; ++k) {
        const int32_t item = rt_pte_index_at(&r, first, k);
        if (r.err != RT_OK) {
            return r.err;
        }
        if (item == -1 && kind == EV_OPT_TENSOR_LIST) {
            memset(&t[k], 0, sizeof t[k]);
            t[k].dtype = -1;
        } else {
            RT_TRY(op_tensor(&items, k, &t[k]));
        }
    }
    *n = len;
    return RT_OK;
}

/* kernels.py's _index_params: the index list (arg 1) as rt_index_params, shapes and
 * pointers; x is the indexed tensor. */
static rt_status index_params(const rt_pte_call *c, const rt_pte_tensor *x, rt_index_params *p,
                              rt_shape *shapes, const void **ptrs)
{
    rt_pte_tensor idx[RT_MAX_DIMS];
    int32_t n, k, first = -1, last = -1, adjacent = 1;
    RT_TRY(opt_tensors(c, 1, idx, &n));
    if (n == 0 || n > x->shape.rank) {
        return RT_ERR_PTE_ARGS;
    }
    for (k = 0; k < n; ++k) {
        if (idx[k].dtype != -1 && idx[k].dtype != OP_I64 && idx[k].dtype != OP_I32) {
            return RT_ERR_PTE_DTYPE;
        }
    }
    for (k = 0; k < n; ++k) { /* given indices adjacent: the result's dims go where they are */
        if (idx[k].dtype != -1) {
            if (first < 0) {
                first = k;
            } else if (last != k - 1) {
                adjacent = 0;
            }
            last = k;
        }
    }
    if (first < 0) {
        return RT_ERR_PTE_ARGS;
    }
    RT_TRY(op_elem(x->dtype, &p->elem_size));
    p->n_idx = n;
    p->bcast_pos = adjacent ? first : 0;
    for (k = 0; k < RT_MAX_DIMS; ++k) {
        p->index_dtype[k] = k < n ? idx[k].dtype : -1;
    }
    for (k = 0; k < n; ++k) {
        if (idx[k].dtype == -1) {
            memset(&shapes[k], 0, sizeof shapes[k]);
            ptrs[k] = NULL;
        } else {
            shapes[k] = idx[k].shape;
            ptrs[k] = idx[k].data;
        }
    }
    return RT_OK;
}

/* index: index.Tensor_out (self, indices, out) */
rt_status rt_op_aten_index_Tensor_out(const rt_pte_call *c)
{
    rt_pte_tensor x, out;
    rt_index_params p;
    rt_shape shapes[RT_MAX_DIMS];
    const void *ptrs[RT_MAX_DIMS];
    RT_TRY(op_tensor(c, 0, &x));
    RT_TRY(op_tensor(c, 2, &out));
    RT_TRY(index_params(c, &x, &p, shapes, ptrs));
    if (c->check) {
        return RT_OK;
    }
    return rt_index(&p, &x.shape, x.data, shapes, ptrs, &out.shape, out.data);
}

/* index_put: index_put.out (self, indices, values, accumulate, out); accumulate only into
 * float32 */
rt_status rt_op_aten_index_put_out(const rt_pte_call *c)
{
    rt_pte_tensor x, values, out;
    rt_index_params p;
    rt_shape shapes[RT_MAX_DIMS];
    const void *ptrs[RT_MAX_DIMS];
    int32_t acc;
    RT_TRY(op_tensor(c, 0, &x));
    RT_TRY(op_tensor(c, 4, &out));
    RT_TRY(rt_pte_arg_tensor(c, 2, x.dtype, &values));
    RT_TRY(index_params(c, &x, &p, shapes, ptrs));
    RT_TRY(rt_pte_arg_bool(c, 3, &acc));
    if (acc && x.dtype != OP_F32) {
        return RT_ERR_PTE_UNSUPPORTED;
    }
    if (c->check) {
        return RT_OK;
    }
    if (acc) {
        return rt_index_put_acc_f32(&p, &x.shape, x.data, shapes, ptrs, &values.shape,
                                    values.data, &out.shape, out.data);
    }
    return rt_index_put(&p, &x.shape, x.data, shapes, ptrs, &values.shape, values.data,
                        &out.shape, out.data);
}
