"""judge/sandbox/beneath.py: the judge's only ways to act in a folder the learner can
write.  Links are never followed (openat2 and its per-component fallback alike), no
path leaves the descriptor, and the walks hold a bounded number of descriptors however
deep a learner nests its folders.

Here: the two that fill a kernel limit (an inotify queue's worth of files, 1500 nested
folders): no process, but seconds of file system work on a busy machine.
tests/unit/test_beneath.py has the rest."""

from __future__ import annotations

import os
import resource

from judge.compile_log import MARK, CompileLog
from judge.sandbox import beneath


def _nest(top, depth: int) -> None:
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as f:
        f.write("x" * 5000)
    os.close(fd)


def test_walks_hold_few_descriptors_however_deep_the_tree(tmp_path):
    """1500 nested folders, walked and removed with at most 64 descriptors open."""
    top = tmp_path / "deep"
    top.mkdir()
    _nest(str(top), 1500)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    fd = beneath.open_dir(str(top))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    try:
        size, entries = beneath.tree_bytes(fd, 10_000)
        assert entries == 1501 and size >= 5000
        assert beneath.tree_bytes(fd, 100)[1] == 100  # bounded, as asked
        beneath.remove_tree(str(top))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        os.close(fd)
    assert not top.exists()


def test_a_compile_log_that_lost_events_is_tampered_with(tmp_path):
    """More files made in the records' folder than the kernel queues events for: the
    compiles among them would go uncounted, so the count says it was flooded."""
    limit = int(open("/proc/sys/fs/inotify/max_queued_events").read())
    log = CompileLog(str(tmp_path))
    fd = os.open(tmp_path, os.O_RDONLY)
    for i in range(limit + 10):
        os.close(os.open(f"f{i}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(os.open(f"module_0001.jit_f{MARK}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
    os.close(fd)
    log.count()
    assert log.problem and "overflowed" in log.problem
    log.close()
