"""``nimmt replay``: check and score records, and tell each game turn by turn.

A folder given in place of a file stands for every record (``*.json``) in it and in its
subfolders, in sorted order of their paths; files and folders whose name starts with a dot are
left out. Every message is in the page's language, the reason of a broken record included: a
:class:`~nimmt.records.RecordError` carries a key and its values (``rec_<key>`` here).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
from nimmt.core.ending import Ending, ending
from nimmt.records import GameRecord, RecordError, Words, load, replay

from ._common import DOMAIN, choose_language, number, os_reason

if TYPE_CHECKING:  # the review (NumPy, the bots' rollouts) is imported only for --review
    from nimmt.review import Review

Translate = Callable[..., str]


def explain(error: RecordError, _: Translate, said: Translate) -> str:
    """Where and why a record is wrong, in the page's language (``str(error)`` stays English)."""
    from ._ending import unbreakable  # the terminal's account only (rich's tables): not for --json

    def value(item: object) -> object:
        if isinstance(item, Words):
            return _(f"rec_{item.key}", **{name: value(v) for name, v in item.values.items()})
        return item

    values = {name: value(item) for name, item in error.values.items()}
    if error.key == "unreadable":
        code = error.values.get("errno")
        values["reason"] = os_reason(code if isinstance(code, int) else None, str(error.values["reason"]), said)
    why = _(f"rec_{error.key}", **values)
    where = []
    if error.round is not None:
        where.append(_("where_round", round=error.round))
    if error.turn is not None:
        where.append(_("where_turn", turn=error.turn))
    if error.player is not None and error.player_name:
        where.append(_("where_player_name", player=error.player, name=unbreakable(error.player_name)))
    elif error.player is not None:
        where.append(_("where_player", player=error.player))
    return _("where_why", where=", ".join(where), why=why) if where else why


def narrate(record: GameRecord, _: Translate, language: str = i18n.DEFAULT_LANGUAGE) -> list[str]:
    """A readable account of a valid record, one line per event worth reading."""
    from ._ending import EndTeller, unbreakable
    names = tuple(unbreakable(name) for name in record.players)
    teller = EndTeller(record.players, record.rules, language)
    state = new_game(len(names), record.rules)
    lines: list[str] = []
    turn = 0
    for action in record.actions():
        step = apply(state, action)
        state = step.state
        for event in step.events:
            lines.extend(_describe(event, names, turn, _))
            if isinstance(event, RoundStarted):
                turn = 0
            elif isinstance(event, CardsRevealed):
                turn += 1
            elif isinstance(event, RoundEnded):
                lines.append(teller.why(teller.after_round(event.totals, event.round)))
            elif isinstance(event, GameEnded):
                lines.append(teller.winners(event.totals))
                lines.extend(teller.lines(state.history))
    if not state.is_over:
        lines.append(_("in_progress", round=state.round, turns=state.turn))
    return lines


def _describe(event: Event, names: tuple[str, ...], turn: int, _: Translate) -> list[str]:
    if isinstance(event, RoundStarted):
        rows = ", ".join(str(card) for card in event.rows)
        return ["", _("round_started", round=event.round, rows=rows)]
    if isinstance(event, CardsRevealed):
        cards = ", ".join(f"{names[p]}\u00a0{card}" for p, card in enumerate(event.cards))
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
        penalties = ", ".join(f"{names[p]}\u00a0{v}" for p, v in enumerate(event.penalties))
        totals = ", ".join(f"{names[p]}\u00a0{v}" for p, v in enumerate(event.totals))
        return [_("round_ended", round=event.round, penalties=penalties, totals=totals)]
    if isinstance(event, GameEnded):
        return [""]
    return []


def review_lines(record: GameRecord, result: Review, _: Translate, language: str) -> list[str]:
    """The review of a game for people: each player's accuracy, then every marked decision."""
    from ._ending import unbreakable
    names = tuple(unbreakable(name) for name in record.players)
    lines = ["", _("header", samples=result.samples, seed=result.seed)]
    for player in result.players:
        if player.accuracy is None:
            lines.append(_("player_none", name=names[player.player]))
            continue
        lines.append(_("player", name=names[player.player], accuracy=number(player.accuracy, 0, language),
                       decisions=player.decisions, loss=number(player.mean_loss, 2, language),
                       inaccuracies=player.marks["inaccuracy"], mistakes=player.marks["mistake"],
                       blunders=player.marks["blunder"]))
    marked = [d for d in result.decisions if d.mark is not None]
    for decision in marked:
        choice, best = decision.choice, decision.best
        shift = 1 if decision.kind == "row" else 0  # people count rows from 1
        lines.append(_(decision.kind, round=decision.round, turn=decision.turn, name=names[decision.player],
                       chosen=choice.option + shift, card=decision.card, mark=_(f"mark_{decision.mark}"),
                       best=best.option + shift, loss=number(choice.loss, 1, language),
                       expected=number(choice.expected, 1, language), error=number(choice.stderr, 1, language),
                       best_expected=number(best.expected, 1, language),
                       best_error=number(best.stderr, 1, language)))
    if not marked:
        lines.append(_("clean"))
    return lines


