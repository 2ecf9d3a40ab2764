"""Keep XLA's record of every compile where the judge watches (judge/compile_log.py).

The worker points XLA's dump at its own folder through ``XLA_FLAGS`` before jax starts;
a learner's ``jax.jit(f, compiler_options={"xla_dump_to": ...})``, or
``.lower(x).compile({"xla_dump_to": ...})``, would send one program's record elsewhere
(or switch it off) and so hide that compile from the judge's count.  Every compile jax
makes goes through ``jax._src.compiler.backend_compile_and_load``: wrapped here, it drops
the learner's dump options and puts the dump settings back to those XLA read from
``XLA_FLAGS``.  A compile made through the backend client straight (no jax in between)
is not seen here; the judge's cross-check still counts what XLA dumps.
"""

from __future__ import annotations

import functools


def _is_dump_option(name) -> bool:
    return "dump" in str(name).lower()


def pin_dumps():
    """Install the wrapper; returns (module, attribute, wrapper) for the integrity check."""
    from jax._src import compiler
    from jax._src.lib import xla_client

    fresh = xla_client.CompileOptions()  # held: its debug_options is a view into it
    pristine = fresh.executable_build_options.debug_options
    fields = [name for name in dir(pristine) if not name.startswith("_") and _is_dump_option(name)]
    settings = {}
    for name in fields:
        try:
            settings[name] = getattr(pristine, name)
        except Exception:  # a field the bindings cannot read back: never set either
            pass
    original = compiler.backend_compile_and_load

    @functools.wraps(original)
    def backend_compile_and_load(backend, module, executable_devices, options, *rest, **kw):
        options.env_option_overrides = [
            (k, v) for k, v in options.env_option_overrides if not _is_dump_option(k)
        ]
        debug = options.executable_build_options.debug_options
        for name, value in settings.items():
            if getattr(debug, name) != value:
                setattr(debug, name, value)
        return original(backend, module, executable_devices, options, *rest, **kw)

    compiler.backend_compile_and_load = backend_compile_and_load
    return compiler, "backend_compile_and_load", backend_compile_and_load
