"""How a worker ended, in the learner's words: deaths.explain is a pure function of the
wait status, the judge's kill reason and what was measured; no process is started here."""

from __future__ import annotations

import signal

import pytest

from judge.sandbox.deaths import Facts, WorkerFailure, explain, signal_and_code


def exited(code: int) -> int:
    return code << 8


def killed(sig: int) -> int:
    return sig


@pytest.mark.parametrize(
    "status, wrapped, expected",
    [
        (exited(0), False, (None, 0)),
        (exited(3), False, (None, 3)),
        (killed(signal.SIGSEGV), False, (signal.SIGSEGV, None)),
        (exited(128 + signal.SIGKILL), True, (signal.SIGKILL, None)),  # bwrap's way of saying it
        (exited(128 + signal.SIGKILL), False, (None, 128 + signal.SIGKILL)),
    ],
)
def test_signal_and_code(status, wrapped, expected):
    assert signal_and_code(status, wrapped) == expected


def test_exit_code_names_os_exit():
    f = explain("call", exited(3), None, Facts())
    assert (f.kind, f.where) == ("exited", "call")
    assert f.message == "your code ended the process with exit code 3 (as os._exit(3) does)"
    assert f.detail["exit_code"] == 3


def test_a_signal_is_a_crash_and_named_in_words():
    f = explain("call", killed(signal.SIGSEGV), None, Facts())
    assert f.kind == "crashed"
    assert f.message == "your code crashed the process with SIGSEGV (segmentation fault)"


def test_bubblewrap_exit_128_plus_n_is_signal_n():
    f = explain("call", exited(128 + signal.SIGABRT), None, Facts(wrapped=True))
    assert f.kind == "crashed" and "SIGABRT" in f.message


def test_sigxcpu_is_the_runs_cpu_limit():
    f = explain("call", killed(signal.SIGXCPU), None, Facts(run_timeout_s=60, cores=2))
    assert f.kind == "timeout"
    assert "60 s on each of 2 cores" in f.message


def test_the_lost_channel_exit_is_a_protocol_failure():
    f = explain("call", exited(71), None, Facts(lost_exit=71))
    assert f.kind == "protocol" and "file descriptors it does not own" in f.message


def test_a_death_before_any_learner_code_is_for_the_judges_log():
    f = explain("start", exited(1), None, Facts(stderr="x" * 5000 + "ImportError: no numpy"))
    assert (f.kind, f.where) == ("exited", "start")
    assert f.message == "the worker failed to start (exit code 1)"
    assert f.detail["stderr"].endswith("ImportError: no numpy") and len(f.detail["stderr"]) == 2000


@pytest.mark.parametrize(
    "scope, words",
    [
        ("call", "your code ran longer than the 2.5 s limit for one call"),
        ("load", "importing your file took longer than the 2.5 s limit"),
        ("run", "your code ran longer than the 2.5 s limit for the whole run"),
    ],
)
def test_time_is_worded_by_scope(scope, words):
    f = explain("call", None, "time", Facts(limit_s=2.5, scope=scope, charged_s=2.5, wall_s=2.6))
    assert f.kind == "timeout" and f.message == words
    assert f.detail["charged_s"] == 2.5


def test_a_busy_machine_is_mentioned_when_the_clock_ran_long():
    f = explain("call", None, "time", Facts(limit_s=2.5, charged_s=2.5, wall_s=15.8))
    assert f.message == (
        "your code ran longer than the 2.5 s limit for one call (the machine "
        "was busy: that took 15.8 s on the clock, of which 2.5 s count)"
    )


def test_cpu_time_says_how_much_and_why():
    f = explain("call", None, "cpu", Facts(limit_s=10, cores=2, cpu_s=20.4))
    assert f.kind == "timeout"
    assert f.message == (
        "your code used 20.4 s of CPU time (all its threads together), more "
        "than 20 s: the 10 s limit for one call on each of 2 cores"
    )


def test_the_wall_backstop_is_the_judges_fault():
    f = explain("call", None, "wall", Facts(limit_s=2.5, charged_s=0.4, wall_s=25))
    assert f.kind == "overloaded"
    assert "not your fault" in f.message and "0.4 s of its 2.5 s" in f.message


@pytest.mark.parametrize(
    "reason, kind, words",
    [
        ("memory", "memory", "your code used more than the 512 MB memory limit"),
        ("processes", "processes", "more than 256 processes and threads at once"),
        ("disk", "disk", "more than the 64 MB its scratch space"),
    ],
)
def test_limits_the_watch_enforces(reason, kind, words):
    f = explain("call", exited(0), reason, Facts(memory_mb=512, peak_mb=600))
    assert f.kind == kind and words in f.message


def test_every_kind_maps_to_a_verdict():
    from judge.session import FAILURE_VERDICTS

    assert set(FAILURE_VERDICTS) == set(WorkerFailure.KINDS)
    with pytest.raises(ValueError):
        WorkerFailure("bogus", "x")
