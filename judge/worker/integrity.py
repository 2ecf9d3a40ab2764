"""Are the judge's instruments still in place?  Checked in the worker after every request.

A learner's code runs in the worker's own process, so it can reach the probe, the sync
counter and jax's monitoring listeners, and undo them in a few lines: clear the
listeners (``jax._src.monitoring._scalar_listeners.clear()``), find the probe through
``gc`` and swap a method, restore the sync counter's originals.  ``Instruments`` records
what the instruments look like when they are installed (before the learner's file runs)
and ``changes()`` lists what is no longer so, in words a person reads; the worker sends
them with its reply and the judge gives a submission that touched the instruments a
verdict that says so.

What it checks: jax.monitoring's listener lists (the same lists, with the probe's
listeners in them) and its record functions; the probe's and the sync counter's
classes (every method), the objects they keep, and their module's functions; every
attribute the sync counter patched (jax arrays' methods, numpy's functions and ufuncs,
the buffer-protocol hook); jax's jit builder (``_cpp_pjit``) still the probe's wrapper; the counter's
per-thread state back at rest after the call.  This is the first line only: a learner
who finds this checker in memory can edit it too, which is why the judge also counts
XLA's compiles where the learner cannot reach (``judge/compile_log.py``).
"""

from __future__ import annotations

import threading

_GONE = object()


def _functions_of(module) -> dict:
    name = module.__name__
    return {
        k: v
        for k, v in vars(module).items()
        if getattr(v, "__module__", None) == name and callable(v)
    }


def _class_dict(cls) -> dict:
    return dict(vars(cls))


class Instruments:
    def __init__(self, probe, counter, guards: dict, bound: dict | None = None, recorder=None):
        """``probe`` and ``counter``: the real Probe and SyncCounter; ``guards``: name ->
        (holder, attribute, expected object), the worker's own references to them;
        ``bound``: name -> the dict an instrument's setup bound (its entries must stay);
        ``recorder``: the Executions that records the programs each call runs (its
        class and module, whose ``inputs_read`` the off-device rule rests on)."""
        import jax
        from jax._src import monitoring

        from . import probe as probe_module
        from . import syncs as syncs_module

        self._monitoring = monitoring
        self._lists = {
            name: getattr(monitoring, name)
            for name in ("_scalar_listeners", "_event_duration_secs_listeners")
        }
        self._record = {
            name: getattr(monitoring, name)
            for name in ("record_scalar", "record_event_duration_secs", "record_event")
        }
        self._probe, self._counter = probe, counter
        self._jax = jax
        self._objects = []  # (what, holder, attribute, expected)
        self._classes = []  # (what, class, its dict)
        self._modules = []  # (what, module, its functions)
        if probe is not None:
            self._classes.append(("the judge's probe", type(probe), _class_dict(type(probe))))
            self._modules.append(("the judge's probe", probe_module, _functions_of(probe_module)))
            for attribute in ("_events", "_groups", "_open", "_source", "_built"):
                self._objects.append(
                    ("the judge's probe", probe, attribute, getattr(probe, attribute))
                )
            self._events = len(probe._events)
        if counter is not None:
            self._syncs = syncs_module
            self._patches = syncs_module.installed()
            self._classes.append(
                ("the judge's sync counter", type(counter), _class_dict(type(counter)))
            )
            self._modules.append(
                ("the judge's sync counter", syncs_module, _functions_of(syncs_module))
            )
            self._objects.append(("the judge's sync counter", syncs_module, "_current", counter))
        if recorder is not None:
            from . import executions as executions_module

            what = "the judge's recorder of the programs your calls run"
            for cls in (type(recorder), type(recorder._transfers)):
                self._classes.append((what, cls, _class_dict(cls)))
            self._modules.append((what, executions_module, _functions_of(executions_module)))
            self._objects.append((what, recorder, "_transfers", recorder._transfers))
            buffers = recorder._transfers.buffers
            self._objects.append((what, recorder._transfers, "buffers", buffers))
        for what, (holder, attribute, expected) in guards.items():
            self._objects.append((what, holder, attribute, expected))
        # immutable snapshots: what a learner finds through gc and edits is the dict
        self._bound = tuple(
            (what, mapping, tuple(mapping.items())) for what, mapping in (bound or {}).items()
        )

    def changes(self) -> list[str]:
        """What the learner's code changed of the instruments (empty: nothing), or, if the
        check itself fails, that it could not be made (a learner who broke its ground)."""
        try:
            return self._changes()
        except Exception as exc:
            return [f"the judge's instruments could not be checked ({type(exc).__name__})"]

    def _changes(self) -> list[str]:
        found = []
        monitoring = self._monitoring
        for name, original in self._lists.items():
            if getattr(monitoring, name, None) is not original:
                found.append(f"jax.monitoring's {name} was replaced")
        probe = self._probe
        if probe is not None:
            if probe._on_start not in self._lists["_scalar_listeners"]:
                found.append("the judge's jax.monitoring listeners were removed")
            if probe._on_end not in self._lists["_event_duration_secs_listeners"]:
                found.append("the judge's jax.monitoring timing listener was removed")
            if len(probe._events) < self._events:
                found.append("events the judge's probe recorded were deleted")
            self._events = max(self._events, len(probe._events))
            if probe._built._module._cpp_pjit is not probe._built.wrapper:
                found.append("jax's jit builder (jax._src.pjit._cpp_pjit) was replaced")
        for name, original in self._record.items():
            if getattr(monitoring, name, None) is not original:
                found.append(f"jax.monitoring's {name} was replaced")
        for what, cls, members in self._classes:
            changed = sorted(
                k for k in set(members) | set(vars(cls)) if vars(cls).get(k) is not members.get(k)
            )
            if changed:
                found.append(f"{what} was changed ({cls.__name__}.{changed[0]})")
        for what, module, functions in self._modules:
            changed = sorted(k for k, v in functions.items() if vars(module).get(k) is not v)
            if changed:
                found.append(
                    f"{what} was changed ({module.__name__.rsplit('.', 1)[-1]}.{changed[0]})"
                )
        for what, holder, attribute, expected in self._objects:
            if getattr(holder, attribute, None) is not expected:
                found.append(f"{what} was replaced ({attribute})")
        for what, mapping, items in self._bound:
            changed = [k for k, v in items if mapping.get(k, _GONE) is not v]
            if changed or len(mapping) != len(items):
                found.append(f"{what} was changed ({(changed or ['an entry'])[0]})")
        if self._counter is not None:
            moved = self._syncs.patches_in_place(self._patches)
            if moved:
                found.append(
                    f"the judge's sync counter was undone ({', '.join(moved[:3])}"
                    + (f" and {len(moved) - 3} more" if len(moved) > 3 else "")
                    + ")"
                )
            if self._counter._shrunk:
                found.append("records the judge's sync counter kept were deleted")
            state = self._syncs._thread
            if threading.current_thread() is threading.main_thread() and (
                state.paused or state.busy or state.reading is not None
            ):
                found.append("the judge's sync counter was switched off (its thread state)")
        return list(dict.fromkeys(found))
