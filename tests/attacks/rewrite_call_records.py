"""Wasteful masked_row_sums (a slice per row, an int() per row: a retrace and a host
sync for every new length) whose worker's replies are edited on the way out: no trace,
no sync, an empty report.  XLA's own count of compiles still sees every program."""
import sys

import jax.numpy as jnp


def masked_row_sums(values, lengths):
    out = [jnp.sum(values[i, :int(lengths[i])]) for i in range(values.shape[0])]
    return jnp.stack(out) if out else jnp.zeros((0,), values.dtype)


_M = sys.modules["_jj_worker.main"]
_call = _M.Loop._call


def _quiet_call(self, header, blobs, out_blobs=None):
    reply, sent = _call(self, header, blobs, out_blobs)
    reply["traces"], reply["syncs"] = [], []
    reply["compiles_seen"] = 10 ** 9        # the probe's own total: as easily rewritten
    return reply, sent


_M.Loop._call = _quiet_call
_report = _M.Loop._report


def _quiet_report(self, header, blobs):
    reply, sent = _report(self, header, blobs)
    reply["report"] = {"functions": [], "learner_traces": 0, "learner_compiles": 0,
                       "eager": {"traces": 0, "compiles": 0, "ops": {}}, "notes": []}
    return reply, sent


_M.Loop._report = _quiet_report
