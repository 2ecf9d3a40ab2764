"""The worker's request loop: read a request from the judge, run it (load the learner's
file, call it, measure it, report), answer, and check the judge's instruments after
every request that ran the learner's code.  Started by ``main.boot``."""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from .arguments import _Arguments, _LearnersFault, _to_argument
from .executions import array_leaves
from .learner_file import (
    SubmissionFile,
    _exit_words,
    _flush_learner_output,
    _is_memory_error,
    _run_learner,
    _text,
)
from .measure import (
    MeasureContext,
    _block,
    _compile_instrument,
    _record_executions,
    _Unmeasurable,
    _WrongResult,
)

if TYPE_CHECKING:
    from .devices import Devices

# ---------------------------------------------------------------- probe fallbacks


class _NoProbe:
    def learner_module(self, module):
        pass

    def begin_call(self, label):
        pass

    def load_events(self):
        return []

    def end_call(self):
        return []

    def report(self, label):
        return {}


class _NoSyncs:
    def begin(self):
        pass

    def end(self):
        return []

    def paused(self):
        return contextlib.nullcontext()


class _Guarded:
    """Delegates to the probe or the sync counter; their failures never reach the learner.

    A failing method returns what the fallback object returns, and the first error is
    kept so the judge can report it.
    """

    def __init__(self, real, fallback):
        self._real, self._fallback = real, fallback
        self.error: str | None = None

    def __getattr__(self, name):
        fallback = getattr(self._fallback, name)

        def call(*args):
            try:
                return getattr(self._real, name)(*args)
            except BaseException as exc:
                self.error = self.error or f"{name}: {type(exc).__name__}: {exc}"
                return fallback(*args)

        return call


@contextlib.contextmanager
def _quietly(cm):
    """Enter and leave a probe's context manager; its failures are not the learner's."""
    try:
        cm.__enter__()
    except Exception:
        cm = None
    try:
        yield
    finally:
        if cm is not None:
            try:
                cm.__exit__(None, None, None)
            except Exception:
                pass


def _log_compiles() -> str | None:
    """Have XLA write a record of every program it compiles into a folder of the worker's
    own (before jax starts: it reads XLA_FLAGS once); the judge counts them from outside
    (judge/compile_log.py).  None when there is nowhere to write."""
    folder = os.path.join(os.environ.get("TMPDIR") or os.getcwd(), ".jj-xla")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={folder}".strip()
    return folder


_RUNS_LEARNER_CODE = ("load", "call", "calls", "measure")


class _Unchecked:
    """Stands for the instruments' check where it could not be made (a probe_error says
    why): nothing to report, and no compile count to cross-check."""

    def changes(self) -> list:
        return []


class _Watch:
    """What the loop reads after every request that ran learner code: the instruments'
    check and the probe's compile count.  One object, bound by the loop before any
    learner code runs and filled in when the probes are made."""

    __slots__ = ("check", "compiles_seen")

    def __init__(self) -> None:
        self.check: Any = None  # Instruments, or _Unchecked where none could be made
        self.compiles_seen: Any = None  # () -> int | None


def _report_instruments(reply, watch: _Watch) -> None:
    """Put into a reply what changed of the instruments and how many compiles the probe
    has seen (its count is cross-checked with XLA's by the judge)."""
    if not isinstance(reply, dict):
        return
    if watch.check is None:
        reply["tampered"] = ["the worker's check of the judge's instruments was removed"]
        return
    changes = watch.check.changes()
    if changes:
        reply["tampered"] = changes
    try:
        seen = watch.compiles_seen()
        if seen is not None:
            reply["compiles_seen"] = int(seen)
    except Exception:
        reply.setdefault("tampered", []).append("the judge's probe could not be read")


def _make_probes(path: str):
    """(probe, syncs, error): empty ones when the probe modules are missing or fail."""
    probe: _NoProbe | _Guarded
    syncs: _NoSyncs | _Guarded
    probe, syncs, errors = _NoProbe(), _NoSyncs(), []
    try:
        from .probe import Probe

        probe = _Guarded(Probe(path), _NoProbe())
    except Exception as exc:
        errors.append(f"probe unavailable: {type(exc).__name__}: {exc}")
    try:
        from .syncs import SyncCounter

        syncs = _Guarded(SyncCounter(path, entry_codes=(_run_learner.__code__,)), _NoSyncs())
    except Exception as exc:
        errors.append(f"sync counter unavailable: {type(exc).__name__}: {exc}")
    return probe, syncs, "; ".join(errors) or None


