# expect: wrong_answer via examples, property
# why: review-trust: returns a numpy masked constant (float64).  The examples say "wrong
#   dtype", but the jaxpr instrument then hits jax's ValueError for masked arrays inside its
#   own make_jaxpr, and the run ends judge_error (exit 3) in both modes.  The return value
#   is the learner's mistake, not the judge's.
import numpy as np


def safe_mean(x):
    return np.ma.masked_array([1.0], mask=[True])[0]
