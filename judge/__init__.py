"""jax-judge: grades small JAX functions for correctness and for retracing."""

__version__ = "0.1.0"
