"""The check plug-in contract: what a check kind declares about itself, and the one view
of a grading it may use.

A check kind is one module: a module of this package (found by a scan of the package,
nothing to list) or of a course's own package, named under the entry point group
``jax_judge.checks`` (see ``discovery.py``).  Its class, registered with
``@check_kind(name)``, declares, and nothing outside the module needs to know more:

* ``FIELDS``: the ``tasks.yaml`` fields it reads (a misspelt one gets a did-you-mean);
* ``failure_verdict``: what its failure means, ``wrong_answer`` (a value check) or
  ``inefficient`` (a performance check);
* ``phase``: when it runs, a ``Phase`` (each member says what it means);
* how ``judge validate`` proves its teeth: ``needs_teeth`` (some known submission must
  fail it) and ``caught(result)`` (did it catch that submission for the reason it
  exists?);
* ``DODGES``: the dodge classes (``labels.DODGE_CLASSES``) a learner could use to read
  well on its measurement; ``judge validate`` requires, bank-wide, a known submission of
  each that a check of the kind rejects;
* ``INSTRUMENT``: where it measures inside the worker, a self-contained function the
  worker runs beside the learner's code (see ``instrument``);
* ``prepare`` (and its cache key, ``prepare_key``) and ``run``, which see the grading
  only through ``GradingView``;
* ``warm_up()``: what must be made once in the main thread before gradings run in
  threads (a batch, a service);
* ``draws_inputs``: its learner calls are on generated inputs, which other kinds (the
  scripted checks) weigh too; it finds them with ``learner_calls(check.calls_label)``;
* how it draws itself: ``html(result)`` in a grading's HTML page, ``class_key(check)``
  and ``CLASS_SECTION`` where the class report draws each distinct failure once.

``check_kind`` checks all of this when the class registers, the way pluggy checks a
hook implementation: a kind that gets it wrong fails when it loads, with its name and
what to fix (``PluginError``), not when a task first runs it.
"""

from __future__ import annotations

import builtins
import enum
import functools
import inspect
import symtable
import textwrap
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar, cast

from ..plugins import PluginError as PluginError  # re-exported by judge.checks
from ..report import CheckResult
from ..verdicts import Status, Verdict

if TYPE_CHECKING:  # the judge's own types, for readers and mypy only
    from ..bank import FieldReader as FieldReader  # for judge.checks.scripted (bank imports it)
    from ..bank import Task
    from ..session import CallOutcome, ScriptRun

CHECK_KINDS: dict[str, type["CheckSpec"]] = {}


class Phase(enum.IntEnum):
    """When a check runs in a grading: checks run by phase (and are reported so), in
    the order of ``tasks.yaml`` within one."""

    FRESH = 0
    """First, before anything fills the learner's worker: what it reads (traces,
    compiles) is what a fresh process does (the retrace check)."""

    CALLS = 1
    """After the fresh-worker checks: checks that make a few calls or a script's worth
    (examples, the measuring kinds)."""

    GENERATED = 2
    """The checks that draw many generated inputs and stretch to the run's budget
    (property, gradient, sharding): after the few-call checks, whose time they leave."""

    LAST = 9
    """Makes no call of its own and reads the other checks' calls: after all of them."""


Kind = TypeVar("Kind", bound="type[CheckSpec]")


def check_kind(name: str) -> Callable[[Kind], Kind]:
    """Register the decorated class as the check kind ``name`` (``kind: name`` in
    tasks.yaml), after checking that it keeps the contract (``kind_problems``)."""

    def register(cls: Kind) -> Kind:
        register_kind(name, cls)
        return cls

    return register


