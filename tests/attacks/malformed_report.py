"""A right masked_row_sums whose worker answers the judge's request for the script's
report with a record the judge's code would choke on (a trace count that is a word): the
judge must not fail with judge_error."""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)


_M = sys.modules["_jj_worker.main"]
_report = _M.Loop._report


def _odd_report(self, header, blobs):
    reply, sent = _report(self, header, blobs)
    reply["report"] = {"functions": [{"name": "masked_row_sums", "traces": "many"}]}
    return reply, sent


_M.Loop._report = _odd_report
