"""``nimmt replay``: check and score records, and tell each game turn by turn."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated

import typer

from nimmt import i18n
from nimmt.core import (
    CardPlaced,
    CardsRevealed,
    Event,
    GameEnded,
    RoundEnded,
    RoundStarted,
    RowTaken,
    apply,
    new_game,
)
from nimmt.records import GameRecord, RecordError, load, score


def narrate(record: GameRecord, _: Callable[..., str]) -> list[str]:
    """A readable account of a valid record, one line per event worth reading."""
    names = record.players
    state = new_game(len(names), record.rules)
    lines: list[str] = []
    turn = 0
    for action in record.actions():
        step = apply(state, action)
        state = step.state
        for event in step.events:
            lines.extend(_describe(event, names, state.round, turn, _))
            if isinstance(event, RoundStarted):
                turn = 0
            elif isinstance(event, CardsRevealed):
                turn += 1
    if not state.is_over:
        lines.append(_("in_progress", round=state.round, turns=state.turn))
    return lines


def _describe(
    event: Event, names: tuple[str, ...], round_number: int, turn: int, _: Callable[..., str]
) -> list[str]:
    if isinstance(event, RoundStarted):
        rows = ", ".join(str(card) for card in event.rows)
        return ["", _("round_started", round=event.round, rows=rows)]
    if isinstance(event, CardsRevealed):
        cards = ", ".join(f"{names[p]} {card}" for p, card in enumerate(event.cards))
        return [_("turn", turn=turn + 1, cards=cards)]
    if isinstance(event, RowTaken):
        cards = " ".join(str(c) for c in event.cards)
        key = "row_chosen" if event.chosen else "row_full"
        return [
            "    " + _(key, player=names[event.player], row=event.row + 1, cards=cards,
                       bullheads=event.bullheads)
        ]
    if isinstance(event, CardPlaced):
        return ["    " + _("card_placed", player=names[event.player], card=event.card, row=event.row + 1)]
    if isinstance(event, RoundEnded):
        penalties = ", ".join(f"{names[p]} {v}" for p, v in enumerate(event.penalties))
        totals = ", ".join(f"{names[p]} {v}" for p, v in enumerate(event.totals))
        return [_("round_ended", round=event.round, penalties=penalties, totals=totals)]
    if isinstance(event, GameEnded):
        winners = ", ".join(names[p] for p in event.winners)
        return ["", _("game_ended", winners=winners, total=min(event.totals))]
    return []


def _result(path: str) -> tuple[dict[str, object], GameRecord | None]:
    try:
        record = load(path)
        result = score(record)
    except RecordError as error:
        return {"file": path, "error": str(error)}, None
    return {"file": path, **result.to_json()}, record


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        files: Annotated[list[str], typer.Argument(help="Record files (nimmt/1 JSON).")],
        json_output: Annotated[
            bool, typer.Option("--json", help="One JSON line per file: totals, rounds, finished, winners.")
        ] = False,
        lang: Annotated[
            str | None, typer.Option("--lang", help="Language of the account: en, pt-PT, pt-BR, fr, de, es.")
        ] = None,
    ) -> None:
        """Check and score game records; tell each valid game turn by turn.

        Exit status 0 when every file is a valid record, 2 otherwise.
        """
        try:
            language = i18n.check_language(lang) if lang else i18n.from_environment()
        except i18n.UnknownLanguage as error:
            typer.echo(f"nimmt replay: {error}", err=True)
            raise typer.Exit(2) from None
        _ = i18n.translator(language, "replay")
        valid = True
        for path in files:
            result, record = _result(path)
            valid = valid and record is not None
            if json_output:
                sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
                continue
            if record is None:
                typer.echo(_("invalid", file=path, error=result["error"]))
                continue
            typer.echo(_("header", file=path, players=", ".join(record.players)))
            for line in narrate(record, _):
                typer.echo(line)
            typer.echo("")
        raise typer.Exit(0 if valid else 2)
