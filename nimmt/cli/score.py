"""``nimmt score``: the score sheet for a table that plays with a real deck."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from nimmt import i18n
from nimmt.core import Rules, RulesError
from nimmt.scoresheet import ScoreSheet, ScoreSheetError


def _save(sheet: ScoreSheet, path: Path) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(sheet.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _load(path: Path) -> ScoreSheet:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScoreSheetError(f"{path} cannot be read as a score sheet: {error}") from None
    return ScoreSheet.from_json(data)


def show(sheet: ScoreSheet, console: Console, _: Callable[..., str], countdown: bool) -> None:
    table = Table(title=_("sheet_title"))
    table.add_column(_("round_column"), justify="right")
    for name in sheet.players:
        table.add_column(name, justify="right")
    for number, penalties in enumerate(sheet.rounds, 1):
        table.add_row(str(number), *(str(v) for v in penalties))
    shown = sheet.countdown if countdown else sheet.totals
    table.add_row(_("countdown_row") if countdown else _("total_row"), *(str(v) for v in shown), style="bold")
    console.print(table)


def run(sheet: ScoreSheet, path: Path | None, _: Callable[..., str], countdown: bool, console: Console) -> int:
    show(sheet, console, _, countdown)
    while not sheet.is_over:
        names = ", ".join(sheet.players)
        console.print(_("prompt", round=len(sheet.rounds) + 1, players=names))
        line = sys.stdin.readline()
        if not line:
            console.print(_("bye_saved") if path else _("bye"))
            return 0
        answer = line.strip().lower()
        if answer in {"q", "quit"}:
            console.print(_("bye_saved") if path else _("bye"))
            return 0
        try:
            if answer in {"u", "undo"}:
                sheet = sheet.undo()
            else:
                parts = answer.replace(",", " ").split()
                if not all(p.isdigit() for p in parts):
                    console.print(_("not_numbers", count=len(sheet.players)))
                    continue
                sheet = sheet.add_round([int(p) for p in parts])
        except ScoreSheetError as error:
            console.print(_("wrong", error=str(error)))
            continue
        if path is not None:
            _save(sheet, path)
        show(sheet, console, _, countdown)
    winners = ", ".join(sheet.players[p] for p in sheet.winners)
    console.print(_("game_over", winners=winners, total=min(sheet.totals)))
    return 0


def register(app: typer.Typer) -> None:
    @app.command()
    def score(
        players: Annotated[list[str] | None, typer.Argument(help="Player names, in seat order.")] = None,
        end_above: Annotated[int, typer.Option(help="The game ends after a round with a total above this.")] = 66,
        rounds: Annotated[int | None, typer.Option(help="Play exactly this many rounds instead.")] = None,
        countdown: Annotated[bool, typer.Option(help="Show scores counting down from the threshold.")] = False,
        file: Annotated[Path | None, typer.Option(help="Keep the sheet in this file (resumed if it exists).")] = None,
        lang: Annotated[str | None, typer.Option(help="en, pt-PT, pt-BR, fr, de or es.")] = None,
    ) -> None:
        """Keep the score sheet of a game played with a real deck: type each round's penalties."""
        console = Console(highlight=False)
        try:
            language = i18n.check_language(lang) if lang else i18n.from_environment()
            _ = i18n.translator(language, "score")
            if file is not None and file.exists():
                sheet = _load(file)
                if players and tuple(players) != sheet.players:
                    raise ScoreSheetError(f"{file} holds the sheet of {', '.join(sheet.players)}")
            else:
                sheet = ScoreSheet(tuple(players or ()), Rules(end_above=end_above, rounds=rounds))
        except (ScoreSheetError, RulesError, i18n.UnknownLanguage) as error:
            typer.echo(f"nimmt score: {error}", err=True)
            raise typer.Exit(2) from None
        try:
            code = run(sheet, file, _, countdown, console)
        except KeyboardInterrupt:
            console.print()
            console.print(_("bye_saved") if file else _("bye"))
            code = 130
        raise typer.Exit(code)
