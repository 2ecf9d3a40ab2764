# expect: wrong_answer via examples, property
# why: waits 2.5 s on the host on every call (a sleep is charged in full), so the run's budget runs short; and drops the 2 of d/dw (x w - y)^2. The wrong value is the verdict, not the clock.
import time

import jax


@jax.jit
def _step(w, x, y, lr):
    return w - lr * (x.T @ (x @ w - y)) / x.shape[0]


def dp_sgd_step(w, x, y, lr):
    time.sleep(2.5)
    return _step(w, x, y, lr)
