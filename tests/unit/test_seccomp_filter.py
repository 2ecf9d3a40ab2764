"""The worker's seccomp filter (judge/worker/confine.py) read as what it is, a classic
BPF program, and run here on made-up calls: which are refused, which are decided by
their arguments (a process named by pid must be the caller itself; no file lease),
which pass.  tests/integration/test_forked.py and test_same_uid_calls.py show the
kernel applying it."""

from __future__ import annotations

import struct

import pytest

from judge.worker import confine

X86, ARM = 0xC000003E, 0xC00000B7
ALLOW, EPERM, KILL = confine._RET_ALLOW, confine._RET_EPERM, confine._RET_KILL


def run(prog: list[tuple], nr: int, args=(0,) * 6, arch: int = X86) -> int:
    """The filter's answer for one call: struct seccomp_data, then the BPF machine
    (only the instructions the filter uses: ld abs, jeq, jge, jset, ret)."""
    args = (tuple(args) + (0,) * 6)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *[a & (1 << 64) - 1 for a in args])
    pc, acc = 0, 0
    for _ in range(10_000):
        code, jt, jf, k = prog[pc]
        if code == confine._LD_ABS:
            (acc,) = struct.unpack_from("<I", data, k)
            pc += 1
        elif code in (confine._JEQ, confine._JGE, 0x45):
            hit = (
                acc == k if code == confine._JEQ else acc >= k if code == confine._JGE else acc & k
            )
            pc += 1 + (jt if hit else jf)
        elif code == confine._RET:
            return k
        else:
            raise AssertionError(f"instruction {code:#x} is not one this machine knows")
    raise AssertionError("the program did not return")


@pytest.fixture(scope="module", params=["x86_64", "aarch64"])
def machine(request):
    prog = confine._filter(request.param)
    return prog, confine._CALLS[request.param], {"x86_64": X86, "aarch64": ARM}[request.param]


def test_refused_outright(machine):
    prog, calls, arch = machine
    for name in ("socket", "shmat", "msgrcv", "semop", "mq_open", "memfd_create",
                 "inotify_add_watch", "fanotify_init", "fanotify_mark", "pidfd_open",
                 "open_by_handle_at", "vmsplice", "ptrace", "keyctl",
                 "io_uring_setup"):  # fmt: skip
        assert run(prog, calls[name], arch=arch) == EPERM, name


def test_a_process_named_by_pid_must_be_the_caller(machine):
    prog, calls, arch = machine
    for name in ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setattr"):
        assert run(prog, calls[name], (0, 0, 0), arch) == ALLOW, name  # itself (getrlimit too)
        assert run(prog, calls[name], (4242, 0, 0), arch) == EPERM, name
        assert run(prog, calls[name], (-1, 0, 0), arch) == EPERM, name


def test_priorities_of_the_caller_only(machine):
    prog, calls, arch = machine
    prio_process, prio_pgrp, prio_user = 0, 1, 2
    assert run(prog, calls["setpriority"], (prio_process, 0, 10), arch) == ALLOW
    assert run(prog, calls["setpriority"], (prio_process, 7, 19), arch) == EPERM
    assert run(prog, calls["setpriority"], (prio_user, 0, 19), arch) == EPERM  # all of its uid
    assert run(prog, calls["setpriority"], (prio_pgrp, 0, 19), arch) == EPERM
    who_process, who_user = 1, 3
    assert run(prog, calls["ioprio_set"], (who_process, 0, 0), arch) == ALLOW
    assert run(prog, calls["ioprio_set"], (who_process, 7, 0), arch) == EPERM
    assert run(prog, calls["ioprio_set"], (who_user, 0, 0), arch) == EPERM


def test_no_file_lease_nor_bigger_pipe_but_fcntl_otherwise(machine):
    prog, calls, arch = machine
    f_getfl, f_setlk, f_setlease, f_notify, f_setpipe_sz = 3, 6, 1024, 1026, 1031
    assert run(prog, calls["fcntl"], (3, f_getfl), arch) == ALLOW
    assert run(prog, calls["fcntl"], (3, f_setlk), arch) == ALLOW
    assert run(prog, calls["fcntl"], (3, f_setlease, 1), arch) == EPERM
    assert run(prog, calls["fcntl"], (3, f_notify, 1), arch) == EPERM
    assert run(prog, calls["fcntl"], (3, f_setpipe_sz, 1 << 20), arch) == EPERM


def test_everything_else_passes_and_foreign_calls_are_killed(machine):
    prog, calls, arch = machine
    used = set(calls.values())
    for nr in range(0, 460):
        if nr not in used:
            assert run(prog, nr, arch=arch) == ALLOW, nr
    other = ARM if arch == X86 else X86
    assert run(prog, 0, arch=other) == KILL
    if arch == X86:
        assert run(prog, 0x40000000 + 1, arch=arch) == EPERM  # the x32 ABI