# ---------------------------------------------------------------- the loop


class Loop:
    # None until the load op sets them (learner, module) and finds the entrypoint
    module: Any
    entry: Any
    submission_file: SubmissionFile

    def __init__(
        self,
        token: bytes,
        cmd_fd: int,
        reply_fd: int,
        t0: float,
        lost_exit: int,
        devices: int | None = None,
        confine_failed: list | None = None,
        compile_log: bool = False,
        no_processes: bool = False,
    ):
        self.token, self.cmd_fd, self.reply_fd, self.t0 = token, cmd_fd, reply_fd, t0
        self.lost_exit = lost_exit  # exit code telling the judge the channel broke
        self.device_count = devices  # a task's `devices: N`; None: jax's own default
        self.devices: Devices | None = None  # devices.Devices once warmed up, for such a task
        self.confine_failed = confine_failed or []
        self.no_processes = no_processes  # refuse process creation once the learner's file runs
        self.pid = os.getpid()
        self.learner_ran = False  # once the learner's file runs, a broken worker is theirs
        self.module = self.entry = self.submission_file = None  # type: ignore[assignment]  # see above
        self.params: list[str] = []  # the entrypoint's parameter names
        self.probe, self.syncs = _NoProbe(), _NoSyncs()
        self.probe_error: str | None = None
        self.instruments: dict = {}
        self.compile_log: str | None = "" if compile_log else None  # XLA's record, once set up
        self.dump_guard = None  # (holder, attribute, wrapper) keeping XLA's record in place
        self.executions = None  # executions.Executions: the programs each call runs
        self._watch = _Watch()  # filled in when the probes are made

    def run(self) -> None:
        from . import wire

        ready = self._warm_up()
        self._send(0, ready, [])
        seq = 1
        # bound now, before any learner code runs: replacing the loop's methods later
        # does not change what this loop calls after every request
        handle, send, watch = self._handle, self._send, self._watch
        armed = False
        while True:
            try:
                header, blobs = wire.read_frame(self.cmd_fd, self.token, seq)
            except EOFError:
                os._exit(0)  # the judge closed the channel: nobody to answer
            except (OSError, wire.WireError):
                os._exit(self.lost_exit)  # the learner's code broke it
            # a probed load installs the instruments before the learner's file runs: from
            # then on they are checked after every request that runs the learner's code
            armed = armed or (header.get("op") == "load" and bool(header.get("probe")))
            reply, out_blobs = handle(header, blobs)
            if armed and header.get("op") in _RUNS_LEARNER_CODE:
                _report_instruments(reply, watch)
            send(seq, reply, out_blobs)
            if header.get("op") == "exit":
                _flush_learner_output()
                os._exit(0)
            seq += 1

    def _warm_up(self) -> dict:
        """Import numpy and jax now, while the judge computes its references."""
        try:
            flags = os.environ.get("XLA_FLAGS")
            if self.compile_log is not None:
                self.compile_log = _log_compiles()
            import jax
            import jax.numpy  # noqa: F401

            if self.device_count:  # set before jax's first operation
                from .devices import Devices

                self.devices = Devices(jax, int(self.device_count))
            found = jax.devices()
            self.executions = _record_executions()
            if self.compile_log:  # a learner's xla_dump_* option must not move the record
                try:
                    from .xla_records import pin_dumps

                    self.dump_guard = pin_dumps()
                except Exception:  # a jax layout change: the cross-check still counts XLA's
                    self.dump_guard = None
            # XLA read its flags once, now: a process the learner's code starts must not
            # write into the judge's compile log
            if flags is None:
                os.environ.pop("XLA_FLAGS", None)
            else:
                os.environ["XLA_FLAGS"] = flags
        except BaseException as exc:
            return {
                "op": "ready",
                "ok": False,
                "error": {"type": type(exc).__name__, "message": _text(exc)},
            }
        return {
            "op": "ready",
            "ok": True,
            "pid": os.getpid(),
            "jax": jax.__version__,
            "boot_s": time.perf_counter() - self.t0,
            "confine_failed": self.confine_failed,
            # said before any learner code runs: the judge opens it now (compile_log)
            "compile_log": self.compile_log or None,
            "devices": {"count": len(found), "platform": found[0].platform},
        }

    def _send(self, seq: int, reply: dict, blobs: list[bytes]) -> None:
        if os.getpid() != self.pid:
            # a copy the learner's code forked, unwound back into the loop: only the
            # worker itself answers the judge
            os._exit(0)
        data = self._pack(seq, reply, blobs)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.reply_fd, view)
            except OSError:
                os._exit(self.lost_exit)
            view = view[n:]

    def _pack(self, seq: int, reply: dict, blobs: list[bytes]) -> bytes:
        """Pack the reply; without the probe data, or as a bare error, if it cannot be sent."""
        from . import wire

        try:
            return wire.pack(self.token, seq, reply, blobs)
        except (TypeError, ValueError, RecursionError):  # WireError is a ValueError
            pass
        stripped = {k: v for k, v in reply.items() if k not in ("traces", "syncs", "report")}
        stripped["probe_error"] = "probe data could not be encoded"
        try:
            return wire.pack(self.token, seq, stripped, blobs)
        except (TypeError, ValueError, RecursionError):
            return wire.pack(self.token, seq, self._broken("the reply could not be encoded"))

    def _handle(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        op: Any = header.get("op")
        handler = {
            "load": self._load,
            "call": self._call,
            "calls": self._calls,
            "measure": self._measure,
            "report": self._report,
            "exit": lambda h, b: ({"ok": True}, []),
        }.get(op)
        if handler is None:
            return self._broken(f"unknown op {op!r}"), []
        try:
            return handler(header, blobs)
        except BaseException as exc:  # the worker's own code failed
            return self._broken(f"{type(exc).__name__}: {_text(exc)}"), []

    def _broken(self, message: str) -> dict:
        """The worker's own failure: the judge's before any learner code ran; after,
        the learner's (it may have exhausted descriptors or patched the worker)."""
        if not self.learner_ran:
            return _judge_error(message)
        return {
            "ok": False,
            "error": {
                "category": "broken",
                "type": "WorkerBroken",
                "traceback": "",
                "line": None,
                "message": f"the worker failed after your code ran ({message}): did the code "
                "exhaust file descriptors or memory, or change the judge's internals?",
            },
        }

    # -- load

    def _load(self, header: dict, blobs) -> tuple[dict, list[bytes]]:
        path, name = header["path"], header["entrypoint"]
        self.submission_file = SubmissionFile(
            path, header.get("display_name") or os.path.basename(path)
        )
        if header.get("x64"):  # a reference computed in float64 (judge validate)
            import jax

            jax.config.update("jax_enable_x64", True)
        if header.get("probe"):
            self.probe, self.syncs, self.probe_error = _make_probes(path)
        # before the learner's file runs, so they hold jax's own functions
        self.instruments = {
            str(spec["name"]): _compile_instrument(spec) for spec in header.get("instruments", [])
        }
        if header.get("probe"):
            self._arm(self.probe, self.syncs)
        if self.no_processes:
            from .confine import refuse_processes

            try:
                refuse_processes()
            except OSError as exc:  # never run the learner's code weaker than planned
                return _judge_error(f"the worker could not refuse process creation: {exc}"), []
        self.learner_ran = True
        error = self._import(path)
        _flush_learner_output()
        if error is None:
            error = self._find_entrypoint(name)
        if error is not None:
            return {"ok": False, "error": error}, []
        # what the file traced and compiled while it loaded (ahead-of-time programs,
        # warm-up calls) counts with what its calls do
        return {
            "ok": True,
            "params": _param_names(self.entry),
            "jitted": _jitted_names(self.module),
            "probe_error": self._probe_error(),
            "compile_log": self.compile_log or None,
            "traces": self.probe.load_events(),
        }, []

    def _arm(self, probe, syncs) -> None:
        """Record the instruments as installed, before the learner's file runs."""
        from .integrity import Instruments

        real_probe = getattr(probe, "_real", None)
        real_syncs = getattr(syncs, "_real", None)
        guards = {
            "the worker's probe": (self, "probe", probe),
            "the worker's sync counter": (self, "syncs", syncs),
        }
        if self.dump_guard is not None:
            guards["the judge's keeper of XLA's compile records"] = self.dump_guard
        for n, guard in enumerate(getattr(self.executions, "guards", ())):
            guards[f"the judge's recorder of the programs your calls run ({n + 1})"] = guard
        if self.executions is not None:
            guards["the worker's recorder of the programs your calls run"] = (
                self,
                "executions",
                self.executions,
            )
        try:
            # what each instrument's setup bound (jax's functions): swapped, it measures
            # whatever the learner's code put there
            bound = {
                f"the judge's {name} instrument": kept
                for name, (_, kept) in self.instruments.items()
                if isinstance(kept, dict)
            }
            self._watch.check = Instruments(
                real_probe, real_syncs, guards, bound, recorder=self.executions
            )
            self._watch.compiles_seen = (
                real_probe.compiles_seen if real_probe is not None else (lambda: None)
            )
        except (
            Exception
        ) as exc:  # a jax layout change: the check is missing, not the learner's fault
            self.probe_error = (
                self.probe_error or ""
            ) + f" instruments unchecked: {type(exc).__name__}: {exc}"
            self._watch.check, self._watch.compiles_seen = _Unchecked(), (lambda: None)

    def _import(self, path: str) -> dict | None:
        spec = importlib.util.spec_from_file_location("submission", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # a .py path has one
        sys.modules["submission"] = module
        self.probe.learner_module(module)
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]  # as above
        except SystemExit as exc:
            return self.submission_file.error(
                "invalid_submission",
                exc,
                f"the file called {_exit_words(exc)} while being imported",
            )
        except BaseException as exc:
            if _is_memory_error(exc):
                return self.submission_file.error("memory", exc)
            err = self.submission_file.error("invalid_submission", exc)
            at = f" (line {err['line']})" if err["line"] else ""
            err["message"] = f"importing the file failed: {err['type']}: {err['message']}{at}"
            return err
        self.module = module
        return None

    def _find_entrypoint(self, name: str) -> dict | None:
        shown = self.submission_file.display_name
        try:
            entry = getattr(self.module, name)
        except BaseException:
            import difflib

            defined = [
                k
                for k, v in vars(self.module).items()
                if callable(v)
                and not k.startswith("_")
                and getattr(v, "__module__", None) == self.module.__name__
            ]
            close = difflib.get_close_matches(name, defined, n=1, cutoff=0.6)
            hint = (
                f" (it defines {close[0]!r}: a typo?)"
                if close
                else (f" (it defines: {', '.join(defined[:5])})" if defined else "")
            )
            return _invalid(f"{shown} defines no function named {name!r}{hint}")
        if not callable(entry):
            return _invalid(f"{name!r} in {shown} is a {type(entry).__name__}, not a function")
        self.entry = entry
        self.params = _param_names(entry)
        return None

    # -- call

    def _calls(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        """Several calls, one reply: the reference's values for a batch of inputs."""
        out_blobs: list[bytes] = []
        replies = [
            self._call(call, blobs, out_blobs, own_request=False)[0]
            for call in header.get("calls", [])
        ]
        return {"ok": True, "replies": replies}, out_blobs

    def _call(
        self,
        header: dict,
        blobs: list[bytes],
        out_blobs: list[bytes] | None = None,
        *,
        own_request: bool = True,
    ) -> tuple[dict, list[bytes]]:
        """One call of the entrypoint.  ``own_request``: the request is this call's alone
        (not one of a trusted batch's, which share their blobs), and is forgotten before
        the function runs."""
        if self.entry is None:
            return self._broken("call before a successful load"), []
        try:
            arguments = self._received(header, blobs, forget=own_request)
        except _LearnersFault as fault:
            return {"ok": False, "error": fault.error}, []
        probe, syncs = (
            (self.probe, self.syncs) if header.get("probe", True) else (_NoProbe(), _NoSyncs())
        )
        probe.begin_call(header.get("label", "call"))
        syncs.begin()
        out_blobs = [] if out_blobs is None else out_blobs
        start = len(out_blobs)
        t = time.perf_counter()
        recording = (
            self.executions.recording()
            if self.executions is not None
            else contextlib.nullcontext(None)
        )
        # the inputs as the call received them: the lists are the call's to rewrite
        # (one frame up, or through gc), and an input swapped for the result would read
        inputs = tuple(array_leaves([arguments.args, arguments.kwargs]))
        try:
            with recording as ran:
                result = _run_learner(self.entry, arguments.args, arguments.kwargs)
                with _quietly(syncs.paused()):
                    _block(result)
            elapsed = time.perf_counter() - t
        except BaseException as exc:
            reply = {"ok": False, "error": self._call_error(exc)}
        else:
            reply = self._encode_result(result, out_blobs, syncs)
            reply["elapsed_s"] = elapsed
            if ran is not None:  # which inputs a program on the device read
                reply["measured"] = {"executed": self.executions.of_call(ran, inputs, result)}
        _flush_learner_output()
        reply["traces"] = probe.end_call()
        reply["syncs"] = syncs.end()
        self._unless_changed(arguments, reply, out_blobs, start)
        return reply, out_blobs

    def _unless_changed(
        self, arguments: "_Arguments", reply: dict, out_blobs: list, start: int
    ) -> None:
        """A call that changed an argument in place answered wrongly, whatever it returned."""
        if not reply.get("ok"):
            return
        try:
            changed = arguments.changed()
        except BaseException as exc:  # an argument the learner turned into something odd
            changed = f"your function changed its arguments in place ({type(exc).__name__})"
        if changed:
            del out_blobs[start:]
            reply.pop("result", None)
            reply.update(
                ok=False,
                error={
                    "category": "wrong",
                    "type": "WrongResult",
                    "message": changed,
                    "traceback": "",
                    "line": None,
                },
            )

    def _received(self, header: dict, blobs: list[bytes], *, forget: bool = True) -> _Arguments:
        """The call's arguments as the function receives them, and what they were before
        it ran; ``forget``: the request's own copy of them is gone once they are made,
        whether or not making them failed (``_forget_arguments``)."""
        try:
            return _Arguments(*self._arguments(header, blobs), self.params)
        finally:
            if forget:
                _forget_arguments(header, blobs)

    def _arguments(self, header: dict, blobs: list[bytes]) -> tuple[list, dict]:
        """The call's arguments as the learner's function receives them.  Making them
        runs jax code (device_put, placing on a mesh) that the learner's file may have
        changed: a failure that passes through their code is theirs."""
        from . import wire

        args = [wire.decode(a, blobs) for a in header.get("args", [])]
        kwargs = {k: wire.decode(v, blobs) for k, v in header.get("kwargs", {}).items()}
        try:
            return (
                [_to_argument(a, self.devices) for a in args],
                {k: _to_argument(v, self.devices) for k, v in kwargs.items()},
            )
        except BaseException as exc:
            replaced = self.devices.tampered() if self.devices is not None else []
            if self.submission_file is None or not (self.submission_file.frames(exc) or replaced):
                raise
            error = self._call_error(exc)
            what = f" ({', '.join(replaced[:3])})" if replaced else ""
            error["message"] = (
                f"passing the arguments failed in code of yours that replaced "
                f"part of jax{what}: {error['message']}"
            )
            raise _LearnersFault(error) from None

    def _measure(self, header: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        """A check kind's instrument at one input: its measurement (JSON), and the value
        it kept, encoded like a call's result."""
        instrument, bound = self.instruments.get(header.get("instrument"), (None, None))
        if self.entry is None or instrument is None:
            return _judge_error(f"no instrument {header.get('instrument')!r} loaded"), []
        try:
            arguments = self._received(header, blobs)
        except _LearnersFault as fault:
            return {"ok": False, "error": fault.error}, []
        args, kwargs = arguments.args, arguments.kwargs
        ctx = MeasureContext(
            self.entry,
            self.submission_file.path if self.submission_file else None,
            bound,
            self.executions,
        )
        self.probe.begin_call(header.get("label", "measure"))
        self.syncs.begin()
        out_blobs: list[bytes] = []
        try:
            measured = instrument(ctx, args, kwargs, header.get("options") or {})
            reply = {"ok": True, "measured": measured}
            if ctx.kept is not MeasureContext._NOTHING:
                encoded = self._encode_result(ctx.kept, out_blobs, self.syncs)
                reply = dict(encoded, measured=measured) if encoded["ok"] else encoded
        except _Unmeasurable as exc:
            reply = {
                "ok": False,
                "error": {
                    "category": "unmeasurable",
                    "type": "Unmeasurable",
                    "message": _text(exc),
                    "traceback": "",
                    "line": None,
                },
            }
        except _WrongResult as exc:
            reply = {
                "ok": False,
                "error": {
                    "category": "wrong",
                    "type": "WrongResult",
                    "message": _text(exc),
                    "traceback": "",
                    "line": None,
                },
            }
        except BaseException as exc:
            # the learner's code raised inside the instrument (a tracer turned into a
            # bool, ...): theirs; an instrument's own failure is the judge's
            learners = self.submission_file.frames(exc) or ctx.raised_inside(exc)
            returned = None if learners else ctx.traced_result(exc)
            if learners:
                reply = {"ok": False, "error": self._call_error(exc)}
            elif returned is not None:
                # jax failed on the learner's function or on what it returned, inside the
                # instrument's call that traced it: the learner's, in their words
                error = self._call_error(exc)
                error["message"] = (
                    f"your function returned a {returned}, which jax could not "
                    f"trace or compile: {error['message']}"
                )
                reply = {"ok": False, "error": error}
            else:
                reply = _judge_error(
                    f"instrument {header.get('instrument')}: {type(exc).__name__}: {_text(exc)}"
                )
        _flush_learner_output()
        reply["traces"] = self.probe.end_call()
        reply["syncs"] = self.syncs.end()
        self._unless_changed(arguments, reply, out_blobs, 0)
        return reply, out_blobs

    def _encode_result(self, result, blobs: list[bytes], syncs) -> dict:
        """The result as a wire node.  Encoding may run the learner's code (a repr, an
        array conversion) and fail like any call."""
        from . import wire

        start = len(blobs)
        try:
            layout_of = self.devices.layout if self.devices is not None else None
            with _quietly(syncs.paused()):
                return {"ok": True, "result": wire.encode(result, blobs, layout_of=layout_of)}
        except BaseException as exc:
            del blobs[start:]
            error = self._call_error(exc)
            error["message"] = f"the result could not be sent to the judge: {error['message']}"
            return {"ok": False, "error": error}

    def _call_error(self, exc: BaseException) -> dict:
        if isinstance(exc, SystemExit):
            return self.submission_file.error("exit", exc, f"called {_exit_words(exc)}")
        if _is_memory_error(exc):
            return self.submission_file.error("memory", exc)
        return self.submission_file.error("exception", exc)

    # -- report

    def _report(self, header: dict, blobs) -> tuple[dict, list[bytes]]:
        report = self.probe.report(header.get("label", "call"))
        return {"ok": True, "report": report, "probe_error": self._probe_error()}, []

    def _probe_error(self) -> str | None:
        """Why probe data is missing or partial, for the judge's log; None when all is well."""
        return (
            self.probe_error
            or getattr(self.probe, "error", None)
            or getattr(self.syncs, "error", None)
        )


def _forget_arguments(header: dict, blobs: list[bytes]) -> None:
    """The request's arguments as they came over the channel, gone before the learner's
    function runs: it could walk up its frames (a traceback's, ``sys._getframe``) or
    search ``gc`` for the handler's header and blobs and decode its inputs from them on
    the host, where no sync is counted and no program reads them, then hand back a device
    array of a host result.  What the function receives is all it has of them.  The
    lists are emptied in place: every frame on the way here holds the same ones."""
    header.pop("args", None)
    header.pop("kwargs", None)
    blobs.clear()


def _invalid(message: str) -> dict:
    return {
        "category": "invalid_submission",
        "type": "InvalidSubmission",
        "message": message,
        "traceback": "",
        "line": None,
    }


def _judge_error(message: str) -> dict:
    return {
        "ok": False,
        "error": {
            "category": "judge",
            "type": "WorkerError",
            "message": message,
            "traceback": "",
            "line": None,
        },
    }


def _param_names(fn) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except BaseException:
        return []


def _jitted_names(module) -> list[str]:
    import jax

    jit_type = type(jax.jit(lambda: 0))
    try:
        return sorted(
            k for k, v in vars(module).items() if isinstance(k, str) and isinstance(v, jit_type)
        )
    except BaseException:  # a learner's object with a hostile __class__
        return []
