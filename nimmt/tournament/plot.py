"""A picture of a tournament: penalty per round with 95% intervals, and win shares (PNG)."""

from __future__ import annotations

from pathlib import Path

from .stats import Summary


def plot(summary: Summary, path: str | Path) -> Path:
    """Write a PNG of ``summary`` to ``path`` (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    entries = summary.entries
    labels = [s.label for s in entries]
    means = [s.penalty_per_round.mean for s in entries]
    errors = [s.penalty_per_round.half_width or 0.0 for s in entries]
    shares = [s.win_share.mean for s in entries]
    share_errors = [s.win_share.half_width or 0.0 for s in entries]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    positions = list(range(len(labels)))
    left.bar(positions, means, yerr=errors, capsize=4, color="#4c72b0")
    left.set_xticks(positions, labels, rotation=30, ha="right")
    left.set_ylabel("bullheads per round (mean, 95% CI)")
    left.set_title("Penalty per round (lower is better)")
    right.bar(positions, shares, yerr=share_errors, capsize=4, color="#55a868")
    right.set_xticks(positions, labels, rotation=30, ha="right")
    right.set_ylabel("share of games won (95% CI)")
    right.set_ylim(0, 1)
    right.set_title("Win share")
    figure.suptitle(f"{summary.games} games, {summary.deal_sets} duplicate deal sets")
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target, dpi=100)
    plt.close(figure)
    return target
