import jax


@jax.jit
def chain_matmul(a, b, c):
    # a: [n, k], b: [k, m], c: [m, p]. Both (a @ b) @ c and a @ (b @ c) are right;
    # one of them can do far less work. The shapes are known while tracing.
    raise NotImplementedError("count the multiply-adds of each order and use the cheaper one")
