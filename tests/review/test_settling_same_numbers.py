"""The review's settling of options, made with one NumPy call for every option of a chunk (issue 29,
the command's cost), keeps the same options open as the per-option rule it replaced, on the same
paired numbers."""

from __future__ import annotations

import math

import numpy as np

from nimmt.review import CHOSEN_WHOLE, SETTLED_Z, TIE, _paired, _still_open


def _one_by_one(values: np.ndarray, active: list[int], c: int) -> list[int]:  # type: ignore[type-arg]
    """The rule as it was written before (9ab894d): one paired difference at a time."""
    n = values.shape[1]
    means = values[active].mean(axis=1)
    b = active[int(means.argmin())]
    open_: list[int] = []
    for i in active:
        if i == b:
            continue
        loss, error, _ = _paired(values, i, b, n)
        done = not CHOSEN_WHOLE if i == c else (loss - SETTLED_Z * error > 0 or SETTLED_Z * error - loss <= TIE)
        if not done:
            open_.append(i)
    return [b, *open_] if open_ else []


def test_the_options_left_open_are_those_of_the_rule_one_by_one() -> None:
    rng = np.random.default_rng(29)
    for _ in range(2000):
        k = int(rng.integers(2, 11))
        n = int(rng.choice([64, 96, 128, 256, 512, 1024]))
        spread = int(rng.integers(1, 30))
        values = (rng.integers(0, spread, (k, n)) + rng.integers(0, 4, (k, 1))).astype(np.int64)
        active = sorted(rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False).tolist())
        c = int(rng.integers(0, k))
        assert _still_open(values, active, c) == _one_by_one(values, active, c)


def test_the_paired_numbers_are_numpys_row_by_row() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, 20, (6, 700)).astype(np.int64)
    gaps = values[1:] - values[0]
    for i, (mean, spread) in enumerate(zip(gaps.mean(axis=1).tolist(), gaps.std(axis=1, ddof=1).tolist(),
                                           strict=True)):
        loss, error, one = _paired(values, i + 1, 0, 700)
        assert (loss, one, error) == (mean, spread, spread / math.sqrt(700))
