# expect: wrong_answer via examples, property
# why: drops the 2 of d/dw (x w - y)^2: half the step.
import jax


@jax.jit
def dp_sgd_step(w, x, y, lr):
    return w - lr * (x.T @ (x @ w - y)) / x.shape[0]
