"""A picture of a tournament: penalty per round with 95% intervals, and win shares (PNG).

Its titles and labels are in the language asked for (the ``sim`` messages of :mod:`nimmt.i18n`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nimmt.i18n import DEFAULT_LANGUAGE, translator

from .stats import Summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def figure(summary: Summary, language: str = DEFAULT_LANGUAGE) -> Figure:
    """The chart of ``summary`` as a matplotlib figure (no display needed); close it when done."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _ = translator(language, "sim")
    entries = summary.entries
    labels = [s.label for s in entries]
    means = [s.penalty_per_round.mean for s in entries]
    errors = [s.penalty_per_round.half_width or 0.0 for s in entries]
    shares = [s.win_share.mean for s in entries]
    # A win share's interval is not symmetric (Wilson's near 0 or 1): below and above the bar.
    share_errors = [
        [s.win_share.mean - (s.win_share.low if s.win_share.low is not None else s.win_share.mean) for s in entries],
        [(s.win_share.high if s.win_share.high is not None else s.win_share.mean) - s.win_share.mean for s in entries],
    ]
    chart, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    positions = list(range(len(labels)))
    left.bar(positions, means, yerr=errors, capsize=4, color="#4c72b0")
    left.set_xticks(positions, labels, rotation=30, ha="right")
    left.set_ylabel(_("plot_penalty_axis"))
    left.set_title(_("plot_penalty_title"))
    right.bar(positions, shares, yerr=share_errors, capsize=4, color="#55a868")
    right.set_xticks(positions, labels, rotation=30, ha="right")
    right.set_ylabel(_("plot_wins_axis"))
    right.set_ylim(0, 1)
    right.set_title(_("plot_wins_title"))
    chart.suptitle(_("plot_title", games=summary.games, sets=summary.deal_sets))
    chart.tight_layout()
    return chart


def plot(summary: Summary, path: str | Path, language: str = DEFAULT_LANGUAGE) -> Path:
    """Write a PNG of ``summary`` to ``path``, its texts in ``language``."""
    chart = figure(summary, language)
    import matplotlib.pyplot as plt  # after figure(), which chose the Agg backend

    target = Path(path)
    try:
        chart.savefig(target, dpi=100)
    finally:
        plt.close(chart)
    return target
