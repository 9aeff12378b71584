"""``nimmt puzzle``: the puzzle of the day, a position from a real game where one choice is clearly
best (:mod:`nimmt.puzzles`), answered with the review's numbers."""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Annotated

import typer

from nimmt import i18n
from nimmt.core import BULLHEADS

from ._common import choose_language, number


def register(app: typer.Typer) -> None:
    @app.command()
    def puzzle(
        day: Annotated[
            str | None, typer.Option("--day", help="The day of the puzzle, YYYY-MM-DD (default: today).")
        ] = None,
        answer: Annotated[
            int | None, typer.Option("--answer", help="Your answer (a card, or a row from 1 to 4), without asking.")
        ] = None,
        json_output: Annotated[bool, typer.Option("--json", help="The puzzle and its answer as JSON.")] = False,
        lang: Annotated[
            str | None, typer.Option("--lang", help="Language: en, pt-PT, pt-BR, fr, de, es.")
        ] = None,
    ) -> None:
        """The puzzle of the day: which card (or row) now? Answered with the review's numbers."""
        from babel.dates import format_date

        from nimmt.puzzles import PuzzleError, of_day

        language = choose_language(lang, "puzzle")
        _ = i18n.translator(language, "puzzle")
        try:
            when = date.today() if day is None else date.fromisoformat(day)
        except ValueError:
            typer.echo("nimmt puzzle: " + _("bad_day", day=day), err=True)
            raise typer.Exit(2) from None
        found = of_day(when)
        shift = 1 if found.kind == "row" else 0  # people count rows from 1
        if json_output:
            sys.stdout.write(json.dumps({"day": when.isoformat(), **found.to_json()}, ensure_ascii=False) + "\n")
            return
        heads = [sum(BULLHEADS[c] for c in row) for row in found.rows]
        typer.echo(_("title", day=format_date(when, format="long", locale=language.replace("-", "_")),
                     players=found.players, round=found.round, turn=found.turn))
        for index, row in enumerate(found.rows):
            count = _("heads_one" if heads[index] == 1 else "heads_many", count=heads[index])
            typer.echo(_("row", row=index + 1, cards=" ".join(map(str, row)), bullheads=count))
        typer.echo(_("public", cards=", ".join(map(str, found.public)) or "–"))
        typer.echo(_("hand", cards=" ".join(map(str, found.hand)) or "–"))
        if found.kind == "row":
            typer.echo(_("low_card", card=found.card))
        options = [option + shift for option, _e, _s in found.options]
        while True:
            if answer is None:
                # Read by hand, not typer.prompt: it turns both an ended input and Ctrl-C into a bare "Aborted!".
                typer.echo(_("ask_row" if found.kind == "row" else "ask_card") + " ", nl=False)
                try:
                    line = sys.stdin.readline()
                except KeyboardInterrupt:
                    typer.echo()
                    raise typer.Exit(130) from None
                if not line:
                    typer.echo()
                    typer.echo(_("no_answer"), err=True)
                    raise typer.Exit(1)
                text = line.strip()
                try:
                    chosen = int(text)
                except ValueError:
                    chosen = -1
            else:
                chosen = answer
            if chosen in options:
                break
            typer.echo(_("not_an_option", answer=chosen if answer is not None else text,
                         options=", ".join(map(str, options))), err=True)
            if answer is not None:
                raise typer.Exit(2)
        try:
            right, lost = found.answer(chosen - shift)
        except PuzzleError:  # pragma: no cover - chosen is one of the options
            raise typer.Exit(2) from None
        values = {option: (expected, error) for option, expected, error in found.options}
        best = found.best + shift
        if right:
            typer.echo(_("right", best=best, expected=number(values[found.best][0], 1, language),
                         error=number(values[found.best][1], 1, language)))
        else:
            typer.echo(_("wrong", chosen=chosen, best=best, loss=number(lost, 1, language),
                         expected=number(values[chosen - shift][0], 1, language),
                         best_expected=number(values[found.best][0], 1, language)))
        ranked = sorted(found.options, key=lambda item: (item[1], item[0]))
        typer.echo(_("every", options=", ".join(
            _("option", option=option + shift, expected=number(expected, 1, language), error=number(error, 1, language))
            for option, expected, error in ranked)))
