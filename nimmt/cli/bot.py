"""``nimmt bot-check``: play a short game with another program in one seat and report how it behaved.

    nimmt bot-check -- node examples/node-bot/bot.js
    nimmt bot-check --players 5 --seat 2 --opponents heuristic --full -- python3 my_bot.py

The program speaks the ``nimmt-bot/1`` protocol (``docs/protocol-bots.md``). The exit code is 0
when it played every decision legally, 1 when it failed (the message says how), 2 for bad options.
"""

from __future__ import annotations

import json
import random
import secrets
import shlex
import statistics
from typing import Annotated, Any

import typer

from nimmt import i18n
from nimmt.bots import BOTS, Bot, make_bot
from nimmt.core import CardChosen, Event, GameState, RowTaken, Rules
from nimmt.match import play_game
from nimmt.protocol import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, BotFailure, ProcessBot
from nimmt.records import replay

from ._common import (
    DOMAIN,
    EXTERNAL,
    Translate,
    check_players,
    choose_language,
    failure_fields,
    failure_message,
    number,
    unreadable_command,
)


def check_bot(
    command: list[str],
    *,
    players: int,
    seat: int,
    opponents: list[str],
    rules: Rules,
    games: int,
    seed: int,
    timeout: float,
    start_timeout: float,
) -> tuple[dict[str, Any], BotFailure | None]:
    """Play ``games`` games with the program at ``seat``: a dict report (``"ok"`` says if it passed,
    ``--json`` prints it) and the failure, if any, for the printed page to tell in its language."""
    failed: BotFailure | None = None
    report: dict[str, Any] = {
        "command": shlex.join(command), "seat": seat, "players": players, "seed": seed, "games": [], "ok": False,
    }
    bot = ProcessBot(command, random.Random(f"{seed}:bot"), timeout=timeout, start_timeout=start_timeout, seat=seat)
    with bot:
        try:
            bot.start()
            report["name"] = bot.reported_name
            for game in range(games):
                cards = rows = 0

                def observe(_state: GameState, events: tuple[Event, ...]) -> None:
                    nonlocal cards, rows
                    for event in events:
                        if isinstance(event, CardChosen) and event.player == seat:
                            cards += 1
                        elif isinstance(event, RowTaken) and event.player == seat and event.chosen:
                            rows += 1

                others = iter(opponents)
                seats: list[Bot] = [
                    bot if p == seat else make_bot(next(others), random.Random(f"{seed}:{game}:{p}"))
                    for p in range(players)
                ]
                before = len(bot.answer_times)
                try:
                    record = play_game(seats, random.Random(f"{seed}:{game}:deal"), rules, observer=observe)
                finally:
                    for other in seats:
                        if other is not bot and isinstance(other, ProcessBot):
                            other.close()
                times = bot.answer_times[before:]
                report["games"].append(
                    {
                        "rounds": len(record.rounds),
                        "cards": cards,
                        "rows": rows,
                        "median_ms": round(statistics.median(times) * 1000, 2),
                        "slowest_ms": round(max(times) * 1000, 2),
                        "totals": list(replay(record).totals),
                    }
                )
            report["ok"] = True
        except BotFailure as failure:
            # The report is machine output and stays in English, whatever the page's language.
            report["failure"] = {
                "kind": failure.kind.value,
                "reason": failure.reason,
                "facts": dict(failure.facts),
                "message": str(failure),
                "exit_code": failure.exit_code,
            }
            failed = failure
        report["stderr"] = list(bot.stderr_lines)
    return report, failed


def _print_report(
    report: dict[str, Any], failed: BotFailure | None, _: Translate, language: str = i18n.DEFAULT_LANGUAGE
) -> None:
    typer.echo(_("check_heading", command=report["command"], seat=report["seat"], players=report["players"],
                 seed=report["seed"]))
    if report.get("name"):
        typer.echo("  " + _("check_started", name=repr(report["name"])))
    for index, game in enumerate(report["games"], start=1):
        typer.echo("  " + _(
            "check_game", number=index, rounds=game["rounds"], cards=game["cards"], rows=game["rows"],
            median=number(game["median_ms"], 2, language), slowest=number(game["slowest_ms"], 2, language),
            own=game["totals"][report["seat"]], totals=game["totals"],
        ))
    if report["ok"]:
        typer.echo(_("check_ok"))
    else:
        told = failure_message(failure_fields(failed), _) if failed is not None else report["failure"]["message"]
        typer.echo(_("check_failed", message=told), err=True)


