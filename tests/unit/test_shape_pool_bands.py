"""The shape pool covers every dimension's range: no band of sizes wider than a small
fraction of it is left out (issue 20: huber wrong only for 40 < n < 64 was accepted)."""

import pytest

from judge.specs import Dim, shape_pool, size_bands

SEEDS = range(30)


def sizes(pool, name):
    return sorted({assign[name] for assign in pool})


@pytest.mark.parametrize("high", [8, 16, 32, 64, 300])
def test_every_run_of_a_quarter_of_the_range_holds_a_pool_size(high):
    run = 2 * -(-high // 8) - 1  # the guarantee the module states
    for seed in SEEDS:
        have = set(sizes(shape_pool([Dim("n", 0, high)], seed, 8), "n"))
        for start in range(0, high - run + 2):
            assert have & set(range(start, start + run)), (seed, start, run, sorted(have))


def test_the_mid_band_h06_hides_in_is_drawn_for_every_seed():
    for seed in SEEDS:
        assert any(40 < n < 64 for n in sizes(shape_pool([Dim("n", 0, 64)], seed, 8), "n")), seed


def test_each_of_two_dimensions_is_covered_band_by_band():
    dims = [Dim("B", 0, 16), Dim("T", 0, 32)]
    for seed in SEEDS:
        pool = shape_pool(dims, seed, 8)
        for d in dims:
            have = sizes(pool, d.name)
            for a, b in d.strata():
                assert any(a <= n <= b for n in have), (seed, d.name, (a, b), have)
        assert any(20 < assign["T"] < 28 and assign["B"] > 0 for assign in pool), seed


def test_a_small_range_holds_every_size():
    assert sizes(shape_pool([Dim("d", 1, 8)], 3, 4), "d") == list(range(1, 9))


def test_split_dimensions_keep_their_step():
    d = Dim("n", 0, 64, step=8)
    assert all(n % 8 == 0 for n in sizes(shape_pool([d], 5, 8), "n"))
    assert sizes(shape_pool([d], 5, 8), "n") == list(range(0, 65, 8))


def test_edges_come_first_and_the_pool_is_the_same_for_a_seed():
    dims = [Dim("n", 0, 64), Dim("m", 0, 64)]
    pool = shape_pool(dims, 11, 8)
    assert pool[:3] == [{"n": 0, "m": 0}, {"n": 1, "m": 1}, {"n": 64, "m": 64}]
    assert pool == shape_pool(dims, 11, 8)
    assert pool != shape_pool(dims, 12, 8)
    assert len(pool) == len({tuple(sorted(a.items())) for a in pool})  # no shape twice


def test_bands_double_below_the_linear_width_then_stay_even():
    assert size_bands(2, 63, 64) == [
        (2, 3),
        (4, 7),
        (8, 15),
        (16, 23),
        (24, 31),
        (32, 39),
        (40, 47),
        (48, 55),
        (56, 63),
    ]
