# expect: wrong_answer via examples, property
# why: adds in NumPy float64 and returns that: the right numbers in twice the memory, not float32.
import numpy as np


def canonical_pair_sum(pair):
    if isinstance(pair, dict):
        pair = (pair["a"], pair["b"])
    a, b = (np.asarray(v, dtype=np.float64) for v in pair)
    return a + b
