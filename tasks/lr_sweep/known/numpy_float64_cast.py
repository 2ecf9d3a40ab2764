# expect: inefficient via host_sync
# dodge: host_compute
# why: plain NumPy gradient descent in float64, cast to float32 at the end: right in
# another precision, but every input is pulled back to the host (np.asarray) and the
# whole sweep runs there; the default host-sync count names the pulls.
import numpy as np


def lr_sweep(w0, x, y, lrs, steps):
    X, Y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    out = []
    for lr in lrs:
        w = np.asarray(w0, np.float64)
        for _ in range(steps):
            w = w - lr * 2.0 * X.T @ (X @ w - Y) / len(Y)
        out.append(np.mean((X @ w - Y) ** 2))
    return np.asarray(out, dtype=np.float32)