def register_kind(name: str, cls: type[CheckSpec], origin: str = "") -> type[CheckSpec]:
    """``cls`` as the kind ``name``; ``origin`` says where it came from (an entry point)
    for the error a kind that breaks the contract gets."""
    where = (
        f"check kind '{name}' ({cls.__module__}.{cls.__qualname__}"
        + (f", from {origin}" if origin else "")
        + ")"
    )
    problems = kind_problems(name, cls)
    if problems:
        raise PluginError(
            f"{where} does not keep the check plug-in contract "
            f"(judge/checks/base.py): " + "; ".join(problems)
        )
    known = CHECK_KINDS.get(name)
    if (
        known is not None
        and known is not cls
        and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__)
    ):
        raise PluginError(
            f"{where}: the kind '{name}' is already registered by "
            f"{known.__module__}.{known.__qualname__}; give one of them "
            f"another name"
        )
    cls.kind = name
    cls.phase = Phase(cls.phase)
    if cls.INSTRUMENT is not None and "INSTRUMENT" in vars(cls):
        cls.INSTRUMENT = replace(cls.INSTRUMENT, name=name)
    CHECK_KINDS[name] = cls
    return cls


def kind_problems(name: str, cls: Any) -> list[str]:
    """What ``cls`` gets wrong of the contract, in words (empty: nothing)."""
    if not isinstance(cls, type) or not issubclass(cls, CheckSpec):
        return ["it is not a subclass of judge.checks.base.CheckSpec"]
    problems = []
    if not isinstance(name, str) or not name.isidentifier():
        problems.append(f"its name {name!r} is not a word (letters, digits, _)")
    fields = cls.FIELDS
    if not isinstance(fields, tuple) or not all(isinstance(f, str) for f in fields):
        problems.append("FIELDS must be a tuple of field names")
    else:
        missing = [f for f in CheckSpec.FIELDS if f not in fields]
        if missing:
            problems.append(
                f"FIELDS lacks the fields every check has: {', '.join(missing)} "
                f"(write CheckSpec.FIELDS + (...))"
            )
    if cls.failure_verdict not in (Verdict.WRONG_ANSWER, Verdict.INEFFICIENT):
        problems.append(
            f"failure_verdict is {cls.failure_verdict!r}: a check's failure is "
            f"Verdict.WRONG_ANSWER (a value check) or Verdict.INEFFICIENT "
            f"(a performance check)"
        )
    try:
        Phase(cls.phase)
    except ValueError:
        problems.append(
            f"phase {cls.phase!r} is not a Phase ("
            + ", ".join(f"{p.name} = {p.value}" for p in Phase)
            + ")"
        )
    if cls.run is CheckSpec.run:
        problems.append("it has no run(grading) method")
    if issubclass(cls, ScriptMeasureCheck) and cls.judge is ScriptMeasureCheck.judge:
        problems.append("a kind that measures a script needs a judge(grading, calls) method")
    if cls.INSTRUMENT is not None:
        if not isinstance(cls.INSTRUMENT, Instrument):
            problems.append("INSTRUMENT must be made with instrument(function)")
        else:
            problems += [f"its instrument {p}" for p in instrument_problems(cls.INSTRUMENT)]
    from ..labels import DODGE_CLASSES

    unknown = [d for d in cls.DODGES if d not in DODGE_CLASSES]
    if unknown:
        problems.append(
            f"DODGES names unknown dodge classes: {', '.join(unknown)} "
            f"(known: {', '.join(DODGE_CLASSES)})"
        )
    for hook in ("html", "class_key", "warm_up"):
        if not callable(getattr(cls, hook, None)):
            problems.append(f"{hook} must be a method")
    return problems


def instrument_problems(shipped: "Instrument") -> list[str]:
    """Why an instrument's source would not run alone in the worker: it does not compile,
    does not define its function (or setup), or reads a global name it does not define
    (a helper not shipped, a module imported at the kind's top)."""
    try:  # symtable: the names each function reads, without compiling (a few ms for all)
        top = symtable.symtable(shipped.source, f"<instrument {shipped.function}>", "exec")
    except SyntaxError as exc:
        return [f"source does not compile: {exc}"]
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    problems = [
        f"defines no function '{f}'"
        for f in (shipped.function, shipped.setup)
        if f and f not in defined
    ]
    needed: set[str] = set()

    def globals_read(table: symtable.SymbolTable) -> None:
        needed.update(
            s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()
        )
        for child in table.get_children():
            globals_read(child)

    for child in top.get_children():  # the functions' bodies, not the module's
        globals_read(child)
    outside = sorted(n for n in needed - defined if not hasattr(builtins, n))
    if outside:
        problems.append(
            f"is not self-contained: it reads {', '.join(outside)}, which it "
            f"neither defines nor imports inside its body (import inside the "
            f"function, bind it as a default argument or in setup, or ship the "
            f"helper with instrument(..., helpers=(...)))"
        )
    return problems


