"""Where a run's CPU went: the command under BSD process accounting (acct(2), root only),
then the CPU of every process that ran under it, grouped by its line of descent (the
names of its ancestors below the command, as the kernel keeps them: `judge/bwrap/...` is
a learner worker, `judge/python3` a reference worker (trusted: no bwrap), `judge` the
judge's own process). Exact where a sum over /proc is not: a worker reaped through bwrap
and its namespace's init reaches no rusage the judge's parent can read, and a process
that has ended is no longer in /proc. The kernel names a process after the thread that
ended it last, so a learner worker may show as `tf_XLAEigen`; the line of descent still
says what it was.

    sudo python benchmarks/cpu_by_role.py judge batch class --out out --workers 2
    sudo python benchmarks/cpu_by_role.py python benchmarks/bench_serve.py --only throughput

Accounting is machine-wide while it is on; only the command's descendants are counted.
"""

from __future__ import annotations

import collections
import ctypes
import os
import struct
import subprocess
import sys
import tempfile

RECORD = struct.Struct("<BBHIIIIIIfHHHHHHHH16s")  # struct acct_v3 (linux/acct.h)


def seconds(comp_t: int) -> float:
    """comp_t: a 13-bit mantissa and a 3-bit base-8 exponent, in ticks of AHZ (100)."""
    return ((comp_t & 0x1FFF) << (3 * (comp_t >> 13))) / 100


def records(path: str) -> dict[int, tuple[int, str, float, float]]:
    """pid -> (parent pid, name, user s, system s), for every process that ended."""
    out = {}
    with open(path, "rb") as f:
        data = f.read()
    for fields in RECORD.iter_unpack(data[: len(data) - len(data) % RECORD.size]):
        pid, ppid, utime, stime, comm = fields[6], fields[7], fields[10], fields[11], fields[18]
        name = comm.split(b"\0", 1)[0].decode(errors="replace")
        out[pid] = (ppid, name, seconds(utime), seconds(stime))
    return out


def by_line(recs: dict, root: int, depth: int = 4) -> dict[str, list]:
    """Line of descent -> [processes, user s, system s], for ``root`` and all under it."""
    children = collections.defaultdict(list)
    for pid, (ppid, *_) in recs.items():
        children[ppid].append(pid)
    totals: dict[str, list] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    todo = [(root, ())] if root in recs else []
    while todo:
        pid, above = todo.pop()
        _, name, user, system = recs[pid]
        line = (*above, name)[:depth]
        row = totals["/".join(line)]
        row[0] += 1
        row[1] += user
        row[2] += system
        todo += [(kid, line) for kid in children[pid]]
    return totals


def main() -> int:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    libc = ctypes.CDLL(None, use_errno=True)
    fd, path = tempfile.mkstemp(prefix="cpu-by-role-", suffix=".acct")
    os.close(fd)
    if libc.acct(path.encode()) != 0:
        sys.exit(f"acct: {os.strerror(ctypes.get_errno())} (process accounting needs root)")
    try:
        proc = subprocess.Popen(sys.argv[1:])
        code = proc.wait()
    finally:
        libc.acct(None)
    try:
        totals = by_line(records(path), proc.pid)
    finally:
        os.unlink(path)
    rows = sorted(totals.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
    width = max([len(line) for line, _ in rows] + [4])
    print(f"\n{'line':<{width}}  processes    user s  system s")
    for line, (n, user, system) in rows:
        print(f"{line:<{width}}  {n:9d}  {user:8.1f}  {system:8.1f}")
    total = sum(u + s for _, u, s in totals.values())
    print(f"{'all':<{width}}  {sum(n for n, _, _ in totals.values()):9d}  {total:18.1f}")
    return code


if __name__ == "__main__":
    sys.exit(main())
