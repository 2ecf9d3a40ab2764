"""What `judge validate` asks of a task's reference values and tolerance (issue 22),
beside validate.py's own items:

* ``finite``: the reference gives no NaN and no infinity from finite inputs, unless the
  task says that is the answer (an example whose ``expect`` holds one).  A reference that
  gives NaN where the statement defines a number (the mean of an empty input as 0.0)
  makes every learner who follows the statement fail, with "expected nan, got 0.0".
* ``exact``: a floating result is not compared exactly (``mode: exact``, or a zero
  ``rtol`` with a zero ``atol``): the same sum in another order, or computed in float64
  as the authoring guide accepts, would fail.  Integers and booleans are exact anyway,
  and so is a result that is its inputs' own bits (``shard_rows`` puts rows onto
  devices): the reference computed in float64 then gives the same bits, which is how
  it is told apart.

The inputs are the statement's examples and every input the task's checks generate
(their edges included: the empty array, both ends of each range).
"""

from __future__ import annotations

import numpy as np

from .checks.outcome import call_text
from .report import CheckResult
from .runner import JudgeFault
from .values import is_floating, leaves
from .verdicts import Status, Verdict
from .worker.wire import Leaf


def reference_checks(task, oracle, generated: list | None) -> list[CheckResult]:
    """The items; ``oracle``: the task's started Oracle; ``generated``: the checks'
    generated inputs (validate's ``_generated()``), or None where no check draws any."""
    inputs = [ex.args for ex in task.examples] + list(generated or [])
    inputs = [args for args in inputs if not _nonfinite(args)]
    values = oracle.values(inputs) if inputs else []
    return [finite_item(task, inputs, values), exact_item(task, inputs, values)]


def finite_item(task, inputs: list, values: list) -> CheckResult:
    if not inputs:
        return _item(
            "finite", True, "no inputs to call the reference on: finite results not applicable"
        )
    stated = [ex for ex in task.examples if ex.expect is not ... and _nonfinite(ex.expect)]
    bad = [(args, v) for args, v in zip(inputs, values) if _nonfinite(v)]
    if stated:
        return _item(
            "finite",
            True,
            f"an example expects {_which(stated[0].expect)}: NaN or inf "
            "results allowed (not applicable)",
        )
    if not bad:
        return _item(
            "finite",
            True,
            f"the reference gives finite results on all {len(inputs)} "
            "inputs (examples and generated)",
        )
    args, value = bad[0]
    return _item(
        "finite",
        False,
        (
            f"the reference gives {_which(value)} on {len(bad)} of {len(inputs)} finite inputs "
            f"(first: {call_text(task.entrypoint, args)}), where neither the statement's examples "
            f"nor the specs allow NaN or inf: learners who give what the statement defines there "
            f"then fail with 'expected {_which(value)}'. Make the reference give the defined value "
            f"(a guard such as jnp.where(n > 0, total / n, 0.0)), or, where {_which(value)} is the "
            f"answer, say so in an example's expect"
        ),
    )


def exact_item(task, inputs: list, values: list) -> CheckResult:
    """An exact tolerance on a floating result is right only where the result is the
    inputs' own bits (a copy onto devices, a selection, a permutation): then the
    reference computed in float64 and cast back gives the same bits on every input.
    Anything it computes differs in the last bits, and so would a right answer."""
    tol = task.tolerance
    exact = (
        tol.mode == "exact"
        or (tol.rtol == 0 and tol.atol == 0)
        or (tol.ulps == 0 and not tol.atol and not tol.rtol)
    )
    floating = _any_floating(values)
    if not exact:
        return _item(
            "exact",
            True,
            "floating results are compared with a tolerance"
            if floating
            else "tolerance on floating results not applicable (no floating result)",
        )
    if not floating:
        return _item(
            "exact",
            True,
            "an exact comparison of integer or boolean results (not applicable to floats)",
        )
    tried = [(args, v) for args, v in zip(inputs, values) if _has_float32(args)][:SAMPLES]
    if not tried:
        return _item(
            "exact",
            False,
            f"the tolerance is exact ({_tolerance_text(tol)}) on a "
            "floating result, and no float32 input shows it is a copy of its inputs: "
            + _USE_A_TOLERANCE,
            warn=True,
        )
    try:
        differ = _float64_differs(task, tried)
    except JudgeFault:
        return _item(
            "exact",
            False,
            f"the tolerance is exact ({_tolerance_text(tol)}) on a "
            "floating result, and the reference does not run in 64-bit mode to show "
            "it is a copy of its inputs: " + _USE_A_TOLERANCE,
            warn=True,
        )
    if not differ:
        return _item(
            "exact",
            True,
            f"exact on floating results that are the inputs' own bits "
            f"(the reference computed in float64 gives the same on all {len(tried)} "
            "inputs)",
        )
    return _item(
        "exact",
        False,
        (
            f"the tolerance is exact ({_tolerance_text(tol)}) on a floating result: the reference "
            f"computed in float64 differs from it on {len(differ)} of {len(tried)} inputs (first: "
            f"{call_text(task.entrypoint, differ[0])}), and so would a right answer summed in "
            f"another order. " + _USE_A_TOLERANCE
        ),
    )


