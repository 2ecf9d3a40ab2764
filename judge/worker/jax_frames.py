"""jax's private layout, read by the probe and the sync counter: the one file a jax
upgrade touches (pyproject pins ``jax<0.11`` for it; measured on jax 0.10.2, and
tests/integration/test_probe.py fails loudly where any of it moved).

What it reads: the jit dispatcher's Python fallback frames (``cache_miss`` and
``_infer_params`` in ``jax/_src/pjit.py``) and their locals (``fun``, ``jit_info``/``ji``,
``args``, ``kwargs``); ``Lowered.compile`` in ``jax/_src/stages.py`` (ahead-of-time
compiles); ``jax._src.pjit._cpp_pjit``, which makes every jitted object, wrapped to
learn who built it; the ``_jit_info`` of jax's library jits; the closure of jax's
one-primitive eager jits (``_apply_primitive``, ``params``) and equations' tracebacks;
a jitted object's ``_cache_size()``.  When any of these moves, tests/integration/test_probe.py
fails loudly and the probe turns the failure into a ``probe_error`` note, never an
exception in the learner's call.  (The sync counter's own choke points, jaxlib's
``ArrayImpl`` methods and jax's callback implementations, and the custom-call reader's
``compile_or_get_cached`` are named in syncs.py and custom_calls.py.)
"""

from __future__ import annotations

import functools
import os
import sys
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import jax

if TYPE_CHECKING:
    from types import FrameType

    from .learner_file import LearnerSource

_PJIT_FILE = os.path.join("jax", "_src", "pjit.py")
_STAGES_FILE = os.path.join("jax", "_src", "stages.py")  # Lowered.compile: AOT
_TRACEBACK_FILE = os.path.join("jax", "_src", "traceback_util.py")
# cache_miss is the C++ dispatcher's Python fallback; _infer_params is also reached by
# AOT tracing (jit(f).lower, eval_shape), which has no cache_miss frame.
_JIT_FRAMES = {"cache_miss": "jit_info", "_infer_params": "ji"}
_JIT_TYPE = type(jax.jit(lambda: 0))


def is_jit_frame(frame) -> bool:
    code = frame.f_code
    return code.co_name in _JIT_FRAMES and code.co_filename.endswith(_PJIT_FILE)


@dataclass
class JitCall:
    """What the outermost jit dispatch frame knows about the call being compiled."""

    fun: object
    jit_info: object
    args: tuple
    kwargs: dict
    outer: FrameType | None  # the frame that called into jit