class ResultAfterCalls:
    """What ``run`` returns when its verdict waits for the reference's answers: the
    grading calls ``finish()`` for the CheckResult once every check has made its own
    calls, so the learner's calls of all checks come first."""

    def __init__(self, finish: Callable[[], CheckResult]) -> None:
        self.finish = finish


# ---------------------------------------------------------------- worker-side halves


@dataclass(frozen=True)
class Instrument:
    """The worker-side half of a check kind.

    ``function`` is defined in the kind's own module but runs inside the worker: the
    judge sends its source when the submission is loaded, and the worker compiles it
    before it imports the learner's file, so what the function binds as default
    arguments (``shape=__import__("numpy").shape``) or in its ``setup`` is the real
    one, whatever the learner's code replaces later.  The worker never imports the judge, so the function
    must be self-contained: its imports and helpers inside its body (or bound as
    defaults), its only inputs its arguments.  It is called as ``function(ctx, args, kwargs, options)``
    with the call's arguments as the learner's function receives them and the check's
    ``options`` (JSON), and returns a JSON-able dict: the measurement.  ``ctx`` offers
    ``ctx.function`` (the learner's, or in the reference's worker the reference's,
    entrypoint), ``ctx.keep(value)`` (send this value back too, encoded like a call's
    result: the judge then compares it), ``ctx.unmeasurable(why)`` (the figure
    cannot be had here: a judge error, never the learner's fault), ``ctx.wrong(why)``
    (what the learner's function gave cannot be measured: their wrong answer),
    ``ctx.traceable(args, kwargs)`` (``fn, arrays``: the call as a function of its array
    leaves, Python numbers static, its result checked, for jax's transformations),
    ``ctx.source_file`` (the file the entrypoint came from, to name its lines) and
    ``ctx.bound`` (what ``setup`` returned).  An exception raised from the learner's own
    code is the learner's runtime error; any other is the judge's.

    Default arguments are evaluated where the function is defined too, in the judge's
    process, which never imports jax.  What the instrument needs of jax (or of anything
    the judge does not import) it binds in ``setup``: a second self-contained function,
    shipped with it and called once in the worker when the instrument is compiled,
    before the learner's file runs; its return value is ``ctx.bound``.
    """

    name: str
    function: str
    source: str
    setup: str = ""


def instrument(
    function: Callable[..., Any],
    setup: Callable[..., Any] | None = None,
    helpers: tuple[Callable[..., Any], ...] = (),
) -> "Instrument":
    """Declare ``function`` (a module-level function of the kind's module) as the kind's
    worker-side half: ``INSTRUMENT = instrument(measure_it)`` in the class, or
    ``instrument(measure_it, setup=bind_jax)``; the kind's name is filled in when it
    registers.  ``helpers`` are module-level functions it calls (as self-contained as
    it is), shipped and compiled beside it."""
    sources = [
        textwrap.dedent(inspect.getsource(f))
        for f in (*([setup] if setup is not None else []), *helpers, function)
    ]
    return Instrument(
        "", function.__name__, "\n\n".join(sources), setup.__name__ if setup is not None else ""
    )


def bind_tracing():  # type: ignore[no-untyped-def]  # shipped: see Instrument
    """An instrument's setup (worker side, before the learner's file): jax's functions
    for tracing, differentiating, compiling and running what was traced, and where to
    read the learner's lines, whatever the learner's code replaces later."""
    import linecache
    import os

    import jax
    import jax.extend.core

    return {
        "make_jaxpr": jax.make_jaxpr,
        "jit": jax.jit,
        "vjp": jax.vjp,
        "disable_jit": jax.disable_jit,
        "device_put": jax.device_put,
        "block_until_ready": jax.block_until_ready,
        "ones_like": jax.numpy.ones_like,
        "issubdtype": jax.numpy.issubdtype,
        "inexact": jax.numpy.inexact,
        "jaxprs_in_params": jax.extend.core.jaxprs_in_params,
        "jaxpr_as_fun": jax.extend.core.jaxpr_as_fun,
        "Literal": jax.extend.core.Literal,
        "tree_structure": jax.tree_util.tree_structure,
        "getline": linecache.getline,
        "realpath": os.path.realpath,
    }


