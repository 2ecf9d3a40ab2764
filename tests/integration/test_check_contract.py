"""The check plug-in contract (judge/checks/base.py): a kind sees the grading only through
GradingView, declares its failure verdict and its teeth, and measures inside the worker
through an instrument shipped as source.  A kind defined here, in the test, proves that
nothing outside a kind's own module is needed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.checks.base import (
    CHECK_KINDS,
    GRADING_VIEW_MEMBERS,
    CheckSpec,
    CheckView,
    GradingView,
    ScriptMeasureCheck,
    check_kind,
    instrument,
)
from judge.report import CheckResult
from judge.runner import Grading, grade
from judge.verdicts import Status, Verdict

from helpers import ROOT, double_it_bank


def measure_length(ctx, args, kwargs, options, shape_of=__import__("numpy").shape):
    """Runs in the worker: the first argument's length, and the function's value kept.
    ``shape_of`` is bound when the worker compiles this, before the learner's file runs."""
    if options.get("refuse"):
        ctx.unmeasurable("this backend gives no such figure")
    if options.get("break"):
        return {}["missing"]  # a bug of the instrument itself
    value = ctx.function(*args, **kwargs)
    ctx.keep(value)
    return {"length": int(shape_of(args[0])[0]), "option": options.get("tag")}


def bind_jax_shape():
    """Runs in the worker, before the learner's file: jax is the worker's alone."""
    import jax.numpy as jnp

    return {"shape": jnp.shape}


def measure_rank(ctx, args, kwargs, options):
    return {"rank": len(ctx.bound["shape"](args[0]))}


@check_kind("test_rank")
class RankCheck(CheckSpec):
    """The first argument's rank, measured with what the instrument's setup bound."""

    failure_verdict = Verdict.INEFFICIENT
    INSTRUMENT = instrument(measure_rank, setup=bind_jax_shape)

    def run(self, grading):
        import numpy as np

        from judge.worker.wire import Leaf

        mine = grading.learner_measure(
            self.kind, {"x": Leaf(np.zeros((2, 3), np.float32), "jax")}, {}, "test"
        )
        if not mine.ok:
            return self.result(Status.ERROR, mine.message, verdict=mine.verdict)
        return self.result(Status.PASSED, "fine", details=mine.measured)


@check_kind("test_length")
class LengthCheck(CheckSpec):
    """At most ``limit`` elements in the scripted input, and the same value as the reference."""

    FIELDS = CheckSpec.FIELDS + ("limit", "options")
    failure_verdict = Verdict.INEFFICIENT
    INSTRUMENT = instrument(measure_length)

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.limit = int(r.number("limit", 3))
        self.options = r.get("options", dict, {})

    def run(self, grading):
        import numpy as np

        from judge.worker.wire import Leaf

        args = {"x": Leaf(np.arange(5, dtype=np.float32), "jax")}
        mine = grading.learner_measure(self.kind, args, self.options, "test")
        if not mine.ok:
            return self.result(Status.ERROR, mine.message, verdict=mine.verdict)
        ref = grading.reference_measure(self.kind, args, self.options)
        details = {
            "mine": mine.measured,
            "reference": ref.measured,
            "kept": float(np.sum(mine.value.array)),
            "reference_kept": float(np.sum(ref.value.array)),
        }
        if mine.measured["length"] > self.limit:
            return self.failed(
                f"length {mine.measured['length']} over {self.limit}", details=details
            )
        return self.result(Status.PASSED, "fine", details=details)


FIELDS = """
    checks:
      - {id: length, kind: test_length, limit: LIMIT, options: OPTIONS}
"""


def task_with(tmp_path: Path, limit: int = 9, options: str = "{tag: hello}"):
    fields = FIELDS.replace("LIMIT", str(limit)).replace("OPTIONS", options)
    return load_bank(double_it_bank(tmp_path, fields)).get("double_it")


