"""The form chart: one line and one marker shape per person, placed by time and value, names
escaped, dates in the page's language."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from nimmt.people.chart import HEIGHT, WIDTH, form_svg

DAY = datetime(2026, 11, 27, 20, tzinfo=UTC)


def test_lines_follow_the_points_in_time_and_value() -> None:
    svg = form_svg([("Ana", [(DAY + timedelta(days=7), 2.0), (DAY, 6.0)]), ("<Bruno & co>", [(DAY, 3.0)]),
                    ("Carla", [])], title="Forme", axis="têtes de bœuf par manche", language="fr")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "&lt;Bruno &amp; co&gt;" in svg and "<Bruno" not in svg
    [line] = re.findall(r'<polyline points="([^"]+)"', svg)  # Bruno's one point and Carla's none: no line
    (x1, y1), (x2, y2) = [tuple(map(float, point.split(","))) for point in line.split()]
    assert x1 < x2 and y1 < y2  # sorted by time; 6 bullheads a round is drawn above 2
    assert 0 < x1 < x2 < WIDTH and 0 < y1 < y2 < HEIGHT
    assert "27/11/2026" in svg and "04/12/2026" in svg  # the first and last day, as French writes them
    assert svg.count("<circle") == 3 and svg.count("<rect") == 1 + 2  # Ana circles, Bruno squares, the ground


def test_an_empty_league_is_an_empty_chart() -> None:
    svg = form_svg([], title="Form", axis="bullheads per round", language="en")
    assert "<polyline" not in svg and 'aria-label="Form"' in svg