def run_traced(bound, closed, arrays, unrolled_up_to=16):  # type: ignore[no-untyped-def]  # shipped
    """Worker side (an instrument's helper; ``bound`` is ``bind_tracing``'s): the value
    of a traced program (a closed jaxpr) at ``arrays``, so that what an instrument
    measured is what computes the answer; None when it cannot be had cheaply.

    Compiling a program costs about its number of equations; running it op by op
    costs one small compile per distinct operation (primitive, parameters, input
    types) and a dispatch per equation.  An unrolled Python loop is hundreds of
    equations of a dozen kinds: op by op.  A parallel scan or an ordinary program has
    few repeats: compiled whole, as jit would.  A scan unrolled more than
    ``unrolled_up_to`` times compiles its copies either way: not run (its size is what
    the instrument reports; the value checks weigh its values)."""
    jaxprs_in_params = bound["jaxprs_in_params"]
    distinct: set = set()  # type: ignore[type-arg]  # shipped: names no typing

    def walk(jaxpr, depth=0):  # type: ignore[no-untyped-def]  # shipped
        total = 0
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            unroll = eqn.params.get("unroll", 1) if name == "scan" else 1
            if unroll is True or (
                not isinstance(unroll, bool) and isinstance(unroll, int) and unroll > unrolled_up_to
            ):
                return None
            subs = list(jaxprs_in_params(eqn.params))
            if name == "jit" and depth < 20:  # run op by op inside under disable_jit
                inner = walk(subs[0], depth + 1) if subs else 0  # type: ignore[no-untyped-call]
                if inner is None:
                    return None
                total += inner
                continue
            for sub in subs:  # compiled as one operation either way
                if walk(sub, depth + 1) is None:  # type: ignore[no-untyped-call]
                    return None
            total += 1
            distinct.add(
                (
                    name,
                    tuple(str(getattr(v, "aval", "")) for v in eqn.invars),
                    tuple(
                        sorted(
                            (k, str(v))
                            for k, v in eqn.params.items()
                            if not hasattr(v, "eqns") and not hasattr(v, "jaxpr")
                        )
                    ),
                )
            )
        return total

    equations = walk(closed.jaxpr)  # type: ignore[no-untyped-call]
    if equations is None:
        return None
    program = bound["jaxpr_as_fun"](closed)
    if 4 * len(distinct) >= equations:
        return bound["jit"](program)(*arrays)
    with bound["disable_jit"]():
        return program(*arrays)


# ---------------------------------------------------------------- the grading, as checks see it


