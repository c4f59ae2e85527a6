/* rt_backend.h - delegate backends: the init/execute interface a backend implements.
 *
 * A delegate is a part of a model that a backend runs from its own compiled blob (the
 * "processed bytes" of the .pte's BackendDelegate). A backend that runs on the device from
 * runtime_c defines one `const rt_backend` with its id (the backend's name, as the .pte
 * stores it) and two functions:
 *
 *   init     called once per delegate by <model>_init(): check the blob and the compile
 *            specs, so that execute can trust them. No allocation: a backend keeps no state
 *            outside the blob (which is static const data, in flash).
 *   execute  called by <model>_run() in sequence with the model's other calls: read the
 *            inputs, write the outputs. Inputs and outputs are planned in the model's arena
 *            like any tensor (constants stay in flash); an output overlaps no input (unless
 *            the backend's Python side lists that input in inplace_inputs).
 *
 * Backends are registered at build time: the generated model lists the rt_backend objects it
 * uses in a table, and <model>_init() resolves each delegate's backend id in that table with
 * rt_delegate_init(). Linking a different rt_backend with the same id swaps the
 * implementation without regenerating the model.
 *
 * Backends that generate their C at compile time (aot.backend.c_hook, compiled kind) need none
 * of this: their code is a static function inside the model's .c.
 */
#ifndef RT_BACKEND_H
#define RT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "rt_types.h"

/* One tensor a delegate reads or writes. Inputs must not be written through `data`. */
typedef struct rt_tensor {
    const rt_shape *shape;
    void *data;
    int32_t dtype; /* an rt_dtype */
} rt_tensor;

/* A compile spec as the .pte stores it: a key and a byte string. */
typedef struct rt_compile_spec {
    const char *key;
    const uint8_t *value;
    uint32_t size;
} rt_compile_spec;

/* One delegate of a model: everything the .pte's BackendDelegate holds, and its arity. */
typedef struct rt_delegate {
    const char *backend_id;
    const uint8_t *processed;
    uint32_t processed_size;
    const rt_compile_spec *specs;
    int32_t n_specs;
    int32_t n_inputs;
    int32_t n_outputs;
} rt_delegate;

typedef struct rt_backend {
    const char *id;
    rt_status (*init)(const rt_delegate *delegate);
    rt_status (*execute)(const rt_delegate *delegate, const rt_tensor *inputs,
                         const rt_tensor *outputs);
} rt_backend;

/* 1 if the NUL-terminated strings are equal (boards have no strcmp). */
static inline int rt_str_equal(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* The backend in `table` (of `count`) whose id is `id`; NULL if none. */
static inline const rt_backend *rt_backend_find(const rt_backend *const *table, int32_t count,
                                                const char *id)
{
    int32_t i;
    if (id == NULL) {
        return NULL;
    }
    for (i = 0; i < count; ++i) {
        if (table[i] != NULL && table[i]->id != NULL && rt_str_equal(table[i]->id, id)) {
            return table[i];
        }
    }
    return NULL;
}

/* Resolve the delegate's backend in the model's table, run its init, and store the backend
 * in *backend for execute. RT_ERR_PARAM if no backend in the table has the delegate's id. */
static inline rt_status rt_delegate_init(const rt_backend *const *table, int32_t count,
                                         const rt_delegate *delegate,
                                         const rt_backend **backend)
{
    const rt_backend *found;
    rt_status s;
    if (table == NULL || delegate == NULL || backend == NULL) {
        return RT_ERR_NULL;
    }
    *backend = NULL;
    found = rt_backend_find(table, count, delegate->backend_id);
    if (found == NULL || found->init == NULL || found->execute == NULL) {
        return RT_ERR_PARAM;
    }
    s = found->init(delegate);
    if (s == RT_OK) {
        *backend = found;
    }
    return s;
}

/* Run a delegate whose backend rt_delegate_init resolved. */
static inline rt_status rt_delegate_execute(const rt_backend *backend, const rt_delegate *delegate,
                                            const rt_tensor *inputs, const rt_tensor *outputs)
{
    if (backend == NULL) {
        return RT_ERR_NULL; /* <model>_init was not called, or failed */
    }
    return backend->execute(delegate, inputs, outputs);
}

/* ---- backends in runtime_c/src/backend/ ---- */

/* "DemoBackend" (src/backend/demo.c): a tiny elementwise program (sin, add, mul) interpreted
 * element by element; float32 tensors of one shape. The blob format is in demo.c. */
extern const rt_backend rt_backend_demo;
rt_status rt_demo_init(const rt_delegate *delegate);
rt_status rt_demo_execute(const rt_delegate *delegate, const rt_tensor *inputs,
                          const rt_tensor *outputs);

#endif /* RT_BACKEND_H */
