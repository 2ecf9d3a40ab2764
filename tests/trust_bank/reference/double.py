# The reference of the trust bank.  A submission that finds and imports this file gets
# it right; the trust tests make sure none can.
def double(x):
    return x * 2
