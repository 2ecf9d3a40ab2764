"""The ``jaxpr`` kind's instrument run in-process, as the worker runs it, and check
entries and measured figures made up for its verdicts (test_jaxpr_check, test_jaxpr_dtypes).
The one place that reaches into the worker's instrument compiler."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from judge.bank import FieldReader
from judge.checks import parse_check
from judge.checks.base import Measured
from judge.checks.jaxpr import JaxprCheck
from judge.worker.measure import MeasureContext, _compile_instrument
from judge.worker.wire import Leaf

# compiled from its source, as the worker does: only what it binds itself is there
measure_program, BOUND = _compile_instrument(dataclasses.asdict(JaxprCheck.INSTRUMENT))


def measure(fn, *args, source_file=None):
    ctx = MeasureContext(fn, source_file, BOUND)
    figures = measure_program(ctx, list(args), {}, {})
    return figures, ctx.kept


SCRIPTS = {"s": [{"x": Leaf(np.zeros(n, np.float32), "jax"), "k": n} for n in (0, 8, 64, 200)]}


def check(**fields):
    data = dict({"id": "program", "kind": "jaxpr", "script": "s"}, **fields)
    return parse_check(FieldReader(data, Path("tasks.yaml"), "t", "checks[0]"), SCRIPTS)


def calls(counts, refs=None, prims=None, lines=None, first_line=None):
    refs = refs or [11] * len(counts)
    out = []
    for i, (args, n, r) in enumerate(zip(SCRIPTS["s"], counts, refs), 1):
        mine = {
            "equations": n,
            "primitives": (prims or (lambda n: {"mul": n}))(n),
            "lines": (lines or (lambda n: {"9": n}))(n),
            "code": {"9": "y = a * x[t] + y"},
            "first_line": first_line or {"mul": 9},
        }
        out.append(
            Measured(
                i,
                args,
                f"x float32[{args['k']}]",
                mine,
                {"equations": r, "primitives": {"scan": 1}},
            )
        )
    return out
