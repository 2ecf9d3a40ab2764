# expect: wrong_answer via property
# why: returns the first example's answer whatever the input.
def cache_independent_count(x_a, x_b):
    return 6.0
