"""``nimmt score``: the score sheet for a table that plays with a real deck.

Every message, the reason of a refused round included, is in the page's language: a
:class:`~nimmt.scoresheet.ScoreSheetError` carries a key and its values (``err_<key>`` here).
After each round a line says why the game goes on, and at the end why it is over.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nimmt import i18n
from nimmt.core import Rules, RulesError
from nimmt.core.errors import NimmtError
from nimmt.scoresheet import END_ABOVE_MOST, ROUNDS_MOST, ScoreSheet, ScoreSheetError

from ._common import DOMAIN, Translate, choose_language, os_reason
from ._ending import EndTeller, fit, unbreakable


class SheetFileError(NimmtError):
    """A sheet file that cannot be read: its message is already in the page's language."""


def explain(error: ScoreSheetError, _: Translate) -> str:
    """A score sheet's complaint in the page's language, from its key and values."""
    values = {name: explain(value, _) if isinstance(value, ScoreSheetError) else value
              for name, value in error.params.items()}
    if isinstance(values.get("player"), str):
        values["player"] = unbreakable(str(values["player"]))
    return _(f"err_{error.key}", **values)


def _save(sheet: ScoreSheet, path: Path) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(sheet.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _load(path: Path, _: Translate, said: Translate) -> ScoreSheet:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        reason = os_reason(error.errno, error.strerror or str(error), said)
    except UnicodeDecodeError:
        reason = _("err_not_utf8")
    except json.JSONDecodeError as error:
        reason = _("err_not_json", line=error.lineno, column=error.colno)
    else:
        try:
            return ScoreSheet.from_json(data)
        except ScoreSheetError as error:
            reason = explain(error, _)
    raise SheetFileError(_("err_unreadable", file=str(path), reason=reason))


def say(console: Console, message: str, style: str = "") -> None:
    """A line that names players, wrapped between names on a narrow terminal, never inside one."""
    console.print(Text(fit(message, console.width), style=style), soft_wrap=True)


def show(sheet: ScoreSheet, console: Console, _: Translate, countdown: bool) -> None:
    table = Table(title=_("sheet_title"))
    table.add_column(_("round_column"), justify="right")
    for name in sheet.players:
        table.add_column(unbreakable(name), justify="right")
    for number, penalties in enumerate(sheet.rounds, 1):
        table.add_row(str(number), *(str(v) for v in penalties))
    shown = sheet.countdown if countdown else sheet.totals
    table.add_row(_("countdown_row") if countdown else _("total_row"), *(str(v) for v in shown), style="bold")
    console.print(table)


def run(
    sheet: ScoreSheet, path: Path | None, _: Translate, countdown: bool, console: Console, language: str,
    said: Translate | None = None,
) -> int:
    """Type rounds until the end; 0, or 1 when the last rounds could not be written to ``path``
    (the sheet is then printed, so that nothing typed is lost)."""
    teller = EndTeller(sheet.players, sheet.rules, language, countdown=countdown)
    show(sheet, console, _, countdown)
    if sheet.rounds and not sheet.is_over:
        say(console, teller.why(teller.after_round(sheet.totals, len(sheet.rounds))))
    saved = True
    while not sheet.is_over:
        names = ", ".join(unbreakable(name) for name in sheet.players)
        say(console, _("prompt", round=len(sheet.rounds) + 1, players=names))
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            console.print()
            return _goodbye(sheet, path, saved, console, _) or 130
        answer = line.strip().lower()
        if not line or answer in {"q", "quit"}:
            return _goodbye(sheet, path, saved, console, _)
        if answer in {"u", "undo"}:
            if not sheet.rounds:
                console.print(Text(_("nothing_to_undo")))
                continue
            sheet = sheet.undo()
        else:
            parts = answer.replace(",", " ").split()
            if not parts or not all(p.isdigit() for p in parts):
                console.print(Text(_("not_numbers", count=len(sheet.players))))
                continue
            try:
                sheet = sheet.add_round([int(p) for p in parts])
            except ScoreSheetError as error:
                say(console, _("wrong", error=explain(error, _)))
                continue
        if path is not None:
            saved = _try_save(sheet, path, console, _, said or _)
        show(sheet, console, _, countdown)
        if sheet.rounds:
            say(console, teller.why(teller.after_round(sheet.totals, len(sheet.rounds))), "bold")
    say(console, teller.winners(sheet.totals), "bold green")
    console.print(teller.table(sheet.rounds))
    return 0 if saved else _goodbye(sheet, path, saved, console, _)


def _try_save(sheet: ScoreSheet, path: Path, console: Console, _: Translate, said: Translate) -> bool:
    """Write the sheet; when the file cannot be written, say so and keep going (it is tried again
    after the next round)."""
    try:
        _save(sheet, path)
    except OSError as error:
        reason = os_reason(error.errno, error.strerror or str(error), said)
        say(console, _("not_saved", file=str(path), reason=reason), "bold red")
        return False
    return True


def _goodbye(sheet: ScoreSheet, path: Path | None, saved: bool, console: Console, _: Translate) -> int:
    if saved:
        console.print(_("bye_saved") if path else _("bye"))
        return 0
    say(console, _("unsaved", file=str(path)), "bold red")
    print(json.dumps(sheet.to_json(), ensure_ascii=False), flush=True)  # plain, for copying whole
    return 1


def _sheet(players: list[str] | None, end_above: int, rounds: int | None, file: Path | None,
           _: Translate, said: Translate) -> ScoreSheet:
    if file is not None and file.exists():
        sheet = _load(file, _, said)
        if players and tuple(players) != sheet.players:
            raise SheetFileError(_("err_other_players", file=str(file), players=", ".join(sheet.players)))
        return sheet
    if not 0 <= end_above <= END_ABOVE_MOST:
        raise SheetFileError(_("err_end_above_rule", value=end_above, most=END_ABOVE_MOST))
    if rounds is not None and not 1 <= rounds <= ROUNDS_MOST:
        raise SheetFileError(_("err_rounds_rule", value=rounds, most=ROUNDS_MOST))
    try:
        return ScoreSheet(tuple(players or ()), Rules(end_above=end_above, rounds=rounds))
    except ScoreSheetError as error:
        raise SheetFileError(explain(error, _)) from None
    except RulesError as error:  # checked above; kept so that a new rule can never show a traceback
        raise SheetFileError(str(error)) from None


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
        language = choose_language(lang, "score")
        _ = i18n.translator(language, "score")
        said = i18n.translator(language, DOMAIN)
        try:
            sheet = _sheet(players, end_above, rounds, file, _, said)
            if file is not None:  # written now, so that a file that cannot be is said before any round is typed
                _save(sheet, file)
        except SheetFileError as error:
            typer.echo(f"nimmt score: {error}", err=True)
            raise typer.Exit(2) from None
        except OSError as error:
            reason = os_reason(error.errno, error.strerror or str(error), said)
            typer.echo(f"nimmt score: {said('save_cannot_write', file=str(file), reason=reason)}", err=True)
            raise typer.Exit(2) from None
        try:
            code = run(sheet, file, _, countdown, console, language, said)
        except KeyboardInterrupt:
            console.print()
            console.print(_("bye_saved") if file else _("bye"))
            code = 130
        raise typer.Exit(code)
