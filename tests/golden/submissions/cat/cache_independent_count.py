# expect: inefficient via host_sync
# dodge: host_compute
# why: right and never jitted, a Python loop of float(v) over the elements: every value
# is pulled back to the host (the default host-sync count), and nothing ran on the device.
def cache_independent_count(x_a, x_b):
    total = 0.0
    for v in list(x_a) + list(x_b):
        total += float(v)
    return total
