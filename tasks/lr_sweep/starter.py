import jax
import jax.numpy as jnp


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


# Step 1: jit ONE function, built once here, that runs `steps` gradient-descent steps
#         from w0 and returns the final MSE.  Pass the learning rate in as an argument;
#         do not build a new function (make_step(lr), a lambda, a partial) per rate.


def lr_sweep(w0, x, y, lrs, steps):
    # Step 2: call it once per learning rate and return a float32 array of the final
    # losses, one per rate (an empty float32 array when lrs is empty).
    raise NotImplementedError("final MSE after `steps` steps of gradient descent, per rate")
