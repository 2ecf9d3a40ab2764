# expect: accepted
# why: the gradient written out, 2/n x^T (x w - y): on an Auto mesh XLA still sums the eight partial products with one all-reduce.
import jax


@jax.jit
def dp_sgd_step(w, x, y, lr):
    residual = x @ w - y
    return w - lr * (2.0 / x.shape[0]) * (x.T @ residual)
