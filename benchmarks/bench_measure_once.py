"""What measuring a scripted call costs the cost, jaxpr and collectives kinds, with and
without the call for values standing in for the trace (judge/worker/executions.py
``ran_as_traced``): XLA compiles and seconds per measured call, side by side in one
process, the two paths alternating on fresh shapes (every call compiles for real).

``again`` is the path before: the judge's trace compiled (cost, collectives) or run
(jaxpr) besides the call; ``once`` is the path now, where the call ran exactly the
traced program.  The learners are the bank's usual shapes of a right answer: a jitted
matrix chain (cost), a jitted Python loop unrolled over the input (jaxpr; the
unrolled-loop test of tests/integration/test_jaxpr_check.py), a jitted column mean
(collectives).

    .venv/bin/python benchmarks/bench_measure_once.py [ROUNDS]

Measured on this project's busy 2-core machine (load about 11), 4 rounds, medians:

    kind         path   compiles/call  s/call
    cost         again            2.0   0.235
    cost         once             1.0   0.188
    jaxpr        again            4.0  12.847   (a 49-step unrolled loop)
    jaxpr        once             1.0  10.019
    collectives  again            2.0   1.076
    collectives  once             1.0   0.713

A whole ``judge run`` (process isolation, ``JUDGE_MEMO=off``, the commit before and
after, alternating, ``elapsed_s``): chain_matmul einsum_optimal 6.25/4.83 s before,
4.37/4.49 s after; pairwise_sq_dists broadcast_direct 10.79/9.54 s before, 9.62/8.14 s
after; col_mean two_pass 4.64/8.13 s before, 4.34/8.48 s after (small programs on
eight devices: the machine's noise is larger than the compile saved).
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time


def main(rounds: int) -> None:
    import jax
    import jax.numpy as jnp
    from jax._src import compiler

    from judge.checks import CHECK_KINDS, load_kinds
    from judge.worker.measure import MeasureContext, _compile_instrument, _record_executions

    load_kinds()
    executions = _record_executions()
    compiles = [0]
    original = compiler.backend_compile_and_load

    def counting(*args, **kwargs):
        compiles[0] += 1
        return original(*args, **kwargs)

    compiler.backend_compile_and_load = counting

    @jax.jit
    def chain(a, b, c):
        return a @ (b @ c)

    @jax.jit
    def unrolled(x, a):
        ys = [x[0]]
        for t in range(1, x.shape[0]):
            ys.append(a * x[t] + (1 - a) * ys[-1])
        return jnp.stack(ys)

    @jax.jit
    def col_mean(x):
        return jnp.mean(x, axis=0)

    cases = {
        "cost": (chain, lambda n: [jnp.ones((n, 64)), jnp.ones((64, n)), jnp.ones((n, 8))]),
        "jaxpr": (unrolled, lambda n: [jnp.ones(n), jnp.float32(0.5)]),
        "collectives": (col_mean, lambda n: [jnp.ones((n, 16))]),
    }
    again = MeasureContext.ran_as_traced
    size = {"cost": 64, "jaxpr": 48, "collectives": 64}
    print(f"{'kind':<12} {'path':<6} {'compiles/call':>13} {'s/call (median)':>16}")
    for kind, (fn, make) in cases.items():
        measure, bound = _compile_instrument(dataclasses.asdict(CHECK_KINDS[kind].INSTRUMENT))
        seen: dict[str, list[tuple[int, float]]] = {"again": [], "once": []}
        for r in range(rounds):
            for path in ("again", "once") if r % 2 == 0 else ("once", "again"):
                size[kind] += 1  # a fresh shape: nothing cached
                args = make(size[kind])
                jax.block_until_ready(args)
                if path == "again":
                    MeasureContext.ran_as_traced = lambda self, *a: None  # type: ignore[method-assign]
                else:
                    MeasureContext.ran_as_traced = again  # type: ignore[method-assign]
                compiles[0] = 0
                t = time.perf_counter()
                measure(MeasureContext(fn, None, bound, executions), list(args), {}, {})
                seen[path].append((compiles[0], time.perf_counter() - t))
        MeasureContext.ran_as_traced = again  # type: ignore[method-assign]
        for path, runs in seen.items():
            print(
                f"{kind:<12} {path:<6} {statistics.mean(c for c, _ in runs):>13.1f} "
                f"{statistics.median(s for _, s in runs):>16.3f}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