class GradingView(Protocol):
    """Everything a check may use of the grading that runs it.  The runner hands each
    check a view that has these members and no others, so a kind that reaches for
    anything else fails loudly in its own tests.  ``judge validate`` hands ``prepare``
    the same view, of a grading of the reference that makes no call."""

    task: Task
    seed: int
    n_examples: int | None  # --examples, overriding the check's own count

    def learner_call(self, args: dict[str, Any], label: str) -> CallOutcome:
        """Call the learner's function (never raises)."""

    def learner_script(self, name: str) -> ScriptRun:
        """The learner's run of a named script, made once however many checks read it."""

    def reference_script(self, name: str) -> ScriptRun:
        """The reference's run of the same script, in its own fresh worker."""

    def learner_measure(
        self, kind: str, args: dict[str, Any], options: dict[str, Any], label: str
    ) -> CallOutcome:
        """Run the kind's instrument on the learner's function at ``args`` (the
        outcome's ``measured`` holds the instrument's dict)."""

    def reference_measure(
        self, kind: str, args: dict[str, Any], options: dict[str, Any]
    ) -> CallOutcome:
        """The same measurement of the reference (memoised; raises JudgeFault when the
        reference cannot be measured)."""

    def reference_measure_soon(
        self, kind: str, args: dict[str, Any], options: dict[str, Any]
    ) -> Future[CallOutcome]:
        """``reference_measure`` in the background, while the learner's worker works; its
        ``result()`` raises JudgeFault when the reference cannot be measured."""

    def script_calls(self, name: str) -> list[dict[str, Any]]:
        """The arguments of a named script's calls, seeded: the same values for the
        learner and the reference (fresh arrays in the worker on every call)."""

    def learner_calls(self, label: str) -> list[tuple[dict[str, Any], CallOutcome]]:
        """Every ``learner_call`` made so far with that label, as ``(args, outcome)`` in
        order (a kind that ``draws_inputs`` labels its calls with its ``calls_label``:
        the calls on generated inputs that the scripted checks also weigh)."""

    def reference_outcomes(self, calls: list[dict[str, Any]]) -> list[CallOutcome]:
        """The reference's outcome for each input (its value, and the traces and syncs
        of the first time the reference was called with it); equal inputs share one
        outcome object.  Raises JudgeFault when the reference fails."""

    def expected_soon(self, args: dict[str, Any]) -> Future[Any]:
        """The reference's value at ``args``, computed while the learner's runs."""

    def expected_all(self, calls: list[dict[str, Any]]) -> list[Any]:
        """``expected_soon`` for many inputs, in batches; each item has ``result()``."""

    def prepared(self, check_id: str) -> Any:
        """What that check's ``prepare`` returned (waiting for it), or None."""

    def time_left(self) -> float:
        """Seconds the running check may still spend: what is left of the grading's
        time limit, less what the checks after it will need (their ``planned_calls``)."""


GRADING_VIEW_MEMBERS = frozenset(
    [name for name in vars(GradingView) if not name.startswith("_")]
    + list(GradingView.__annotations__)
)


