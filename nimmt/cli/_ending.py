"""The end of a game told in the terminal: why play goes on after a round or why it ended, the
winners and each player's totals round by round. Shared by ``nimmt play``, ``score`` and ``replay``.

The messages live in the ``common`` domain of :mod:`nimmt.i18n` (``end_*``), so the three commands
say it in the same words. Names are glued with non-breaking spaces, so a narrow terminal wraps a
line between names, never inside one, and drawn isolated (:func:`nimmt.names.isolated`): a name
written right to left, or holding a direction control, never turns the rest of the line around.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from itertools import accumulate

from babel.lists import format_list
from rich.table import Table
from rich.text import Text

from nimmt import i18n
from nimmt.core import Rules
from nimmt.core.ending import Ending, ending
from nimmt.names import isolated

Translate = Callable[..., str]
NBSP = "\u00a0"


def unbreakable(name: str) -> str:
    """A name that a terminal never splits across lines (its spaces become non-breaking), isolated
    from the text around it when it holds right-to-left text (FSI ... PDI: a terminal without
    bidirectional text may draw the isolates, so names in left-to-right text go without)."""
    return NBSP.join(cell(name).split(" "))


def cell(name: str) -> str:
    """A name alone, as a table's cell draws it: isolated like :func:`unbreakable`, free to wrap."""
    return isolated(name, always=False)


def fit(text: str, width: int) -> str:
    """``text`` wrapped to ``width`` columns at its ordinary spaces only: a name glued with
    :func:`unbreakable` stays whole (rich would break at a non-breaking space too, textwrap does not).
    A word longer than the line is left whole rather than cut."""
    def one(line: str) -> str:
        indent = line[: len(line) - len(line.lstrip(" "))]  # continued lines keep the line's indent
        return textwrap.fill(line, width=max(width, 20), subsequent_indent=indent, break_long_words=False,
                             break_on_hyphens=False)

    return "\n".join(one(line) if len(line) > width else line for line in text.split("\n"))


def listing(items: Sequence[str], language: str) -> str:
    """Items as the language lists them ("Ana, Bruno and Carla"; "Ana, Bruno et Carla")."""
    return str(format_list(list(items), locale=language.replace("-", "_")))


class EndTeller:
    """Tells the end of one game in one language; ``countdown`` adds what each player has left, and
    ``you`` (the seat of the person at the terminal) is spoken to ("You have 71")."""

    def __init__(
        self, names: Sequence[str], rules: Rules, language: str, countdown: bool = False, you: int | None = None
    ) -> None:
        self.names = tuple(unbreakable(name) for name in names)
        self.you = you
        self.plain = tuple(names)
        self.rules = rules
        self.language = language
        self.countdown = countdown
        self._ = i18n.translator(language, "common")

    def _player(self, p: int, totals: Sequence[int], with_total: bool) -> str:
        _ = self._
        name, total = self.names[p], totals[p]
        if self.countdown:
            left = self.rules.end_above - total
            if with_total:
                return _("end_name_total_left", player=name, total=total, left=left).replace(" ", NBSP)
            return _("end_name_left", player=name, left=left).replace(" ", NBSP)
        if with_total:
            return _("end_name_total", player=name, total=total).replace(" ", NBSP)
        return name

    def why(self, end: Ending) -> str:
        """One line: why the game is over after this round, or why it goes on."""
        _ = self._
        totals, who = end.totals, end.players
        if end.reason == "rounds":
            return _("end_rounds", rounds=end.rounds)
        if end.reason == "rounds_left":
            return _("end_rounds_left", played=end.rounds_played, rounds=end.rounds)
        if len(who) == 1 and who[0] == self.you and end.reason in ("above", "exactly", "below"):
            return _(f"end_{end.reason}_you", total=totals[who[0]], end_above=end.end_above)
        if end.reason == "above" and len(who) == 1:
            return _("end_above_one", player=self._player(who[0], totals, False), total=totals[who[0]],
                     end_above=end.end_above)
        if end.reason == "above":
            players = listing([self._player(p, totals, True) for p in who], self.language)
            return _("end_above_many", players=players, end_above=end.end_above)
        names = listing([self._player(p, totals, False) for p in who], self.language)
        many = "many" if len(who) > 1 else "one"
        if end.reason == "exactly":
            return _(f"end_exactly_{many}", player=names, players=names, end_above=end.end_above)
        return _(f"end_below_{many}", player=names, players=names, total=totals[who[0]],
                 end_above=end.end_above)

    def after_round(self, totals: Sequence[int], rounds_played: int) -> Ending:
        return ending(self.rules, totals, rounds_played)

    def winners(self, totals: Sequence[int]) -> str:
        """The winners: the lowest total; players who share it share the win."""
        _ = self._
        low = min(totals)
        who = [self.names[p] for p, total in enumerate(totals) if total == low]
        if len(who) == 1 and totals.index(low) == self.you:
            return _("end_winner_you", total=low)
        if len(who) == 1:
            return _("end_winner", player=who[0], total=low)
        return _("end_shared_win", players=listing(who, self.language), total=low)

    def running(self, rounds: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
        """Each player's total after each round (or what is left of the threshold, counting down)."""
        after = list(accumulate(
            (tuple(r) for r in rounds), lambda a, b: tuple(x + y for x, y in zip(a, b, strict=True))
        ))
        if self.countdown:
            return [tuple(self.rules.end_above - t for t in totals) for totals in after]
        return after

    def table(self, rounds: Sequence[Sequence[int]]) -> Table:
        """Totals round by round: a row per player (tables of 10 stay narrow), a column per round."""
        _ = self._
        title = _("end_countdown_title") if self.countdown else _("end_totals_title")
        table = Table(title=title, title_justify="left")
        table.add_column(_("player"), overflow="fold")
        after = self.running(rounds)
        for number in range(1, len(after) + 1):
            table.add_column(str(number), justify="right")
        for p, name in enumerate(self.plain):  # a table wraps its cells itself
            table.add_row(Text(cell(name)), *(str(totals[p]) for totals in after))
        return table

    def lines(self, rounds: Sequence[Sequence[int]]) -> list[str]:
        """Totals round by round as plain lines ("Ana: 12 → 30 → 71"), for ``nimmt replay``."""
        _ = self._
        after = self.running(rounds)
        title = _("end_countdown_title") if self.countdown else _("end_totals_title")
        return [title + ":"] + [
            "  " + _("end_totals_line", player=name, totals=" → ".join(str(t[p]) for t in after))
            for p, name in enumerate(self.names)
        ]
