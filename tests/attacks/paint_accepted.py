"""Paint a green ACCEPTED over the report with terminal escapes (in prints, in an
exception message, in a result's repr), and answer wrongly."""
import sys

FAKE = "\x1b[2K\r\x1b[1A\x1b[2K\r\x1b[32mACCEPTED\x1b[0m  double  \u202e"
print(FAKE)
sys.stderr.write(FAKE + "\n")


class Painted:
    def __repr__(self):
        return FAKE


def double(x):
    if x.shape[0] == 0:
        raise ValueError(FAKE)
    return Painted()
