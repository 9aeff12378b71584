"""Confidence intervals that ``nimmt simulate`` and the tournaments share (standard library only, so
that a command needing one interval does not load a whole tournament)."""

from __future__ import annotations

import math


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% with z = 1.96): never of zero width with a finite
    sample, even at 0% or 100% (``successes`` may be fractional: a shared win counts its share).

    >>> [round(b, 4) for b in wilson(100, 100)]
    [0.963, 1.0]
    >>> [round(b, 4) for b in wilson(0, 10)]
    [0.0, 0.2775]
    >>> [round(b, 4) for b in wilson(5, 10)]
    [0.2366, 0.7634]
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    spread = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, centre - spread), min(1.0, centre + spread))
