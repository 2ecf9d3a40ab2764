"""The device programs that actually ran while the learner's function was called for values.

The measuring kinds (cost, jaxpr, collectives) trace or compile the learner's function
themselves; a function that checks ``isinstance(x, jax.core.Tracer)`` can show them a
cheap program and run an expensive one (or a Python loop of eager operations, or a
jitted all-gather) on every real call.  The figure must describe what the calls ran, so
the worker records every program executed while a call runs:

* every execution jax makes from Python ends in ``pxla.ExecuteReplicated.__call__``: a
  jitted call's Python path, an eager primitive (dispatched as a small jit), an
  ahead-of-time ``Compiled`` called;
* jax's C++ dispatch skips Python on a cache hit where it holds "fast path data": both
  doors to it are shut here before the learner's file loads (``pjit._get_fastpath_data``
  and ``MeshExecutable.create_cpp_call`` return None), and the C++ caches are emptied,
  so every execution passes the recorder (measured on jax 0.10.2: about 30-50 us more
  per dispatch, see the report of issue 20);
* with the fast path shut, a jit cache hit goes through Python's ``cache_miss``, whose
  trace cache knows a jit wrapper by identity where the C++ cache knew it by its
  function and options: ``jax.jit(f)(x)`` made anew on every call would trace again on
  every call.  ``_infer_params``, called from ``cache_miss``, is handed the first
  equal ``PjitInfo`` seen for the same function instead, so the judge's worker traces
  exactly when jax does (ahead-of-time ``.lower``/``.trace`` keep their own);
  ``jax.no_tracing(True)`` raises on every jitted call, not only on a retrace (the
  bank does not use it);
* ``pjit._pjit_call_impl_python`` hands over the jaxpr each program was compiled from,
  so a program's equations and primitives are known (an ahead-of-time program's are
  not: ``None``).

Recording is on only inside ``recording()``; outside it the wrapper costs one check.
What is kept per execution is small (the program, the id, dtype and size of each
argument, a weak reference to each output), never the arrays, so a loop of thousands
of eager operations stays cheap.  ``ran_as_traced`` reads one call's record against an
instrument's own trace of the call: where the call ran exactly the traced program, the
instrument measures that program instead of compiling the trace again.

Why the fast path stays shut outside ``recording()`` too (it costs about 60 us a
dispatch; reviewed for issue 21, and left so):

* nothing would be gained where the judge waits: every call of the learner's function
  the judge makes is recorded already (each value call, ``loop._call``, for its
  ``measured.executed``; each instrument's ``called``).  Outside a recording the
  learner's code runs only while its file loads and in threads it leaves running
  between requests;
* it would open a hole.  A fast-path entry made outside a recording (a warm-up call
  while the file loads, a learner's thread between requests, a host callback's jitted
  call) is a C++ cache hit inside one, which runs with no Python at all: unseen.
  Emptying the C++ caches when a recording starts does not close it: a thread that is
  inside ``cache_miss`` when the recording starts computed its fast-path data before,
  and jax's C++ side stores it after the caches were emptied; its next call inside the
  recording is then a hit nobody saw.  jax offers no hook that orders its C++ cache
  writes with the judge's switch, so the switch cannot be made safe, and the fast path
  stays shut for the whole life of the worker.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import weakref

_COLLECTIVE = re.compile(
    r"\b(all-reduce|all-gather|reduce-scatter|collective-permute|all-to-all)(?:-start)?\("
)
_MAX_PROGRAMS_SENT = 40
_MAX_HLO_SENT = 1 << 20  # characters of HLO text sent, over all programs of a call
_VALUE_HLO_SENT = 1 << 18  # the same, in a value call's reply (which has a size limit)


class Executions:
    """Installs the recorder into jax; ``recording()`` collects what runs inside it."""

    def __init__(self):
        import jax.extend.core
        from jax._src import pjit
        from jax._src.interpreters import pxla

        self._jaxprs_in_params = jax.extend.core.jaxprs_in_params
        self._jit_p = pjit.jit_p
        self._rules = _LoweringRules()
        self._transfers = _Transfers(self, pxla)
        self._log: list | None = None
        self._lock = threading.Lock()
        # ExecuteReplicated -> the ClosedJaxpr it was compiled from (None: unknown)
        self._jaxpr_of: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        self._figures: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        self.guards = []  # (holder, attribute, wrapper): for the integrity check

        original_execute = pxla.ExecuteReplicated.__call__
        recorder = self
        buffers = self._transfers.buffers

        def __call__(self, *args):
            log = recorder._log
            if log is None:
                return original_execute(self, *args)
            entry = [
                self,
                tuple(
                    (id(a), str(getattr(a, "dtype", "")), int(getattr(a, "size", 0) or 0))
                    for a in args
                ),
                (),
            ]
            log.append(entry)  # before it runs: an execution that raises ran too
            try:  # what the program reads: jax leaves an argument it does not use out
                kept = getattr(self, "kept_var_idx", None)
                for i, a in enumerate(args):
                    if kept is None or i in kept:
                        log.pointers.update(buffers(a))
            except Exception:  # an odd argument: its buffers tie no transfer to this program
                pass
            out = original_execute(self, *args)
            try:  # what it made, weakly: is a call's value this program's output?
                entry[2] = tuple(weakref.ref(o) for o in out)
            except TypeError:  # an output that takes no weak reference: never the same
                pass
            return out

        original_impl = pjit._pjit_call_impl_python

        def _pjit_call_impl_python(*args, jaxpr, **params):
            log = recorder._log
            if log is not None:
                # arrays a jitted closure captured are the program's constants, not its
                # arguments (jax.jit(lambda: a @ b)()): the program reads them all the same
                try:
                    for const in jaxpr.consts:
                        log.pointers.update(buffers(const))
                except Exception:  # an odd jaxpr: its constants tie nothing
                    pass
            out = original_impl(*args, jaxpr=jaxpr, **params)
            try:
                call = out[1].unsafe_call
                if call not in recorder._jaxpr_of:
                    recorder._jaxpr_of[call] = jaxpr
            except Exception:  # another layout: the program's size stays unknown
                pass
            return out

        def no_fastpath(*args, **kwargs):
            return None

        original_infer = pjit._infer_params
        canonical: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        jit_file = pjit.__file__

        def _infer_params(fun, ji, *args, **kwargs):
            caller = sys._getframe(1).f_code
            if caller.co_name == "cache_miss" and caller.co_filename == jit_file:
                try:
                    known = canonical.setdefault(fun, {})
                    ji = known.setdefault(tuple(ji), ji)
                except TypeError:  # an option or a function that cannot be a key
                    pass
            return original_infer(fun, ji, *args, **kwargs)

        def no_cpp_call(self, params):
            return None

        pxla.ExecuteReplicated.__call__ = __call__
        pjit._pjit_call_impl_python = _pjit_call_impl_python
        pjit._get_fastpath_data = no_fastpath
        pjit._infer_params = _infer_params
        pxla.MeshExecutable.create_cpp_call = no_cpp_call
        for cache in (pjit._cpp_pjit_cache_fun_only, pjit._cpp_pjit_cache_explicit_attributes):
            cache.clear()
        self.guards = [
            (pxla.ExecuteReplicated, "__call__", __call__),
            (pjit, "_pjit_call_impl_python", _pjit_call_impl_python),
            (pjit, "_get_fastpath_data", no_fastpath),
            (pjit, "_infer_params", _infer_params),
            (pxla.MeshExecutable, "create_cpp_call", no_cpp_call),
        ]

    @contextlib.contextmanager
    def recording(self):
        """Collect the executions made inside (from any thread); yields the list."""
        with self._lock:
            outer, self._log = self._log, _Log()
            log = self._log
        try:
            yield log
        finally:
            with self._lock:
                self._log = outer
                if outer is not None:
                    outer.extend(log)
                    outer.transfers.extend(log.transfers)
                    outer.pointers |= log.pointers
                    outer.moved.extend(log.moved)

    # ------------------------------------------------------------ what one call ran

    def inputs_read(self, leaves, log, returned=()) -> list:
        """For each array leaf of the call's arguments: did some program the call ran
        read it, or a copy of it sent to the device during the call?  None for an empty
        leaf, which nothing needs to read, and for a scalar, which a right function may
        take as a static Python number.  An input the call returns as it is
        (``returned``: the result's leaves) passed through untouched, which is no work
        done on the host either.

        A copy counts where it is tied to the input's data: a host array sent to the
        device during the call (``_Transfers``: passed to a program, or to
        ``device_put``/``jnp.asarray``) whose values hold the input's, in order
        (the input itself, a view of it, a padded copy), and that a program of the call
        read (itself, or the device array the transfer made).  An argument a program
        leaves out (jax drops the ones it does not use) is not read by it.  A copy the
        call laid out
        anew on the devices (``device_put`` to another sharding) stands for the device
        array it was made from.  An array that is merely as large, made before the call
        (a module's decoy) or on the device (a fresh ``jnp.zeros``), never stands in."""
        seen_ids = {
            a[0]
            for program, args, _ in log
            for k, a in enumerate(args)
            if k in getattr(program, "kept_var_idx", range(len(args)))
        } | {id(r) for r in returned}
        read: set = set(getattr(log, "pointers", ()))
        # a device array moved (a copy laid out anew) is read where its copy is, and
        # through every move before it
        moves = list(getattr(log, "moved", ()))
        while True:
            tied = [m for m in moves if any(p in read for p in m[2])]
            if not tied:
                break
            for source, source_buffers, _ in tied:
                seen_ids.add(source)
                read.update(source_buffers)
            moves = [m for m in moves if m not in tied]
        sent = [
            host
            for host, made in getattr(log, "transfers", ())
            if id(host) in seen_ids or any(p in read for p in made)
        ]
        out: list[bool | None] = []
        for leaf in leaves:
            size = int(getattr(leaf, "size", 0) or 0)
            if size == 0 or not getattr(leaf, "shape", ()):
                out.append(None)
            elif id(leaf) in seen_ids or any(b in read for b in self._transfers.buffers(leaf)):
                out.append(True)  # handed to a program, itself or a view of its buffers
            else:
                values = self._transfers.values(leaf) if sent else None
                out.append(any(_holds(h, leaf, values) for h in sent))
        return out

    def of_call(self, log, inputs, result) -> dict:
        """What a call's reply says of the programs it ran: how many, which of its
        input arrays (``inputs``: the arguments' array leaves, taken before the call)
        they read (None where that could not be read: the learner's
        result is an object whose attributes raise), and the figures the measuring
        kinds weigh (``summary``: flops, equations and primitives, collectives, the
        programs with the HLO the judge reads), so that every value call is weighed,
        not only the instrument's own (a function that switches its work on the
        calls after a trace shows its cheap program to the instrument's call alone).
        Each program's figures are computed once (``_program``), so a call costs a
        look-up per execution."""
        try:
            read = self.inputs_read(list(inputs), log, array_leaves(result))
        except Exception:
            read = None
        try:
            figures = self.summary(log, _VALUE_HLO_SENT)
        except Exception:  # a program whose figures cannot be had: unknown, weighed so
            figures = {"flops": None, "equations": None, "primitives": None}
        return dict(figures, executions=len(log), inputs_read=read)

    def ran_as_traced(self, log, closed, arrays, value):
        """The compiled program a call ran, where it is exactly the judge's own trace of
        the call (``closed``, traced at ``arrays``); None where that is not certain.

        Certain means: the call ran one program, and only once; the trace is one jitted
        call of the very jaxpr that program was compiled from (jax's trace cache hands
        out the same object, so identity is the test), on the trace's arguments as they
        come, giving its results as they go; the program read the call's own argument
        arrays (the same objects, in order, after the constants jax passes first); and
        every array of the call's value is one of that execution's outputs (the same
        objects).  Then compiling the trace again would compile that program again:
        its figures are the ones the trace's compile would give, and the call's value
        is that program's value.  A function that does other work when called than
        when traced fails one of these, and the instrument compiles its trace."""
        if len(log) != 1 or closed.consts or closed.jaxpr.constvars:
            return None
        call, read, made = log[0]
        jaxpr = closed.jaxpr
        if len(jaxpr.eqns) != 1 or len(jaxpr.invars) != len(arrays):
            return None
        eqn = jaxpr.eqns[0]
        inner = eqn.params.get("jaxpr")
        if (
            eqn.primitive is not self._jit_p
            or inner is None
            or self._jaxpr_of.get(call) is not inner
        ):
            return None
        if not _same(eqn.invars, jaxpr.invars) or not _same(eqn.outvars, jaxpr.outvars):
            return None
        ids = [i for i, _, _ in read]
        if len(ids) < len(arrays) or ids[len(ids) - len(arrays) :] != [id(a) for a in arrays]:
            return None
        outputs = [r() for r in made]
        leaves = array_leaves(value)
        if (
            not outputs
            or any(o is None for o in outputs)
            or len(leaves) != len(outputs)
            or {id(v) for v in leaves} != {id(o) for o in outputs}
        ):
            return None
        return call.xla_executable

    def _program(self, call) -> dict:
        """One program's figures, computed once: XLA's flops, the equations and
        primitives of the jaxpr it came from, its collectives, its HLO where the judge
        must read it (loops, collectives, callbacks)."""
        known = self._figures.get(call)
        if known is not None:
            return known
        executable = call.xla_executable
        try:
            analysis = executable.cost_analysis()
            if isinstance(analysis, (list, tuple)):
                analysis = analysis[0] if analysis else {}
            flops = float(analysis.get("flops", 0.0)) if isinstance(analysis, dict) else None
        except Exception:
            flops = None
        try:
            text = executable.get_hlo_text()
        except Exception:
            text = ""
        collectives: dict = {}
        for m in _COLLECTIVE.finditer(text):
            collectives[m.group(1)] = collectives.get(m.group(1), 0) + 1
        primitives: dict | None
        equations, primitives = None, None
        jaxpr = self._jaxpr_of.get(call)
        opaque: list = []
        if jaxpr is not None:
            primitives = {}
            equations = self._count(jaxpr.jaxpr, primitives, 0, opaque)
            if equations is None:
                primitives = None
        readable = "while" in text or collectives or "callback" in text or "custom-call" in text
        figures = {
            "name": str(getattr(call, "name", "")),
            "flops": flops,
            "equations": equations,
            "primitives": primitives,
            "collectives": collectives,
            "hlo": text if readable else "",
            "opaque": opaque[0] if opaque else None,
        }
        self._figures[call] = figures
        return figures

    def _count(self, jaxpr, primitives: dict, depth: int = 0, opaque: list | None = None):
        """The program's equations, nested ones included; None where one of them is a
        program the judge cannot read into (``opaque`` gets why, in a learner's words):
        an exported program's call, or a primitive whose lowering the learner's code
        registered (``_LoweringRules``): either is one equation however much it runs."""
        total = 0
        for eqn in jaxpr.eqns:
            total += 1
            name = str(eqn.primitive.name)
            primitives[name] = primitives.get(name, 0) + 1
            why = self._rules.opaque(eqn.primitive)
            if why is not None:
                if opaque is not None:
                    opaque.append(why)
                return None
            if depth < 100:
                for sub in self._jaxprs_in_params(eqn.params):
                    inner = self._count(sub, primitives, depth + 1, opaque)
                    if inner is None:
                        return None
                    total += inner
        return total

    def summary(self, log, hlo_sent: int = _MAX_HLO_SENT) -> dict:
        """What the recorded executions did, as JSON: every figure summed over the
        executions (None where some program's is unknown), and the programs that ran,
        the most run first (with at most ``hlo_sent`` characters of HLO in all)."""
        times: dict = {}
        order = []
        for call, _, _ in log:
            if call not in times:
                order.append(call)
                times[call] = 0
            times[call] += 1
        flops: float | None
        equations: int | None
        flops, equations = 0.0, 0
        primitives: dict = {}
        collectives: dict = {}
        programs: list[dict] = []
        hlo_left = hlo_sent
        opaque = None
        for call in sorted(order, key=lambda c: -times[c]):
            n = times[call]
            fig = self._program(call)
            flops = None if flops is None or fig["flops"] is None else flops + n * fig["flops"]
            if equations is not None and fig["equations"] is not None:
                equations += n * fig["equations"]
                for k, v in fig["primitives"].items():
                    primitives[k] = primitives.get(k, 0) + n * v
            else:
                equations = None
                opaque = opaque or fig.get("opaque")
            for k, v in fig["collectives"].items():
                collectives[k] = collectives.get(k, 0) + n * v
            if len(programs) < _MAX_PROGRAMS_SENT:
                hlo = fig["hlo"] if len(fig["hlo"]) <= hlo_left else ""
                hlo_left -= len(hlo)
                programs.append(
                    {
                        "name": fig["name"],
                        "times": n,
                        "flops": fig["flops"],
                        "equations": fig["equations"],
                        "hlo": hlo,
                        "hlo_missing": bool(fig["hlo"]) and not hlo,
                    }
                )
        return {
            "executions": len(log),
            "distinct": len(order),
            "flops": flops,
            "equations": equations,
            "primitives": primitives if equations is not None else None,
            "opaque": opaque,
            "collectives": collectives,
            "programs": programs,
            "programs_left_out": max(0, len(order) - _MAX_PROGRAMS_SENT),
        }


class _Log(list):
    """One recording's executions, and the arrays sent to the device or moved on it."""

    def __init__(self):
        super().__init__()
        self.transfers: list = []  # (host array, buffers of the device arrays made from it)
        self.kept = 0  # bytes of the host arrays kept
        self.pointers: set = set()  # (address, bytes) of the buffers programs were handed
        self.moved: list = []  # (id of a device array, its buffers, those of its copy)


class _Transfers:
    """Records each host array (a NumPy array) sent to the device while a recording is
    on, with the buffers of the device arrays made from it: ``pxla.shard_args`` is the
    door every transfer passes (a NumPy argument of a jitted call or an eager
    operation, where ``ExecuteReplicated`` hands its arguments over; ``device_put`` and
    ``jnp.asarray``, through ``dispatch``'s batched device put), and the buffers of each
    device array that passes it and comes out as another (``device_put`` to a new
    layout: a copy laid out anew on the devices), a move.  The buffers of the arrays
    handed to each program are taken where it runs (``ExecuteReplicated``), so that a
    transfer or a move is known to have been read.

    The host array itself is kept (a reference, not a copy) until the recording ends,
    so that ``inputs_read`` can compare its values with the call's inputs; at most
    ``_MAX_KEPT_BYTES`` of them per recording (beyond that a transfer is not kept, and
    stands in for no input).  Outside a recording the wrapper costs one check; inside,
    one ``isinstance`` per argument transferred.

    Buffers are read with jaxlib's own ``unsafe_buffer_pointer``, taken before the sync
    counter wraps it: read through the wrapper, the judge's look at a buffer while the
    learner's code sends a constant to the device (``jax.device_put(np.ones(3))``)
    counted as the learner's pull."""

    def __init__(self, recorder, pxla):
        import numpy as np
        from jax._src.array import ArrayImpl

        original = pxla.shard_args
        ndarray = np.ndarray

        def unwrapped(method):  # where the sync counter came first (tests)
            return getattr(method, "__wrapped__", method)

        raw = unwrapped(ArrayImpl.unsafe_buffer_pointer)
        copy = unwrapped(ArrayImpl._single_device_array_to_np_array_did_copy)

        def buffers(array) -> tuple:
            return _buffers(raw, array)

        def values(array):
            return _host_values(copy, array)

        self.buffers, self.values = buffers, values

        def shard_args(shardings, layouts, copy_semantics, args, *rest, **kwargs):
            out = original(shardings, layouts, copy_semantics, args, *rest, **kwargs)
            log = recorder._log
            if log is None:
                return out
            try:
                kept = getattr(log, "transfers", None)
                if kept is None:
                    return out
                for arg, made in zip(args, out):
                    if isinstance(arg, ndarray):
                        if log.kept + int(arg.nbytes) <= _MAX_KEPT_BYTES:
                            log.kept += int(arg.nbytes)
                            kept.append((arg, buffers(made)))
                    elif made is not arg:  # a device array copied, laid out anew
                        log.moved.append((id(arg), buffers(arg), buffers(made)))
            except Exception:  # an odd argument or result: that transfer is not kept
                pass
            return out

        pxla.shard_args = shard_args
        self.guard = (pxla, "shard_args", shard_args)


_MAX_KEPT_BYTES = 1 << 30


def _buffers(pointer_of, array) -> tuple:
    """An array's device buffers, each as its address and size in bytes
    (``pointer_of``: jaxlib's ``unsafe_buffer_pointer``): a single-device array's one,
    each addressable shard's for an array laid over several devices, none where they
    cannot be read.  The device array ``device_put`` hands back wraps the buffers
    ``shard_args`` made in a new object, so the buffers, not the object, tie a transfer
    to the programs that read it.  The size is part of the tie: on the CPU a host array
    is sent without a copy, so a smaller array made at the same address (the first part
    of a host buffer that also holds an input's values) would otherwise stand for all
    of it."""
    try:
        return ((int(pointer_of(array)), int(array.nbytes)),)
    except Exception:
        pass
    try:
        shards = array.addressable_shards
    except Exception:
        return ()
    found = []
    for shard in shards:
        try:
            found.append((int(pointer_of(shard.data)), int(shard.data.nbytes)))
        except Exception:
            pass
    return tuple(found)


def _holds(host, leaf, values) -> bool:
    """Whether the host array ``host`` holds the input ``leaf``'s values (``values``:
    read from its device buffers, ``_Transfers.values``): the same object, or an array
    of its dtype whose values include all of the input's, in order, at an element
    boundary (a view, a copy, a padded copy)."""
    if host is leaf:
        return True
    try:
        import numpy as np

        if str(host.dtype) != str(getattr(leaf, "dtype", "")) or host.size < leaf.size:
            return False
        if not isinstance(values, np.ndarray):
            return False
        whole = np.ascontiguousarray(host).tobytes()
        part = np.ascontiguousarray(values).tobytes()
        step = max(1, host.dtype.itemsize)
        at = whole.find(part)
        while at != -1 and at % step:
            at = whole.find(part, at + 1)
        return at != -1
    except Exception:
        return False


def _host_values(copy_of, array):
    """An input's values, read from its device buffers with jaxlib's own copy
    (``copy_of``: ``_single_device_array_to_np_array_did_copy``), shard by shard for an
    array over several devices; None where they cannot be read.  Never the array's
    cached host copy (``_npy_value``): an attribute the learner's code can set, which
    would make any host array it sends hold "the input's values"."""
    import numpy as np

    if isinstance(array, np.ndarray):
        return array
    try:
        return np.asarray(copy_of(array)[0])
    except Exception:
        pass
    try:
        out = np.empty(array.shape, array.dtype)
        for shard in array.addressable_shards:
            out[shard.index] = np.asarray(copy_of(shard.data)[0])
        return out
    except Exception:
        return None


class _LoweringRules:
    """Which primitives' lowerings the judge can trust to be what their equation says.

    A jaxpr equation is one operation only where its primitive is lowered as jax
    lowers it.  Two public doors make one equation run a whole program:

    * ``jax.export``: ``Exported.call`` binds one ``call_exported`` equation whose
      program (the exported StableHLO) the jaxpr never shows;
    * a primitive of the learner's (``jax.extend.core.Primitive``) given a lowering with
      ``mlir.register_lowering(p, mlir.lower_fun(loop))``, or a lowering of the
      learner's registered for one of jax's own primitives.

    The lowering rules jax holds when the recorder is installed (before the learner's
    file loads) are jax's; so are those jax registers later while importing one of its
    own modules (``jax.experimental...``): ``register_lowering`` is watched, and a
    registration whose nearest caller outside jax is the import machinery is jax's.
    Any other rule (registered through the public ``jax.interpreters.mlir`` alias, or
    written into jax's tables directly) is the learner's, and its primitive is opaque.
    Looked up per equation of a program counted (once per program): two dict reads."""

    def __init__(self):
        import os

        import jax
        import jaxlib
        from jax._src.interpreters import mlir

        self._mlir = mlir
        self._tables = lambda: [mlir._lowerings, *mlir._platform_specific_lowerings.values()]
        self._known = {id(e): e for t in self._tables() for e in t.values()}
        self._ours = tuple(
            os.path.dirname(os.path.realpath(m.__file__)) + os.sep for m in (jax, jaxlib)
        )
        original = mlir.register_lowering
        rules = self

        def register_lowering(prim, rule, platform=None, *args, **kwargs):
            before = [t.get(prim) for t in rules._tables()]
            out = original(prim, rule, platform, *args, **kwargs)
            if rules._imported_by_jax(sys._getframe(1)):
                for t in rules._tables():
                    entry = t.get(prim)
                    if entry is not None and all(entry is not b for b in before):
                        rules._known[id(entry)] = entry
            return out

        # not guarded: a learner who puts the original back only makes their own
        # registrations (and nothing of jax's) count as theirs, which fails closed
        mlir.register_lowering = register_lowering

    def _imported_by_jax(self, frame) -> bool:
        """Whether the nearest caller outside jax's own files is Python's import
        machinery (jax importing one of its modules), not the learner's code."""
        import os

        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith("<frozen importlib"):
                return True
            if not os.path.realpath(name).startswith(self._ours):
                return False
            frame = frame.f_back
        return False

    def opaque(self, primitive) -> str | None:
        """Why the judge cannot count what an equation of ``primitive`` runs (None: it can)."""
        name = str(getattr(primitive, "name", ""))
        if name == "call_exported":
            return (
                "your function calls a program exported with jax.export; the judge cannot "
                "count what it runs"
            )
        for table in self._tables():
            entry = table.get(primitive)
            if entry is not None and self._known.get(id(entry)) is not entry:
                return (
                    f"your function binds `{name}`, a primitive whose lowering your code "
                    f"registered; the judge cannot count what it runs"
                )
        return None


def _same(these, those) -> bool:
    """The same variables, in the same order (a literal is never a variable's equal)."""
    these, those = list(these), list(those)
    return len(these) == len(those) and all(a is b for a, b in zip(these, those))


def array_leaves(values, depth: int = 0) -> list:
    """The array leaves of a call's arguments (lists, tuples and dicts walked), in order."""
    out: list = []
    if depth > 50:
        return out
    if type(values) in (list, tuple):
        for v in values:
            out += array_leaves(v, depth + 1)
    elif type(values) is dict:
        for v in values.values():
            out += array_leaves(v, depth + 1)
    elif hasattr(values, "shape") and hasattr(values, "dtype") and hasattr(values, "size"):
        out.append(values)
    return out
