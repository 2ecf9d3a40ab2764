import jax

# Step 1: jit ONE update function at module level that takes params, grads and lr as
#         arguments (lr traced, not static) and maps p - lr * g over the whole tree.


def tree_sgd(params, grads, lr):
    # Step 2: call it.  Return a dict of the same (possibly nested) structure as params.
    raise NotImplementedError("return params - lr * grads, leaf by leaf, as a dict of the same shape")
