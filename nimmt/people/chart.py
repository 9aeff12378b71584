"""A group's form over time as an SVG chart, drawn here so that pages need no chart library (the
pages' Content-Security-Policy loads nothing from elsewhere).

One line per person: after each of their games, their bullheads per round lately (lower is
better), on a time axis. Lines differ by colour and by marker, so the chart reads without colour too.

>>> from datetime import datetime, timezone
>>> day = datetime(2026, 11, 27, tzinfo=timezone.utc)
>>> svg = form_svg([("Ana", [(day, 4.0)])], title="Form", axis="bullheads per round", language="en")
>>> svg.startswith("<svg") and "Ana" in svg and svg.count("<circle") == 2  # the point and its legend
True
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

from babel.dates import format_date
from babel.numbers import format_decimal

# Small enough that its texts stay readable on a phone, where it is drawn about 300 pixels wide.
WIDTH, HEIGHT = 480, 280
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 14, 14, 58
# Okabe and Ito's colours (not their yellow, faint on a light ground), told apart by people who see
# colours differently, and by a marker each.
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
_MARKERS = ("circle", "square", "diamond", "triangle")
_LEGEND_ROW = 26

Series = tuple[str, Sequence[tuple[datetime, float]]]


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>'
    if kind == "square":
        return f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{colour}"/>'
    if kind == "diamond":
        return f'<path d="M{x:.1f} {y - 6.5:.1f}l6.5 6.5l-6.5 6.5l-6.5-6.5z" fill="{colour}"/>'
    return f'<path d="M{x:.1f} {y - 6:.1f}l6 11h-12z" fill="{colour}"/>'


def form_svg(series: Sequence[Series], *, title: str, axis: str, language: str, whole: bool = False) -> str:
    """The chart of ``series`` (a label and its (when, value) points each); texts in ``language``.
    The value axis runs from 0 up; with ``whole``, around the values (a rating near 1000), in whole numbers."""
    left = _LEFT + (12 if whole else 0)  # room for four digits
    drawn = [(label, sorted(points)) for label, points in series if points]
    legend_rows = (len(series) + 1) // 2
    height = HEIGHT + legend_rows * _LEGEND_ROW
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" '
             f'aria-label="{escape(title)}" class="form-chart"><title>{escape(title)}</title>',
             # Its own light ground: shown as an image, it cannot follow the page's theme.
             '<style>text{font:16px system-ui,sans-serif;fill:#1d1d1b}.grid{stroke:#1d1d1b;stroke-opacity:.15}</style>',
             f'<rect width="{WIDTH}" height="{height}" rx="6" fill="#fffdf7"/>']
    times = [when.timestamp() for _, points in drawn for when, _ in points]
    values = [value for _, points in drawn for _, value in points]
    low_t, high_t = (min(times), max(times)) if times else (0.0, 1.0)
    top = max(values, default=1.0)
    top = max(1.0, float(int(top) + 1))
    bottom = 0.0
    if whole and values:  # a scale around the values, in steps of 10
        bottom = float(int(min(values) // 10 * 10) - 10)
        top = float(int(max(values) // 10 * 10) + 20)
    plot_w, plot_h = WIDTH - left - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def x_of(when: datetime) -> float:
        span = high_t - low_t
        return left + (plot_w / 2 if span == 0 else (when.timestamp() - low_t) / span * plot_w)

    def y_of(value: float) -> float:
        return _TOP + plot_h - (value - bottom) / (top - bottom) * plot_h

    for step in range(5):
        value = bottom + (top - bottom) * step / 4
        y = y_of(value)
        label = format_decimal(value, "0" if whole else "0.0", locale=language.replace("-", "_"))  # "6,5" in fr
        parts.append(f'<line class="grid" x1="{left}" x2="{WIDTH - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    if times:
        first, last = min(when for _, points in drawn for when, _ in points), \
            max(when for _, points in drawn for when, _ in points)
        locale = language.replace("-", "_")
        parts.append(f'<text x="{left}" y="{HEIGHT - 34}">{escape(format_date(first, "short", locale=locale))}</text>')
        if format_date(last, "short", locale=locale) != format_date(first, "short", locale=locale):
            parts.append(f'<text x="{WIDTH - _RIGHT}" y="{HEIGHT - 34}" text-anchor="end">'
                         f'{escape(format_date(last, "short", locale=locale))}</text>')
    # What the values are, under the time axis (its own line: long in some languages).
    fit = min(WIDTH - 8, 8 * len(axis))  # squeezed a little when it is longer than the chart is wide
    parts.append(f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT - 10}" text-anchor="middle" textLength="{fit}"'
                 f' lengthAdjust="spacingAndGlyphs">{escape(axis)}</text>')
    for index, (label, points) in enumerate(series):
        colour, marker = COLOURS[index % len(COLOURS)], _MARKERS[index % len(_MARKERS)]
        spots = [(x_of(when), y_of(value)) for when, value in sorted(points)]
        if len(spots) > 1:
            line = " ".join(f"{x:.1f},{y:.1f}" for x, y in spots)
            parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="3"/>')
        parts.extend(_marker(marker, x, y, colour) for x, y in spots)
        lx = 10 + (index % 2) * (WIDTH // 2)
        ly = HEIGHT + (index // 2) * _LEGEND_ROW + 8
        parts.append(_marker(marker, lx + 6, ly, colour))
        parts.append(f'<text x="{lx + 18}" y="{ly + 6}"><tspan dir="auto">{escape(label)}</tspan></text>')
    parts.append("</svg>")
    return "".join(parts)