def submit(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return path


RIGHT = """
    import jax.numpy as jnp

    def double_it(x):
        return x * 2
"""


def test_an_instrument_measures_learner_and_reference_in_their_workers(tmp_path):
    task = task_with(tmp_path)
    check = grade(task, submit(tmp_path, RIGHT)).checks[0]
    assert check.status == Status.PASSED, check.message
    assert check.details["mine"] == {"length": 5, "option": "hello"}
    assert check.details["reference"] == {"length": 5, "option": "hello"}
    assert check.details["kept"] == check.details["reference_kept"] == 20.0


def test_a_kind_declares_what_its_failure_means(tmp_path):
    report = grade(task_with(tmp_path, limit=3), submit(tmp_path, RIGHT))
    assert report.checks[0].status == Status.FAILED
    assert report.verdict == Verdict.INEFFICIENT
    assert report.checks[0].verdict == Verdict.INEFFICIENT


def test_the_learners_exception_inside_an_instrument_is_theirs(tmp_path):
    report = grade(
        task_with(tmp_path),
        submit(
            tmp_path,
            """
        def double_it(x):
            raise ValueError("nope")
    """,
        ),
    )
    assert report.verdict == Verdict.RUNTIME_ERROR, report.checks[0].message
    assert "nope" in report.checks[0].message


@pytest.mark.parametrize("options", ["{refuse: true}", "{break: true}"])
def test_an_instrument_that_cannot_measure_is_the_judges_fault(tmp_path, options):
    report = grade(task_with(tmp_path, options=options), submit(tmp_path, RIGHT))
    assert report.verdict == Verdict.JUDGE_ERROR, report.checks[0].message
    assert report.checks[0].status == Status.ERROR


def test_instruments_are_compiled_before_the_learners_file_runs(tmp_path):
    # the learner's file replaces numpy.shape at import; the instrument bound its own
    # when the worker compiled it, before the file ran
    task = task_with(tmp_path)
    report = grade(
        task,
        submit(
            tmp_path,
            """
        import numpy
        numpy.shape = lambda a: (1,)

        def double_it(x):
            return x * 2
    """,
        ),
    )
    assert report.checks[0].details["mine"]["length"] == 5


def test_checks_see_only_the_grading_view(tmp_path):
    task = task_with(tmp_path)
    view = CheckView(Grading(task, submit(tmp_path, RIGHT)))
    assert view.seed == task.seed and view.task is task
    with pytest.raises(AttributeError, match="GradingView"):
        view.oracle
    with pytest.raises(AttributeError):
        view.seed = 3


def test_the_runner_has_every_member_of_the_view(tmp_path):
    grading = Grading(task_with(tmp_path), submit(tmp_path, RIGHT))
    missing = [m for m in GRADING_VIEW_MEMBERS if not hasattr(grading, m)]
    assert not missing, f"Grading lacks {missing} of GradingView"
    assert {
        "learner_call",
        "learner_measure",
        "reference_measure",
        "time_left",
    } <= GRADING_VIEW_MEMBERS
    assert GradingView.__doc__


def test_teeth_are_the_kinds_own():
    passed = CheckResult(
        id="x", kind="test_length", required=True, status=Status.PASSED, message=""
    )
    wrong = CheckResult(
        id="x",
        kind="test_length",
        required=True,
        status=Status.FAILED,
        message="",
        verdict=Verdict.WRONG_ANSWER,
    )
    slow = CheckResult(
        id="x",
        kind="test_length",
        required=True,
        status=Status.FAILED,
        message="",
        verdict=Verdict.INEFFICIENT,
    )
    check = LengthCheck.__new__(LengthCheck)
    assert not check.caught(passed) and not check.caught(wrong) and check.caught(slow)
    example = CHECK_KINDS["example"].__new__(CHECK_KINDS["example"])
    assert not example.needs_teeth and CHECK_KINDS["property"].needs_teeth


def test_an_instruments_setup_binds_in_the_worker_before_the_learners_file(tmp_path):
    # the learner's file replaces jax.numpy.shape; setup bound the real one first
    task_with(tmp_path)
    bank = tmp_path / "tasks.yaml"
    bank.write_text(
        bank.read_text().replace(
            "{id: length, kind: test_length, limit: 9, options: {tag: hello}}",
            "{id: rank, kind: test_rank}",
        )
    )
    task = load_bank(tmp_path).get("double_it")
    report = grade(
        task,
        submit(
            tmp_path,
            """
        import jax.numpy as jnp
        jnp.shape = lambda a: (1,)

        def double_it(x):
            return x * 2
    """,
        ),
    )
    assert report.checks[0].status == Status.PASSED, report.checks[0].message
    assert report.checks[0].details["rank"] == 2


def test_loading_every_kind_leaves_jax_out_of_the_judges_process():
    # the judge forks workers and must not import jax: a kind binds jax in its
    # instrument's setup, never in what runs when its module is imported
    code = (
        "import sys; from judge.checks import load_kinds as _load_kinds; _load_kinds(); "
        "from judge.checks import CHECK_KINDS; "
        "print(sorted(CHECK_KINDS), 'jax' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("False"), out.stdout


# ---------------------------------------------------------------- kinds that measure a script


def measure_traced_size(ctx, args, kwargs, options, make_jaxpr=__import__("jax").make_jaxpr):
    """Runs in the worker: the number of top-level equations of the traced call, with
    the call's Python numbers static (``ctx.traceable``)."""
    fn, arrays = ctx.traceable(args, kwargs)
    closed = make_jaxpr(fn)(*arrays)
    ctx.keep(fn(*arrays))
    return {"equations": len(closed.jaxpr.eqns), "arrays": len(arrays)}


@check_kind("test_traced")
class TracedCheck(ScriptMeasureCheck):
    doing = "while the judge traced it"
    usual_cause = "too many operations"
    INSTRUMENT = instrument(measure_traced_size)

    def judge(self, grading, calls):
        sizes = [c.mine["equations"] for c in calls]
        details = {
            "sizes": sizes,
            "reference": [c.reference["equations"] for c in calls],
            "labels": [c.label for c in calls],
            "arrays": [c.mine["arrays"] for c in calls],
        }
        if any(c.mine["equations"] > c.reference["equations"] for c in calls):
            return self.failed(f"{sizes}: {self.cause}", details=details)
        return self.result(Status.PASSED, "fine", details=details)


SCRIPTED_BANK = """
tasks:
  - id: power
    title: x to the n
    step: 1
    dims: {m: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [m], values: [-2, 2]}
      n: {type: int, values: [0, 3]}
    scripts:
      two:
        - {args: {x: {$random: {shape: [4]}}, n: 2}}
        - {args: {x: {$random: {shape: [3]}}, n: 3}}
    checks:
      - {id: traced, kind: test_traced, script: two CAUSE}
"""


def scripted_task(tmp_path: Path, cause: str = ""):
    (tmp_path / "reference").mkdir(exist_ok=True)
    (tmp_path / "tasks" / "power").mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference" / "power.py").write_text(
        "import jax.numpy as jnp\n\ndef power(x, n):\n    out = jnp.ones_like(x)\n"
        "    for _ in range(n):\n        out = out * x\n    return out\n"
    )
    (tmp_path / "tasks.yaml").write_text(
        SCRIPTED_BANK.replace(" CAUSE", f", cause: {cause}" if cause else "")
    )
    return load_bank(tmp_path).get("power")


def test_a_script_is_measured_call_by_call_with_python_numbers_static(tmp_path):
    # `range(n)` needs a concrete n: traceable keeps the call's Python int as it is
    check = grade(
        scripted_task(tmp_path),
        submit(
            tmp_path,
            """
        import jax.numpy as jnp

        def power(x, n):
            return x ** n
    """,
        ),
    ).checks[0]
    assert check.status == Status.PASSED, check.message
    assert check.details["sizes"] == [1, 1] and check.details["reference"] == [
        3,
        4,
    ]  # ones_like, then n multiplications
    assert check.details["arrays"] == [1, 1]
    assert check.details["labels"][0].startswith("x float32[4]")


def test_a_measured_failure_names_the_tasks_cause(tmp_path):
    report = grade(
        scripted_task(tmp_path, cause="a loop of multiplications"),
        submit(
            tmp_path,
            """
        import jax.numpy as jnp

        def power(x, n):
            out = jnp.ones_like(x) + 0.0
            for _ in range(n):
                out = (out * x) + 0.0
            return out
    """,
        ),
    )
    assert report.verdict == Verdict.INEFFICIENT
    assert "a loop of multiplications" in report.checks[0].message


def test_a_measured_value_must_agree_with_the_reference(tmp_path):
    report = grade(
        scripted_task(tmp_path),
        submit(
            tmp_path,
            """
        def power(x, n):
            return x * n
    """,
        ),
    )
    assert report.verdict == Verdict.WRONG_ANSWER, report.checks[0].message
    assert report.checks[0].message.startswith("scripted call 1 of 2")
    assert report.checks[0].counterexample["expected"] != report.checks[0].counterexample["actual"]


def test_a_result_the_instrument_cannot_take_is_a_wrong_answer_not_a_judge_error(tmp_path):
    report = grade(
        scripted_task(tmp_path),
        submit(
            tmp_path,
            """
        def power(x, n):
            return "x to the n"
    """,
        ),
    )
    assert report.verdict == Verdict.WRONG_ANSWER, report.checks[0].message
    assert "returned a str" in report.checks[0].message


def measure_options(ctx, args, kwargs, options):
    ctx.keep(ctx.function(*args, **kwargs))
    return {"seen": options}


@check_kind("test_per_call")
class PerCallCheck(ScriptMeasureCheck):
    INSTRUMENT = instrument(measure_options)

    def options(self, task):
        return {"task": task.id}

    def call_options(self, options, index):
        return dict(options, first=index == 1)

    def judge(self, grading, calls):
        return self.result(
            Status.PASSED,
            "fine",
            details={
                "mine": [c.mine["seen"] for c in calls],
                "reference": [c.reference["seen"] for c in calls],
            },
        )


def test_a_kind_may_give_each_call_of_the_script_its_own_options(tmp_path):
    scripted_task(tmp_path)
    (tmp_path / "tasks.yaml").write_text(
        SCRIPTED_BANK.replace("test_traced", "test_per_call").replace(" CAUSE", "")
    )
    task = load_bank(tmp_path).get("power")
    check = grade(
        task,
        submit(
            tmp_path,
            """
        def power(x, n):
            return x ** n
    """,
        ),
    ).checks[0]
    expected = [{"task": "power", "first": True}, {"task": "power", "first": False}]
    assert check.details["mine"] == check.details["reference"] == expected, check.message


def test_the_same_script_calls_for_learner_and_reference(tmp_path):
    task = scripted_task(tmp_path)
    view = CheckView(Grading(task, submit(tmp_path, RIGHT)))
    first, again = view.script_calls("two"), view.script_calls("two")
    assert [c["n"] for c in first] == [2, 3]
    assert (first[0]["x"].array == again[0]["x"].array).all()


def test_the_reference_runs_first_only_the_scripts_whose_runs_checks_read(tmp_path):
    """A script only measured by an instrument must not run in the reference's worker
    before a retrace script: its shapes would be compiled already, and the reference's
    trace count (the budget) would be lower than a fresh worker's."""
    (tmp_path / "reference").mkdir()
    (tmp_path / "tasks" / "power").mkdir(parents=True)
    (tmp_path / "reference" / "power.py").write_text(
        "import jax\n\n@jax.jit\ndef power(x, n):\n    return x ** n\n"
    )
    bank = SCRIPTED_BANK.replace(" CAUSE", "").replace(
        "    checks:\n",
        "      again:\n        - {args: {x: {$random: {shape: [4]}}, n: 2}}\n"
        "    checks:\n      - {id: retrace, kind: retrace, script: again, budget: reference}\n",
    )
    (tmp_path / "tasks.yaml").write_text(bank)
    task = load_bank(tmp_path).get("power")
    assert [c.scripts_run() for c in task.checks] == [("again",), (), ()]  # host_sync: none
    report = grade(
        task, submit(tmp_path, "import jax\n\n@jax.jit\ndef power(x, n):\n    return x ** n\n")
    )
    retrace = report.checks[0]
    assert retrace.status == Status.PASSED, retrace.message
    assert retrace.details["reference_count"] == 1


def _helper_twice(n):
    return 2 * n


def measure_with_helper(ctx, args, kwargs, options):
    return {"twice": _helper_twice(3)}


def test_an_instrument_ships_its_helpers():
    from judge.worker.measure import MeasureContext, _compile_instrument

    shipped = instrument(measure_with_helper, helpers=(_helper_twice,))
    compiled, _ = _compile_instrument(
        {"name": "h", "function": shipped.function, "source": shipped.source}
    )
    assert compiled(MeasureContext(None), [], {}, {}) == {"twice": 6}
    alone = instrument(measure_with_helper)
    compiled, _ = _compile_instrument(
        {"name": "h", "function": alone.function, "source": alone.source}
    )
    with pytest.raises(NameError):
        compiled(MeasureContext(None), [], {}, {})


def test_a_traced_programs_value_small_compiled_whole_large_op_by_op():
    import jax
    import jax.numpy as jnp

    from judge.checks.base import bind_tracing, run_traced

    def unrolled(x):
        for _ in range(600):
            x = x * 1.001 + 0.5
        return x

    closed = jax.make_jaxpr(unrolled)(jnp.ones(3))
    assert len(closed.jaxpr.eqns) == 1200
    compiled = []
    bound = bind_tracing()

    def counting_jit(fn):
        compiled.append(fn)
        return jax.jit(fn)

    bound["jit"] = counting_jit
    (value,) = run_traced(bound, closed, [jnp.ones(3)])  # two kinds: op by op
    assert jnp.allclose(value, unrolled(jnp.ones(3))) and not compiled
    parallel = jax.make_jaxpr(lambda x: jax.lax.associative_scan(jnp.add, x))(jnp.ones(64))
    (value,) = run_traced(bound, parallel, [jnp.ones(64)])  # few repeats: whole
    assert jnp.allclose(value, jnp.arange(1, 65)) and len(compiled) == 1
    # a scan unrolled 64 times compiles 64 copies however it is run: not run
    unrolled_scan = jax.make_jaxpr(
        lambda x: jax.lax.fori_loop(0, 64, lambda i, y: y * 1.001, x, unroll=True)
    )(jnp.ones(3))
    assert run_traced(bound, unrolled_scan, [jnp.ones(3)]) is None
    assert run_traced(bound, unrolled_scan, [jnp.ones(3)], unrolled_up_to=64) is not None
