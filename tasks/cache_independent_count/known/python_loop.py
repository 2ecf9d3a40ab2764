# expect: accepted; retrace passed
# why: right and never jitted: slow, but nothing for the retrace check to count.
def cache_independent_count(x_a, x_b):
    total = 0.0
    for v in list(x_a) + list(x_b):
        total += float(v)
    return total