def aot_compile_frame(frame):
    """The frame of ``Lowered.compile`` (``jax.jit(f).lower(x).compile()``) on the stack,
    or None."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "compile" and code.co_filename.endswith(_STAGES_FILE):
            return frame
        frame = frame.f_back
    return None


def find_jit_call(frame) -> JitCall | None:
    outermost = None
    while frame is not None:
        if is_jit_frame(frame):
            outermost = frame
        frame = frame.f_back
    if outermost is None:
        return None
    local = outermost.f_locals
    info_name = _JIT_FRAMES[outermost.f_code.co_name]
    return JitCall(
        local["fun"],
        local[info_name],
        tuple(local["args"]),
        dict(local["kwargs"]),
        outermost.f_back,
    )


# jnp.clip, jnp.cumsum, lax.* ... are themselves jitted objects defined by jax: called
# eagerly from the learner's file they are eager ops, not the learner's jit (rule 3).
_LIBRARY_MODULES = (
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.nn",
    "jax.random",
    "jax.scipy.special",
    "jax.scipy.linalg",
    "jax.scipy.stats",
    "jax.image",
    "jax.ops",
)


@functools.lru_cache(maxsize=1)
def _library_jit_infos() -> frozenset:
    infos = set()
    for name in _LIBRARY_MODULES:
        module = sys.modules.get(name)
        for value in vars(module).values() if module is not None else ():
            info = getattr(value, "_jit_info", None) if isinstance(value, _JIT_TYPE) else None
            if info is not None:
                infos.add(id(info))
    return frozenset(infos)


def _is_library_jit(jit_info) -> bool:
    return id(jit_info) in _library_jit_infos()


# ---------------------------------------------------------------- who built it


class BuiltJits:
    """Which jitted objects the learner's code built, and on which line.

    Every jitted object, whatever route built it (``jax.jit``, ``jax._src.api.jit``,
    ``jax._src.pjit.pjit``, ``make_jit``), is made by ``jax._src.pjit._cpp_pjit``, which
    the probe wraps while it lives.  The builder is found on the stack above it, seeing
    through jax's jit constructors, ``jax.tree.map`` and code of no file (``exec``/``eval``)
    or of other libraries: a frame of the learner's file makes it the learner's jit
    wherever it is later called from (``jax.tree.map(jax.jit(partial(jnp.multiply, f)),
    x)``, ``jax.tree.map(jax._src.api.jit, fns)``); a jit built by jax's own code (its
    library jits at import, the jits behind eager ops) or by the judge's stays theirs.
    Entries hold the jitted object weakly."""

    def __init__(self, source: LearnerSource):
        from jax._src import pjit as pjit_module

        self._source = source
        self._lines: dict[int, tuple] = {}  # id(jit_info) -> (weakref to the jit, line)
        self._module = pjit_module
        self._original = pjit_module._cpp_pjit
        original, built = self._original, self

        @functools.wraps(original)
        def _cpp_pjit(*args, **kwargs):
            jitted = original(*args, **kwargs)
            try:
                built._note(jitted, sys._getframe(1))
            except Exception:  # an odd object: only the attribution is lost
                pass
            return jitted

        self.wrapper = _cpp_pjit
        pjit_module._cpp_pjit = _cpp_pjit

    def _note(self, jitted, frame) -> None:
        line = self._builder_line(frame)
        info = getattr(jitted, "_jit_info", None) if type(jitted) is _JIT_TYPE else None
        if line is None or info is None:
            return
        if len(self._lines) > 4096:
            self._lines = {k: v for k, v in self._lines.items() if v[0]() is not None}
        self._lines[id(info)] = (weakref.ref(jitted), line)

    def _builder_line(self, frame) -> int | None:
        while frame is not None:
            filename = frame.f_code.co_filename
            if self._source.owns(filename):
                return frame.f_lineno
            if filename.startswith("<"):  # code run by exec/eval: who ran it?
                pass
            elif filename.startswith(_JAX_DIR):
                if not _is_passage(filename, frame.f_code.co_name):
                    return None  # jax's own code built it for itself
            elif filename.startswith(_JUDGE_DIR):
                return None  # the judge's instruments
            frame = frame.f_back  # another library passing it through
        return None

    def line(self, jit_info) -> int | None:
        entry = self._lines.get(id(jit_info))
        if entry is None:
            return None
        jitted = entry[0]()
        return entry[1] if jitted is not None and jitted._jit_info is jit_info else None

    def close(self) -> None:
        if self._module._cpp_pjit is self.wrapper:
            self._module._cpp_pjit = self._original


_JAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(jax.__file__))) + os.sep + "jax" + os.sep
_JUDGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# jax frames a jit's builder is seen through: its constructors and the tree mappers
_PASSAGES = {
    os.path.join("_src", "api.py"): {"jit", "<lambda>"},
    os.path.join("_src", "pjit.py"): {"make_jit", "pjit", "_cpp_pjit", "<lambda>"},
    os.path.join("_src", "traceback_util.py"): None,
    os.path.join("_src", "tree_util.py"): None,
    os.path.join("_src", "tree.py"): None,
}


def _is_passage(filename: str, name: str) -> bool:
    names = _PASSAGES.get(filename[len(_JAX_DIR) :], False)
    return names is None or (names is not False and name in names)  # type: ignore[operator]  # a set here


def _sub_jaxprs(values, depth: int = 0):
    from jax._src import core as jax_core

    for value in values:
        if isinstance(value, jax_core.ClosedJaxpr):
            yield value.jaxpr
        elif isinstance(value, jax_core.Jaxpr):
            yield value
        elif isinstance(value, (tuple, list)) and depth < 3:
            yield from _sub_jaxprs(value, depth + 1)


def learner_body_line(fun, source: LearnerSource, outer, budget: int = 2000) -> int | None:
    """For jax's one-primitive jit of an eager op (``dispatch.xla_primitive_callable``):
    the line of a body the learner wrote inside its program (an unjitted ``fori_loop``,
    ``scan``, ``while_loop``, ``cond``), or None for a plain eager op.  A body is a
    frame of the learner's file in an equation's traceback that is not on the stack
    now: jax's own functions called from the learner (``jax.nn.relu``) only show the
    learner's calling frame, which is."""
    if getattr(fun, "_apply_primitive", False) is not True or not fun.__closure__:
        return None
    cells = dict(zip(fun.__code__.co_freevars, (c.cell_contents for c in fun.__closure__)))
    params = cells.get("params")
    if not isinstance(params, dict):
        return None
    on_stack = set()
    frame = outer
    while frame is not None:
        code = frame.f_code
        if source.owns(code.co_filename):
            on_stack.add((code.co_qualname, frame.f_lineno))
        frame = frame.f_back
    todo = list(_sub_jaxprs(params.values()))
    while todo and budget > 0:
        jaxpr = todo.pop()
        for eqn in jaxpr.eqns:
            budget -= 1
            for entry in eqn.source_info.traceback.frames if eqn.source_info.traceback else ():
                if (
                    source.owns(entry.file_name)
                    and (entry.function_name, entry.line_num) not in on_stack
                ):
                    return entry.line_num
            todo += _sub_jaxprs(eqn.params.values())
    return None


def cache_entries(value) -> int | None:
    """How many programs a jitted object holds (a private method: None where absent)."""
    return int(value._cache_size()) if type(value) is _JIT_TYPE else None  # type: ignore[attr-defined]  # jax's private method, on its own type