class CheckView:
    """A grading as a check sees it: the members of ``GradingView`` and nothing else."""

    __slots__ = ("_grading",)

    def __init__(self, grading: Any) -> None:
        object.__setattr__(self, "_grading", grading)

    def __getattr__(self, name: str) -> Any:
        if name not in GRADING_VIEW_MEMBERS:
            raise AttributeError(
                f"a check may use only the GradingView protocol "
                f"(judge/checks/base.py), and {name!r} is not in it"
            )
        return getattr(self._grading, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a check cannot change the grading")


# ---------------------------------------------------------------- the kind's class


class CheckSpec:
    """One check of a task, parsed from its ``tasks.yaml`` entry."""

    kind = "?"
    phase: Phase = Phase.CALLS
    FIELDS: tuple[str, ...] = ("id", "kind", "required", "points", "doc")
    failure_verdict: Verdict = Verdict.WRONG_ANSWER
    INSTRUMENT: Instrument | None = None
    DODGES: tuple[str, ...] = ()
    # a required check that no known submission fails has no teeth; the statement's own
    # examples are there to be agreed with, not to catch anyone
    needs_teeth = True
    # its learner calls are on generated inputs (the scripted checks weigh them too)
    draws_inputs = False
    # the heading of the class report's section of this kind's drawings ("" : none)
    CLASS_SECTION = ""

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        self.id = r.get("id", str, self.kind)
        self.required = r.get("required", bool, True)
        self.points = float(r.number("points", self.default_points(), low=0))
        self.doc = r.get("doc", str, "")

    @property
    def performance(self) -> bool:
        return self.failure_verdict == Verdict.INEFFICIENT

    def default_points(self) -> float:
        """A check's weight in a score: values first (2), performance after (1)."""
        return 1.0 if self.performance else 2.0

    def scripts_run(self) -> tuple[str, ...]:
        """The scripts whose runs this check reads (``learner_script``,
        ``reference_script``): the reference runs them first thing in its worker, as the
        learner's run before anything else.  A kind that measures a script's calls with
        its instrument runs none."""
        return ()

    def planned_calls(self, grading: GradingView) -> int:
        """About how many requests this check makes of the learner's worker: a check that
        stretches to the run's budget (the property check) leaves time for that many
        calls of the checks after it."""
        return 1

    def pool_size(self) -> int | None:
        """How many distinct shapes this check draws inputs from (None: it draws none);
        `judge validate` checks that a pool that large reaches every declared edge."""
        return None

    def caught(self, result: CheckResult) -> bool:
        """Did this check catch a known submission for the reason it exists?  A value
        check also catches a call that crashes; a performance check must find the
        inefficiency itself (a wrong value in its script is the value checks' business)."""
        if self.performance:
            return result.status == Status.FAILED and result.verdict == self.failure_verdict
        return result.status.bad

    @property
    def calls_label(self) -> str:
        """The label of this check's ``learner_call``s (``learner_calls(label)``)."""
        return self.kind

    def prepare(self, grading: GradingView) -> Any:
        """Work that needs no worker, done in a thread while the workers start; its
        result is ``grading.prepared(self.id)``.  None: nothing to prepare."""
        return None

    def prepare_key(self, grading: GradingView) -> tuple[Any, ...]:
        """What ``prepare``'s result depends on: gradings that share a reference worker
        (a batch, ``judge validate``) prepare once per key."""
        return ("prepare", self.id, grading.seed, grading.n_examples)

    @classmethod
    def warm_up(cls) -> None:
        """Called once, in the main thread, before gradings run in several threads (a
        batch, a service, ``judge validate``): what the kind must not first make in two
        threads at once."""

    @classmethod
    def html(cls, result: CheckResult) -> str:
        """What a grading's HTML page shows of this check's result besides its message
        (a figure; self-contained SVG, every string escaped), or "" for nothing."""
        return ""

    @classmethod
    def class_key(cls, result: CheckResult) -> tuple[Any, ...] | None:
        """Where the class report draws each distinct failure of this kind once (under
        ``CLASS_SECTION``, with ``html(result)``): the key two results of one check look
        the same by, or None when this one is not drawn there."""
        return None

    def generated_inputs(self, grading: GradingView, prepared: Any) -> list[Any] | None:
        """Every input this check generates, given what ``prepare`` returned (None: it
        generates none); `judge validate` checks that they reach each declared edge."""
        return None

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        """The learner's calls, then the result; or, where the result needs reference
        values still being computed, ``ResultAfterCalls(finish)``: the grading calls ``finish()``
        once every check has made its learner calls, so the learner's worker never waits
        idle for the reference's."""
        raise NotImplementedError

    def result(self, status: Status | str, message: str, **kw: Any) -> CheckResult:
        return CheckResult(
            id=self.id,
            kind=self.kind,
            required=self.required,
            status=cast(Status, status),  # a word becomes its Status in CheckResult
            message=message,
            **kw,
        )

    def failed(self, message: str, **kw: Any) -> CheckResult:
        """This check's failure, with the verdict the kind declares."""
        return self.result(Status.FAILED, message, verdict=self.failure_verdict, **kw)


# ---------------------------------------------------------------- kinds that measure a script


@dataclass
class Measured:
    """One call of a script, measured by the kind's instrument in both workers."""

    index: int  # 1-based, in the script
    args: dict[str, Any]
    label: str  # the call's arguments in a few words ("x float32[8], ...")
    mine: dict[str, Any]  # the instrument's figures for the learner's function
    reference: dict[str, Any]  # and for the reference's


@dataclass
class ValueCall:
    """One call of the learner's function for values (a property check's, a script's
    run), with what the worker recorded of the programs it ran and what the
    reference's call on the same input ran (``executions.of_call``)."""

    where: str  # "property call 7 of 50", in a message
    args: dict[str, Any]
    label: str  # the call's arguments in a few words
    mine: dict[str, Any]  # the learner's call's record (``measured.executed``)
    reference: dict[str, Any]  # the reference's, on the same input


class ScriptMeasureCheck(CheckSpec):
    """The shared half of a performance kind that runs its instrument on every call of a
    script (``script:``), in the learner's worker and, meanwhile, the reference's.

    A call that fails is reported as such (with what the judge was doing: ``doing``); a
    value the instrument kept that disagrees with the reference's is a wrong answer (the
    measured program must be the one that computes the right value); then ``judge``
    weighs the figures of every call.  A subclass declares ``INSTRUMENT``, ``doing``,
    ``usual_cause`` (the default of the task's ``cause:`` field, in a learner's words),
    ``options(task)`` (JSON for the instrument; ``call_options`` may vary it per call)
    and ``judge(grading, calls)``."""

    phase = Phase.CALLS  # after the scripted checks have read a fresh worker
    failure_verdict = Verdict.INEFFICIENT
    FIELDS = CheckSpec.FIELDS + ("script", "cause")
    doing = "measured"  # what the instrument does to the function, in a few words
    error_hint = ""  # added to a runtime error met while measuring
    usual_cause = ""

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.script = r.get("script", str)
        if self.script not in scripts:
            r.fail(
                f"no script named '{self.script}' (scripts: {', '.join(scripts) or 'none'})",
                "script",
            )
        self.arg_names = list(scripts[self.script][0])
        self.n_calls = len(scripts[self.script])
        self._cause = r.get("cause", str, "")

    @property
    def cause(self) -> str:
        """The usual cause of this check's failure, as the task states it (or the kind)."""
        return self._cause or self.usual_cause

    def options(self, task: Task) -> dict[str, Any]:
        return {}

    def planned_calls(self, grading: GradingView) -> int:
        return self.n_calls

    def call_options(self, options: dict[str, Any], index: int) -> dict[str, Any]:
        """The instrument's options for the script's call ``index`` (1-based): the same
        for every call unless a kind needs otherwise (say, a fresh start before the
        first)."""
        return options

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        calls = grading.script_calls(self.script)
        options = [
            self.call_options(self.options(grading.task), i) for i in range(1, len(calls) + 1)
        ]
        theirs = [
            grading.reference_measure_soon(self.kind, args, opts)
            for args, opts in zip(calls, options)
        ]
        mine: list[CallOutcome] = []
        for args, opts in zip(calls, options):
            mine.append(
                grading.learner_measure(self.kind, args, opts, f"{self.kind}:{self.script}")
            )
            if not mine[-1].ok:
                break
        return ResultAfterCalls(functools.partial(self._finish, grading, calls, mine, theirs))

    def _finish(
        self,
        grading: GradingView,
        calls: list[dict[str, Any]],
        mine: list[CallOutcome],
        theirs: list[Future[CallOutcome]],
    ) -> CheckResult:
        from .outcome import (
            call_label,
            counterexample,
            failed_call,
            mismatch,
            replay,
            scripted_note,
        )

        measured: list[Measured] = []
        for i, (args, out) in enumerate(zip(calls, mine), 1):
            where = f"scripted call {i} of {len(calls)}"
            note = scripted_note(i, len(calls), self.script)  # the replay's comment
            if not out.ok and out.verdict == Verdict.WRONG_ANSWER:
                return self.result(
                    Status.FAILED,
                    f"{where} ({call_label(args)}): {out.message}",
                    counterexample=counterexample(args),
                    details=replay(grading, args, note),
                    verdict=Verdict.WRONG_ANSWER,
                )
            if not out.ok:
                failed = failed_call(self, grading, args, out, f"{where}, {self.doing}: ", note)
                if out.verdict == Verdict.RUNTIME_ERROR and self.error_hint:
                    failed.message += f"\n{self.error_hint}"
                return failed
            ref = theirs[i - 1].result()
            problem = mismatch(grading, args, out.value, ref.value) if out.kept else None
            if problem:
                return self.result(
                    Status.FAILED,
                    f"{where} ({call_label(args)}): what the judge measured "
                    f"({self.doing}) computes another value than the "
                    f"reference: {problem.message}",
                    counterexample=counterexample(args, ref.value, out.value),
                    details=replay(grading, args, note),
                    verdict=Verdict.WRONG_ANSWER,
                )
            measured.append(Measured(i, args, call_label(args), out.measured, ref.measured))
        try:
            return self.judge(grading, measured)
        except Exception:
            rewritten = self._rewritten(grading, measured)
            if rewritten is None:
                raise  # the judge's own mistake: judge_error
            return rewritten

    def _rewritten(self, grading: GradingView, measured: list[Measured]) -> CheckResult | None:
        """A measurement the kind could not read, where the reference's figures in its
        place read fine and the learner's are not of their form: the learner's code
        rewrote what the instrument sent back (it runs in the same process)."""
        from ..records import conforms, shape_of

        odd = [m for m in measured if not conforms(m.mine, shape_of(m.reference))]
        if not odd:
            return None
        try:
            self.judge(grading, [replace(m, mine=m.reference) for m in measured])
        except Exception:
            return None
        return self.result(
            Status.FAILED,
            f"scripted call {odd[0].index}: what your worker sent back as the "
            f"judge's measurement ({self.doing}) is not of the form the judge's "
            f"instrument gives; did your code change the judge's instruments?",
            verdict=Verdict.RUNTIME_ERROR,
        )

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        raise NotImplementedError

    # what each value call is weighed against: the measuring kinds
    VALUE_CALLS_NOTE = (
        "your function did different work when called than when traced (or than when "
        "the judge measured it)"
    )
    VALUE_CALLS_CAUSE = (
        "code that checks whether it is being traced (isinstance(x, jax.core.Tracer)), "
        "or counts its calls, and does other work on the calls that follow"
    )

    OFF_DEVICE_FIGURE = "the figure"  # what the kind weighs, in the off-device message

    def value_calls_off_device(self, values: list[ValueCall]) -> str | None:
        """The off-device rule (judge/checks/on_device.py) on every value call that
        ``value_calls`` found, in words (None: each read on the device what the
        reference's read).  A function that computes on the host and hands back
        ``jnp.asarray`` of the answer runs programs of almost no work, which every
        figure here would pass."""
        from .on_device import off_device_message, unread_input

        for v in values:
            found = unread_input(v.args, v.mine, v.reference)
            if found is not None:
                return off_device_message(v.where, v.label, found, self.OFF_DEVICE_FIGURE)
        return None

    def value_calls(self, grading: GradingView) -> list[ValueCall]:
        """Every call the grading made of the learner's function for values whose
        programs were recorded, beside the reference's record of the same input: the
        calls of the kinds that draw inputs (the property check) and the runs of the
        scripts some check reads.  The instrument's own call comes right after its
        trace, so a function that switches its work on the next call shows it the
        cheap program; these calls are the ones it cannot tell apart.  A reference
        record without figures (a memo written before they were kept) is skipped."""
        from .outcome import call_label

        if grading is None:  # judged on figures alone (a kind's own tests): no calls made
            return []
        found: list[ValueCall] = []
        labels = dict.fromkeys(c.calls_label for c in grading.task.checks if c.draws_inputs)
        for label in labels:
            calls = [
                (args, out.measured["executed"])
                for args, out in grading.learner_calls(label)
                if out.ok and isinstance((out.measured or {}).get("executed"), dict)
            ]
            if not calls:
                continue
            theirs = grading.reference_outcomes([args for args, _ in calls])
            for i, ((args, mine), ref) in enumerate(zip(calls, theirs), 1):
                record = (ref.measured or {}).get("executed")
                if isinstance(record, dict) and "flops" in record:
                    where = f"{label} call {i} of {len(calls)}"
                    found.append(ValueCall(where, args, call_label(args), mine, record))
        scripts = dict.fromkeys(name for c in grading.task.checks for name in c.scripts_run())
        for name in scripts:
            run, ref_run = grading.learner_script(name), grading.reference_script(name)
            for i, (args, out, ref) in enumerate(zip(run.calls, run.outcomes, ref_run.outcomes), 1):
                mine = (out.measured or {}).get("executed") if out.ok else None
                record = (ref.measured or {}).get("executed")
                if isinstance(mine, dict) and isinstance(record, dict) and "flops" in record:
                    where = f"call {i} of script '{name}'"
                    found.append(ValueCall(where, args, call_label(args), mine, record))
        return found


def instruments_of(checks: Iterable[CheckSpec]) -> list[Instrument]:
    """The worker-side halves a task's checks need, one per kind."""
    found = {c.kind: c.INSTRUMENT for c in checks if c.INSTRUMENT is not None}
    return list(found.values())