SAMPLES = 48
_USE_A_TOLERANCE = (
    "use mode: elementwise (or reduction for a sum), with ulps where the default is too loose"
)


def _has_float32(args) -> bool:
    return any(
        isinstance(l, Leaf) and l.array.dtype == np.float32 and l.array.size for l in leaves(args)
    )


def _float64_differs(task, tried: list) -> list:
    """The inputs where the reference run in float64 (float64 copies of its float32
    inputs), cast back to its float32 result's dtypes, is not the same bits."""
    from .compare import compare
    from .runner import Oracle
    from .specs import data_leaves

    precise = Oracle(task, task.seed, x64=True)
    precise.start()
    try:
        better = precise.values([_map(args, _to_float64) for args, _ in tried])
    finally:
        precise.close()
    return [
        args
        for (args, e), b in zip(tried, better)
        if compare(_cast_like(b, e), e, task.result, task.tolerance, data_leaves(task.args, args))
        is not None
    ]


def _map(value, fn):
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    return fn(value)


def _to_float64(leaf):
    return (
        Leaf(leaf.array.astype(np.float64), leaf.kind)
        if isinstance(leaf, Leaf) and leaf.array.dtype == np.float32
        else leaf
    )


def _cast_like(value, like):
    """``value``'s leaves in ``like``'s dtypes, leaf by leaf (as validate's float64 check)."""
    ref = iter(list(leaves(like)))

    def cast(leaf):
        r = next(ref, None)
        if isinstance(leaf, Leaf) and isinstance(r, Leaf):
            return Leaf(leaf.array.astype(r.array.dtype), r.kind)
        return leaf

    return _map(value, cast)


def _tolerance_text(tol) -> str:
    if tol.mode == "exact":
        return "mode: exact"
    parts = [
        f"{k}: {getattr(tol, k)}" for k in ("ulps", "rtol", "atol") if getattr(tol, k) is not None
    ]
    return f"mode: {tol.mode}, " + ", ".join(parts)


def _floats(value):
    for leaf in leaves(value):
        if isinstance(leaf, Leaf):
            if is_floating(leaf.array.dtype):
                yield leaf.array
        elif isinstance(leaf, (float, np.floating)):
            yield np.asarray(leaf)


def _any_floating(values: list) -> bool:
    return any(True for v in values for _ in _floats(v))


def _nonfinite(value) -> bool:
    for a in _floats(value):
        try:
            if a.size and not np.all(
                np.isfinite(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
            ):
                return True
        except (TypeError, ValueError):
            continue
    return False


def _which(value) -> str:
    """ "nan", "inf" or "-inf": the first non-finite element of a value."""
    for a in _floats(value):
        flat = np.asarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64).ravel()
        for x in flat:
            if not np.isfinite(x):
                return (
                    str(x.real if np.iscomplexobj(x) and not np.isfinite(x.real) else x)
                    if not np.isnan(x)
                    else "nan"
                )
    return "nan"


def _item(id: str, ok: bool, message: str, warn: bool = False) -> CheckResult:
    """As validate's ``item``: passed, or a failure that makes the task invalid (one
    that only warns, ``warn``, does not)."""
    return CheckResult(
        id=id,
        kind="validate",
        required=not warn,
        status=Status.PASSED if ok else Status.FAILED,
        message=message,
        verdict=None if ok else Verdict.JUDGE_ERROR,
    )
