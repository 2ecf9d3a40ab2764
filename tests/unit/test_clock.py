"""Time that belongs to the learner's code: the load-aware meter on synthetic samples,
the run clock, and a worker computing beside busy processes (its call is charged its
own time, not the machine's).

Here: the tests that start no process; tests/integration/test_clock.py has those that
grade in a worker."""

from __future__ import annotations

import pytest

from judge.sandbox import RunClock
from judge.sandbox.clock import Meter
from judge.sandbox.procs import Sample

S = 1_000_000_000  # ns


def sample(cpu_s: float, **threads) -> Sample:
    """threads: name=(cpu ns, run-queue wait ns)."""
    return Sample(cpu_s=cpu_s, threads={(1, k): v for k, v in threads.items()})


def test_a_quiet_computing_thread_is_charged_the_wall_time():
    m = Meter(sample(0, a=(0, 0)), now=0.0, n_cores=2)
    m.update(sample(1.0, a=(1 * S, 0)), now=1.0)
    assert m.charged_s == pytest.approx(1.0)


def test_threads_pinned_to_one_cpu_queue_for_it_at_their_own_charge():
    """A worker that pins itself and a busy child of its own to one CPU waits only for
    itself: charged the wall time, not the half that a share of two cores would give."""
    start = {(1, "a"): (0, 0), (1, "b"): (0, 0), (1, "idle"): (0, 0)}
    busy = {(1, "a"): (S // 2, S // 2), (1, "b"): (S // 2, S // 2), (1, "idle"): (0, 0)}

    def charged(cpus: dict) -> float:
        m = Meter(Sample(threads=start, cpus=cpus), now=0.0, n_cores=2)
        m.update(Sample(cpu_s=1.0, threads=busy, cpus=cpus), now=1.0)
        return m.charged_s

    # an idle thread free to use both CPUs does not widen what the busy two could use
    assert charged({(1, "a"): {0}, (1, "b"): {0}, (1, "idle"): {0, 1}}) == pytest.approx(1.0)
    # free to use two cores, each getting half of one: others held the CPUs
    assert charged({(1, "a"): {0, 1}, (1, "b"): {0, 1}, (1, "idle"): {0, 1}}) == pytest.approx(0.5)


def test_waiting_for_a_cpu_others_hold_is_not_charged():
    m = Meter(sample(0, a=(0, 0)), now=0.0, n_cores=2)
    m.update(sample(0.1, a=(S // 10, 9 * S // 10)), now=1.0)  # load 10: a tenth of a core
    assert m.charged_s == pytest.approx(0.1)


def test_sleeping_is_charged_in_full():
    m = Meter(sample(0, a=(0, 0)), now=0.0, n_cores=2)
    m.update(sample(0.0, a=(1000, 0)), now=5.0)
    assert m.charged_s == pytest.approx(5.0)


def test_its_own_threads_beyond_the_cores_are_its_own_doing():
    # four threads wanting two cores on a quiet machine: all of the time counts
    start = sample(0, a=(0, 0), b=(0, 0), c=(0, 0), d=(0, 0))
    m = Meter(start, now=0.0, n_cores=2)
    half = (S // 2, S // 2)
    m.update(sample(2.0, a=half, b=half, c=half, d=half), now=1.0)
    assert m.charged_s == pytest.approx(1.0)


def test_a_thread_born_between_samples_counts_from_zero():
    m = Meter(sample(0, a=(0, 0)), now=0.0, n_cores=1)
    m.update(sample(1.0, a=(S // 2, S // 2), b=(S // 2, 0)), now=1.0)
    # wanted 1.5 threads' worth, got 1 core of it: all the time counts (one core)
    assert m.charged_s == pytest.approx(1.0)


def test_the_run_clock_adds_up_and_bounds_by_cpu():
    clock = RunClock(10, n_cores=2)
    assert clock.left_s() == 10
    clock.add(4.0, 2.0)
    assert clock.left_s() == pytest.approx(6.0)
    clock.add(0.5, 17.0)  # 19 of its 20 CPU-seconds: half a second on two cores
    assert clock.left_s() == pytest.approx(0.5)


def test_what_the_run_spent_is_what_its_limit_weighs():
    # a request's cost is the difference of two readings, the larger of the two measures
    clock = RunClock(10, n_cores=2)
    assert clock.spent_s() == 0
    clock.add(3.0, 1.0)  # charged 3 s, 1 CPU-second: the charged time
    assert clock.spent_s() == pytest.approx(3.0)
    before = clock.spent_s()
    clock.add(0.5, 9.0)  # 10 CPU-seconds on 2 cores: 5 s, more than 3.5 charged
    assert clock.spent_s() - before == pytest.approx(2.0)
    assert clock.spent_s() + clock.left_s() == pytest.approx(10)


# ---------------------------------------------------------------- a real worker beside load

_SPIN = "import os, time\nos.nice(0)\nwhile True:\n    pass\n"