def register(app: typer.Typer) -> None:
    @app.command(
        "bot-check",
        context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
    )
    def bot_check(
        command: Annotated[
            list[str],
            typer.Argument(
                metavar="COMMAND",
                help="The program and its arguments, after '--' (e.g. -- node examples/node-bot/bot.js).",
            ),
        ],
        players: Annotated[int, typer.Option("--players", "-p", help="Players at the table (2 to 10).")] = 4,
        seat: Annotated[int, typer.Option("--seat", help="The program's seat, 0 to players-1.")] = 0,
        opponents: Annotated[
            str,
            typer.Option("--opponents", help="Bots in the other seats: one name, or one per seat, comma-separated."),
        ] = "random",
        rounds: Annotated[int, typer.Option("--rounds", help="Rounds per game (a short game).")] = 1,
        full: Annotated[bool, typer.Option("--full", help="Play whole games, to a total above 66.")] = False,
        games: Annotated[int, typer.Option("--games", help="How many games to play.")] = 1,
        timeout: Annotated[
            float, typer.Option("--timeout", help="Seconds the program gets for each decision.")
        ] = DEFAULT_TIMEOUT,
        start_timeout: Annotated[
            float, typer.Option("--start-timeout", help="Seconds the program gets to start and answer hello.")
        ] = DEFAULT_START_TIMEOUT,
        seed: Annotated[int | None, typer.Option("--seed", help="Seed for the deals and the bots.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
        lang: Annotated[
            str | None,
            typer.Option("--lang", "-l", metavar="LANG",
                         help=f"Language of the report: {', '.join(i18n.LANGUAGES)} (default: from your locale)."),
        ] = None,
    ) -> None:
        """Play a short game with another program in one seat, and report any protocol error clearly."""
        language = choose_language(lang, "bot-check")
        _ = i18n.translator(language, DOMAIN)
        if len(command) == 1 and " " in command[0]:
            if unreadable_command(command[0]):
                raise typer.BadParameter(_("command_unreadable", command=repr(command[0])), param_hint="COMMAND")
            command = shlex.split(command[0])  # the command given as one quoted string
        check_players(players, _)
        if not 0 <= seat < players:
            raise typer.BadParameter(_("seat_range", last=players - 1, seat=seat), param_hint="--seat")
        if games < 1:
            raise typer.BadParameter(_("games_min", games=games), param_hint="--games")
        if timeout <= 0 or start_timeout <= 0:
            raise typer.BadParameter(_("time_limits"), param_hint="--timeout")
        if not full and rounds < 1:
            raise typer.BadParameter(_("rounds_min", rounds=rounds), param_hint="--rounds")
        rules = Rules() if full else Rules(rounds=rounds)
        report, failed = check_bot(
            command,
            players=players,
            seat=seat,
            opponents=_opponents(opponents, players, _),
            rules=rules,
            games=games,
            seed=seed if seed is not None else secrets.randbelow(2**32),
            timeout=timeout,
            start_timeout=start_timeout,
        )
        if as_json:
            typer.echo(json.dumps(report))
        else:
            _print_report(report, failed, _, language)
        if not report["ok"]:
            raise typer.Exit(1)


def _opponents(opponents: str, players: int, _: Translate) -> list[str]:
    """The bots of --opponents, one per other seat (one name fills them all), each checked."""
    names = [name.strip() for name in opponents.split(",")]
    if len(names) == 1:
        names *= players - 1
    if len(names) != players - 1:
        raise typer.BadParameter(_("opponents_count", count=len(names), seats=players - 1), param_hint="--opponents")
    for name in names:
        if name.startswith(EXTERNAL):
            program = name[len(EXTERNAL):]
            if unreadable_command(program):
                raise typer.BadParameter(_("command_unreadable", command=repr(name)), param_hint="--opponents")
        elif name not in BOTS:
            known = ", ".join(sorted(BOTS))
            raise typer.BadParameter(_("bots_unknown", bot=repr(name), known=known), param_hint="--opponents")
    return names