def ending_json(end: Ending | None) -> dict[str, Any] | None:
    """The ``ending`` key of ``--json``: why the game ended after its last complete round, or why it
    goes on; null before the first round is complete."""
    if end is None:
        return None
    return {
        "over": end.over, "reason": end.reason, "players": list(end.players), "end_above": end.end_above,
        "rounds": end.rounds, "rounds_played": end.rounds_played,
    }


def _result(path: str) -> tuple[dict[str, object], GameRecord | None, RecordError | None]:
    try:
        record = load(path)
        result = replay(record)
    except RecordError as error:
        return {"file": path, "error": str(error)}, None, error
    history = result.state.history
    totals = [sum(penalties[p] for penalties in history) for p in range(len(record.players))]
    end = ending(record.rules, totals, len(history)) if history else None
    scored = {
        "totals": list(result.totals), "rounds": [list(r) for r in result.rounds],
        "finished": result.finished, "winners": list(result.winners), "ending": ending_json(end),
    }
    return {"file": path, **scored}, record, None


def expand(paths: list[str]) -> tuple[list[str], list[str]]:
    """The files to check: a folder stands for its records (``*.json``, subfolders too, sorted).
    Also returns the folders that hold no record at all."""
    files: list[str] = []
    empty: list[str] = []
    for path in paths:
        folder = Path(path)
        if not folder.is_dir():
            files.append(path)
            continue
        found = sorted(
            (p for p in folder.rglob("*.json")
             if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)),
            key=lambda p: p.relative_to(folder).parts,
        )
        if not found:
            empty.append(path)
        files.extend(str(p) for p in found)
    return files, empty


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        files: Annotated[
            list[str],
            typer.Argument(help="Record files (nimmt/1 JSON), or folders: every *.json in them and their subfolders."),
        ],
        json_output: Annotated[
            bool,
            typer.Option("--json", help="One JSON line per file: totals, rounds, finished, winners, ending."),
        ] = False,
        lang: Annotated[
            str | None, typer.Option("--lang", help="Language of the account: en, pt-PT, pt-BR, fr, de, es.")
        ] = None,
        review: Annotated[
            bool,
            typer.Option("--review", help="Review every decision: each option's expected bullheads, the loss "
                         "of the one chosen, marks and each player's accuracy (docs/review.md)."),
        ] = False,
        samples: Annotated[
            int, typer.Option("--samples", min=2, help="With --review: samples per option and decision.")
        ] = 1024,
        seed: Annotated[int, typer.Option("--seed", help="With --review: the seed of its samples.")] = 0,
    ) -> None:
        """Check and score game records; tell each valid game turn by turn.

        A folder stands for every record in it (*.json, subfolders included, in sorted order); a summary
        line follows when more than one file, or a folder, is checked. Exit status 0 when every file is a valid
        record, 2 otherwise (a folder without records counts as not valid).
        """
        language = choose_language(lang, "replay")
        _ = i18n.translator(language, "replay")
        said = i18n.translator(language, DOMAIN)
        judge = _reviewer(language, samples, seed) if review else None
        checked, empty = expand(files)
        # On a terminal, lines are wrapped between names (never inside one); piped output is left whole.
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None

        def echo(line: str) -> None:
            from ._ending import fit

            typer.echo(fit(line, width) if width else line)

        valid = not empty
        good = 0
        for folder in empty:
            if json_output:
                sys.stdout.write(json.dumps({"file": folder, "error": "no record files (*.json) in this folder"},
                                            ensure_ascii=False) + "\n")
            else:
                echo(_("no_records", folder=folder))
        for path in checked:
            result, record, error = _result(path)
            valid = valid and record is not None
            good += record is not None
            reviewed = judge(record) if judge is not None and record is not None else None
            if reviewed is not None and json_output:
                result["review"] = reviewed.to_json()
            if json_output:
                sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
                continue
            if record is None:
                assert error is not None
                echo(_("invalid", file=path, error=explain(error, _, said)))
                continue
            from ._ending import unbreakable  # the terminal's account only: --json does without rich's tables

            echo(_("header", file=path, players=", ".join(unbreakable(n) for n in record.players)))
            for line in narrate(record, _, language):
                echo(line)
            if reviewed is not None:
                for line in review_lines(record, reviewed, i18n.translator(language, "review"), language):
                    echo(line)
            echo("")
        if not json_output and (len(checked) > 1 or len(checked) != len(files)):
            echo(_("summary", files=len(checked), valid=good, invalid=len(checked) - good))
        raise typer.Exit(0 if valid else 2)


def _reviewer(language: str, samples: int, seed: int) -> Callable[[GameRecord], Review]:
    """The review of a record at ``samples`` and ``seed``; without NumPy, a clear message and exit 2."""
    from nimmt.review import ReviewError, compiled, ready, review

    try:
        ready()
    except ReviewError:
        typer.echo("nimmt replay: " + i18n.translator(language, "review")("unavailable"), err=True)
        raise typer.Exit(2) from None

    if not compiled():
        typer.echo("nimmt replay: " + i18n.translator(language, "review")("slow"), err=True)

    def judge(record: GameRecord) -> Review:
        return review(record, samples=samples, seed=seed)

    return judge
