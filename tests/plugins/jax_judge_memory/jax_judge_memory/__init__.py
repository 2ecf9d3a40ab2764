"""A course's plug-ins for jax-judge: the ``memory`` check kind (memory.py) and the
``markdown`` report format (markdown.py)."""
