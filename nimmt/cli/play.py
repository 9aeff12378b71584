"""``nimmt play``: you against bots in the terminal.

The human sits at seat 0 and the bots at the other seats. Input is read from standard input one
line at a time (so a whole game can be scripted); every text shown comes from the ``play``
catalog of the chosen language. The game runs on the rules core's step engine: each revealed
card is shown as the core resolves it (CardPlaced, RowTaken, RowChoiceNeeded).

The coach (:mod:`nimmt.coach`), unless the table turns it off with ``--no-coach``, answers ``?``
(or the catalog's ``coach_word``) at either prompt with a table of numbers computed from the
player's own view (the simulated ones, then the neural network's second opinion), then asks
again: it never plays or chooses. Its random source is derived from
the seed and the position only (:func:`coach_rng`), apart from every source the game uses, so
asking for advice changes nothing in the game and the same question gets the same answer.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nimmt import i18n
from nimmt.bots import Bot
from nimmt.coach import CardAdvice, CoachError, RowAdvice, advise_cards, advise_rows
from nimmt.core import (
    BULLHEADS,
    ROW_COUNT,
    CardChosen,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    Event,
    GameEnded,
    GameState,
    NimmtError,
    Phase,
    PlayCard,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    Rules,
    deal_cards,
    row_bullheads,
    view,
)
from nimmt.core.cards import TURNS_PER_ROUND
from nimmt.names import NameRefused, clean_name
from nimmt.prepare import compiled_engine
from nimmt.protocol import BotFailure
from nimmt.records import GameRecord, Recorder

from ._common import (
    DOMAIN,
    Translate,
    check_players,
    choose_language,
    close_bots,
    deal_rng,
    failure_fields,
    failure_message,
    fresh_seed,
    label,
    make_bots,
    make_rules,
    os_reason,
    parse_bots,
)
from ._ending import EndTeller, cell, fit, unbreakable
from .prepare import needs_preparing, prepare_bots

HUMAN = 0
T = TypeVar("T")
COACH_SAMPLES = 200  # deals simulated per question: well under a second in a terminal


def net_card_cell(item: CardAdvice, number: Callable[[float, int], str]) -> str:
    """The neural network's two numbers for a card, in one cell of the coach's table (an 80-column
    terminal has room for one more column): its expected bullheads to the end of the round (never
    below 0, though the network's may be), then its chance that the card is the best: ``6.4 (18%)``."""
    assert item.net_bullheads is not None and item.net_chance is not None
    return f"{number(max(0.0, item.net_bullheads), 1)} ({number(100 * item.net_chance, 0)}%)"


def net_row_total(item: RowAdvice) -> float:
    """The neural network's now + later for a row, as shown: never below the row's bullheads."""
    assert item.net_total is not None
    return max(float(item.now), item.net_total)


def coach_rng(seed: int, game: int, round_number: int, turn: int, kind: str) -> random.Random:
    """The coach's random source for one question: from the seed and the position only, so the
    answer can be repeated and the game's own random sources are never touched."""
    return random.Random(f"nimmt:{seed}:{game}:coach:{round_number}:{turn}:{kind}")


class InputEnded(Exception):
    """Standard input closed while the game waited for the player."""


def _heads_style(heads: int) -> str:
    if heads >= 5:
        return "bold red"
    if heads >= 2:
        return "yellow"
    return ""


def card_text(card: int) -> Text:
    """A card with its bullheads in brackets: the number says it, the colour only helps."""
    heads = BULLHEADS[card]
    return Text.assemble((str(card), "bold"), (f"({heads})", _heads_style(heads)))


def cards_text(cards: Sequence[int]) -> Text:
    return Text(" ").join(card_text(c) for c in cards)


class TerminalGame:
    def __init__(
        self,
        console: Console,
        translate: Callable[..., str],
        names: Sequence[str],
        bots: Sequence[Bot],
        rules: Rules,
        deals_from: int,
        seed: int,
        record_path: Path | None,
        pace: float,
        coach: bool = True,
        language: str = i18n.DEFAULT_LANGUAGE,
    ) -> None:
        self.console = console
        self.end = EndTeller(names, rules, language, you=HUMAN)
        self._ = translate
        self.names = tuple(names)
        self.shown = tuple(unbreakable(name) for name in names)  # never split across lines
        self.bots = {seat: bot for seat, bot in enumerate(bots, start=1)}
        self.recorder = Recorder(GameRecord(players=self.names, rules=rules))
        self.deal_rng = deal_rng(seed, deals_from)
        self.record_path = record_path
        self.pace = pace
        self.coach = coach
        self.seed = seed
        self.game = deals_from
        self._saved: GameRecord | None = None

    # -- input -----------------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold cyan"), end="")
        self.console.file.flush()
        line = sys.stdin.readline()
        if not line:
            self.console.print()
            raise InputEnded
        if not sys.stdin.isatty():
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    def wants_coach(self, answer: str) -> bool:
        """Whether ``answer`` asks for advice; with the coach off, says so (and asks again)."""
        if answer.casefold() not in {"?", self._("coach_word").casefold()}:
            return False
        if not self.coach:
            self.hint(self._("coach_off"))
        return True

    def ask_card(self, state: GameState) -> int:
        hand = view(state, HUMAN).hand
        listed = ", ".join(str(c) for c in hand)
        prompt = self._("ask_card_coach", word=self._("coach_word")) if self.coach else self._("ask_card")
        while True:
            answer = self.ask(prompt)
            if self.wants_coach(answer):
                if self.coach:
                    self.advise_cards(state)
                continue
            try:
                card = int(answer)
            except ValueError:
                self.hint(self._("bad_card_number", text=answer, hand=listed))
                continue
            if card in hand:
                return card
            self.hint(self._("bad_card_not_in_hand", card=card, hand=listed))

    def ask_row(self, state: GameState) -> int:
        if self.coach:
            prompt = self._("ask_row_coach", rows=ROW_COUNT, word=self._("coach_word"))
        else:
            prompt = self._("ask_row", rows=ROW_COUNT)
        while True:
            answer = self.ask(prompt)
            if self.wants_coach(answer):
                if self.coach:
                    self.advise_rows(state)
                continue
            if answer.isdigit() and 1 <= int(answer) <= ROW_COUNT:
                return int(answer) - 1
            self.hint(self._("bad_row", text=answer, rows=ROW_COUNT))

    def hint(self, message: str) -> None:
        self.say(message, "yellow")

    def say(self, message: str, style: str = "") -> None:
        """A line that names players, wrapped between names on a narrow terminal, never inside one."""
        self.console.print(Text(fit(message, self.console.width), style=style), soft_wrap=True)

    # -- the coach: numbers only; the player decides ------------------------------------------
    def number(self, value: float, digits: int) -> str:
        return f"{value:.{digits}f}".replace(".", self._("decimal_sign"))

    def estimate(self, mean: float, stderr: float) -> str:
        return f"{self.number(mean, 1)} ± {self.number(stderr, 1)}"

    def consult(self, advise: Callable[..., list[T]], state: GameState, kind: str) -> list[T] | None:
        """Ask the coach (``advise_cards`` or ``advise_rows``) about the player's view; None if it cannot say."""
        rng = coach_rng(self.seed, self.game, state.round, state.turn, kind)
        try:
            with self.console.status(self._("coach_thinking")):  # shown on a terminal only
                # Compiled rollouts only with Numba: NumPy alone runs them as Python, far slower than the
                # coach's own pure-Python rollouts.
                return advise(view(state, HUMAN), samples=COACH_SAMPLES, rng=rng, compiled=compiled_engine())
        except CoachError:
            self.hint(self._("coach_unavailable"))
            return None

    def advise_cards(self, state: GameState) -> None:
        _ = self._
        advice = self.consult(advise_cards, state, "card")
        if advice is None:
            return
        table = Table(title=_("coach_cards_title"), title_justify="left")
        # The neural network's second opinion (None without NumPy: no columns then).
        net = all(item.net_bullheads is not None and item.net_chance is not None for item in advice)
        cells = []
        for item in advice:
            sampled = "" if item.exact else "≈"
            cells.append((
                card_text(item.card),
                _("coach_below") if item.row is None else str(item.row + 1),
                sampled + self.number(100 * item.take_chance, 1),
                sampled + self.number(item.turn_bullheads, 2),
                self.estimate(item.round_bullheads, item.round_stderr),
                *((net_card_cell(item, self.number),) if net else ()),
            ))
        headings = ["coach_col_card", "coach_col_goes_to", "coach_col_take_chance", "coach_col_turn_bullheads",
                    "coach_col_round_bullheads", *(["coach_col_net"] if net else [])]
        # A number does not wrap (each column at least as wide as its widest number; a heading
        # may wrap), unless the terminal is too narrow for that: then every column may, as it must.
        widest = [0 if key == "coach_col_goes_to" else max(len(row[c]) for row in cells)
                  for c, key in enumerate(headings)]
        fits = sum(widest) + 3 * len(widest) + 1 <= self.console.width
        for column, key in enumerate(headings):
            table.add_column(_(key), justify="right", min_width=widest[column] if fits else None)
        for row in cells:
            table.add_row(*row)
        self.console.print(table)
        if not all(item.exact for item in advice):
            self.console.print(Text(_("coach_sampled", samples=COACH_SAMPLES), style="dim"))
        self.console.print(Text(_("coach_cards_note", samples=COACH_SAMPLES), style="dim"))
        if net:
            self.console.print(Text(_("coach_net_cards_note"), style="dim"))

    def advise_rows(self, state: GameState) -> None:
        _ = self._
        advice = self.consult(advise_rows, state, "row")
        if advice is None:
            return
        table = Table(title=_("coach_rows_title"), title_justify="left")
        table.add_column(_("col_row"), justify="right")
        table.add_column(_("col_cards"))
        table.add_column(_("coach_col_now"), justify="right")
        table.add_column(_("coach_col_later"), justify="right")
        table.add_column(_("coach_col_total"), justify="right")
        net = all(item.net_total is not None for item in advice)
        if net:
            table.add_column(_("coach_col_net_total"), justify="right")
        for item in advice:
            table.add_row(
                str(item.row + 1),
                cards_text(state.rows[item.row]),
                str(item.now),
                self.estimate(item.later, item.later_stderr),
                self.number(item.total, 1),
                *((self.number(net_row_total(item), 1),) if net else ()),
            )
        self.console.print(table)
        self.console.print(Text(_("coach_rows_note", samples=COACH_SAMPLES), style="dim"))
        if net:
            self.console.print(Text(_("coach_net_rows_note"), style="dim"))

    # -- showing the table -------------------------------------------------------------------
    def rows_table(self, state: GameState) -> Table:
        _ = self._
        table = Table(title=_("rows_title"), title_justify="left")
        table.add_column(_("col_row"), justify="right")
        table.add_column(_("col_cards"))
        table.add_column(_("col_count"), justify="right")
        table.add_column(_("col_bullheads"), justify="right")
        for index, row in enumerate(state.rows):
            heads = row_bullheads(row)
            table.add_row(str(index + 1), cards_text(row), f"{len(row)}/5", Text(str(heads), _heads_style(heads)))
        return table

    def show_turn(self, state: GameState) -> None:
        _ = self._
        self.console.print()
        self.console.rule(_("turn_header", round=state.round, turn=state.turn + 1, turns=TURNS_PER_ROUND))
        self.console.print(self.rows_table(state))
        totals = " · ".join(f"{self.shown[p]}\u00a0{t}" for p, t in enumerate(state.totals))
        taken = " · ".join(f"{self.shown[p]}\u00a0{t}" for p, t in enumerate(state.penalties))
        self.say(_("totals", totals=totals))
        self.say(_("taken_this_round", taken=taken))

    def show_hand(self, hand: tuple[int, ...]) -> None:
        self.console.print(Text.assemble((self._("hand") + " ", "bold"), cards_text(hand)))

    def pause(self) -> None:
        if self.pace > 0:
            time.sleep(self.pace)

    def show(self, events: Sequence[Event], state: GameState) -> None:
        """Tell what happened, one event (one resolved card) at a time."""
        _ = self._
        names = self.shown
        taken_by: int | None = None
        for event in events:
            if isinstance(event, RoundStarted):
                self.console.print()
                self.console.rule(Text(_("round_started", round=event.round), style="bold"))
            elif isinstance(event, CardChosen):
                if event.player != HUMAN:
                    self.say(_("has_chosen", player=names[event.player]), "dim")
            elif isinstance(event, CardsRevealed):
                order = sorted((card, p) for p, card in enumerate(event.cards))
                listed = " · ".join(f"{names[p]}: {card}" for card, p in order)
                self.say(_("revealed", cards=listed), "bold")
                self.pause()
            elif isinstance(event, RowChoiceNeeded):
                key = "you_below_every_row" if event.player == HUMAN else "below_every_row"
                self.say(_(key, player=names[event.player], card=event.card), "magenta")
            elif isinstance(event, RowTaken):
                key = "row_chosen" if event.chosen else "row_full"
                if event.player == HUMAN:
                    key = "you_" + key
                cards = " ".join(str(c) for c in event.cards)
                self.say(
                    _(key, player=names[event.player], row=event.row + 1, cards=cards, bullheads=event.bullheads), "red"
                )
                taken_by = event.player
            elif isinstance(event, CardPlaced):
                if taken_by == event.player:
                    line = _("card_starts_row", card=event.card, row=event.row + 1)
                elif event.player == HUMAN:
                    line = _("you_placed", card=event.card, row=event.row + 1)
                else:
                    line = _("card_placed", player=names[event.player], card=event.card, row=event.row + 1)
                self.say(line)
                taken_by = None
                self.pause()
            elif isinstance(event, RoundEnded):
                self.show_round_end(event)
            elif isinstance(event, GameEnded):
                self.show_standings(event, state.history)

    def show_round_end(self, event: RoundEnded) -> None:
        _ = self._
        table = Table(title=_("round_summary", round=event.round), title_justify="left")
        table.add_column(_("col_player"))
        table.add_column(_("col_round_penalty"), justify="right")
        table.add_column(_("col_total"), justify="right")
        for p, name in enumerate(self.names):
            table.add_row(Text(cell(name)), str(event.penalties[p]), str(event.totals[p]))
        self.console.print()
        self.console.print(table)
        self.say(self.end.why(self.end.after_round(event.totals, event.round)), "bold")

    def show_standings(self, event: GameEnded, rounds: Sequence[Sequence[int]]) -> None:
        _ = self._
        table = Table(title=_("standings"), title_justify="left")
        table.add_column(_("col_place"), justify="right")
        table.add_column(_("col_player"))
        table.add_column(_("col_total"), justify="right")
        order = sorted(range(len(self.names)), key=lambda p: (event.totals[p], p))
        for p in order:
            place = 1 + sum(1 for t in event.totals if t < event.totals[p])
            table.add_row(str(place), Text(cell(self.names[p])), str(event.totals[p]))
        self.console.print()
        self.console.print(table)
        self.say(self.end.winners(event.totals), "bold green")
        self.console.print()
        self.console.print(self.end.table(rounds))

    # -- the game ----------------------------------------------------------------------------
    def save(self) -> None:
        record = self.recorder.record
        if self.record_path is not None and record is not self._saved:
            record.save(self.record_path)
            self._saved = record

    def play(self) -> None:
        recorder = self.recorder
        self.save()
        while True:
            state = recorder.state
            if state.phase is Phase.OVER:
                return
            if state.phase is Phase.DEAL:
                step = recorder.add(deal_cards(state.players, self.deal_rng))
            elif state.phase is Phase.CHOOSE_CARDS:
                self.show_turn(state)
                for seat, bot in self.bots.items():
                    if seat in state.waiting_for:
                        self.show(recorder.add(bot.act(view(state, seat))).events, recorder.state)
                        state = recorder.state
                self.show_hand(view(state, HUMAN).hand)
                step = recorder.add(PlayCard(HUMAN, self.ask_card(state)))
            else:
                player = state.waiting_for[0]
                if player == HUMAN:
                    self.console.print(self.rows_table(state))
                    step = recorder.add(ChooseRow(HUMAN, self.ask_row(state)))
                else:
                    step = recorder.add(self.bots[player].act(view(state, player)))
            self.show(step.events, step.state)
            self.save()


def command(
    players: Annotated[int, typer.Option("--players", "-p", help="Players at the table, you included: 2 to 10.")] = 4,
    bots: Annotated[
        str, typer.Option("--bots", "-b", help="Bots for the other seats, comma separated; one name fills them all.")
    ] = "heuristic",
    lang: Annotated[
        str | None, typer.Option("--lang", help="Language: en, pt-PT, pt-BR, fr, de, es (default: your locale).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Same seed, same deals and same bot play.")] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Save the game (nimmt/1) to this file after every turn.")
    ] = None,
    end_above: Annotated[
        int, typer.Option("--end-above", min=0, help="The game ends after a round with a total above this.")
    ] = 66,
    rounds: Annotated[
        int | None, typer.Option("--rounds", min=1, help="Play exactly this many rounds instead.")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Your name at the table.")] = None,
    coach: Annotated[
        bool,
        typer.Option(
            "--coach/--no-coach",
            help="Let the player ask the coach for advice (type ? at a prompt); --no-coach turns it off.",
        ),
    ] = True,
    pace: Annotated[
        float | None,
        typer.Option("--pace", min=0.0, help="Seconds between revealed cards (default: 0.5 in a terminal, else 0)."),
    ] = None,
) -> None:
    """Play 6 nimmt! against bots in the terminal."""
    language = choose_language(lang, "play")
    said = i18n.translator(language, DOMAIN)  # the messages play shares with simulate and bot-check
    check_players(players, said)
    bot_names = parse_bots(bots, players - 1, _=said)
    rules = make_rules(end_above, rounds, said)
    _ = i18n.translator(language, "play")
    base = seed if seed is not None else fresh_seed()
    me = _your_name(name, language) or _("you")
    names = [me, *(_("bot_name", number=seat, bot=label(bot)) for seat, bot in enumerate(bot_names, start=1))]
    if pace is None:
        pace = 0.5 if sys.stdin.isatty() and sys.stdout.isatty() else 0.0
    console = Console(highlight=False)
    if needs_preparing(bot_names, coach):  # a first run compiles the bots' kernels: say so, not silence
        prepare_bots(language)
    seated = make_bots(bot_names, base, 0, first_seat=1, _=said)
    game = TerminalGame(console, _, names, seated, rules, 0, base, record, pace, coach, language)
    if record is not None:
        try:
            game.save()
        except OSError as error:
            reason = os_reason(error.errno, error.strerror or str(error), said)
            raise typer.BadParameter(said("save_cannot_write", file=str(record), reason=reason),
                                     param_hint="--record") from None
    if rules.rounds is not None:
        console.print(Text(_("welcome_rounds", players=players, rounds=rules.rounds), style="bold"))
    else:
        console.print(Text(_("welcome_end_above", players=players, end_above=rules.end_above), style="bold"))
    console.print(_("seed", seed=base), markup=False)
    _play_to_the_end(game, seated, record, console, _, said)


def _play_to_the_end(game: TerminalGame, seated: list[Bot], record: Path | None, console: Console,
                     _: Translate, said: Translate) -> None:
    """Play ``game`` until it is over, then close the ``seated`` bots. A game that stops is told, with
    where its record is, and ends the command: status 1 when a bot failed or the record could not be
    written, 0 when the input ended, 130 after Ctrl-C."""

    def tell_record_saved() -> None:
        if record is not None:
            console.print(_("record_saved", file=str(record)), markup=False)

    try:
        game.play()
    except BotFailure as failure:  # an external bot program failed
        console.print(_("bot_failed", error=failure_message(failure_fields(failure), said)), markup=False)
        tell_record_saved()
        raise typer.Exit(1) from None
    except NimmtError as error:  # nimmt's own mistake, which has no message of its own
        console.print(_("bot_failed", error=str(error)), markup=False)
        tell_record_saved()
        raise typer.Exit(1) from None
    except InputEnded:
        console.print(_("bye_eof"), markup=False)
        tell_record_saved()
        raise typer.Exit(0) from None
    except KeyboardInterrupt:
        console.print()
        console.print(_("bye_interrupt"), markup=False)
        tell_record_saved()
        raise typer.Exit(130) from None
    except OSError as error:
        reason = os_reason(error.errno, error.strerror or str(error), said)
        console.print(_("record_error", file=str(record), error=reason), markup=False)
        raise typer.Exit(1) from None
    finally:
        close_bots(seated)
    tell_record_saved()


def register(app: typer.Typer) -> None:
    app.command("play")(command)


def _your_name(name: str | None, language: str) -> str:
    """``--name`` as a name is kept (:func:`nimmt.names.clean_name`); "" when none was given."""
    if name is None or not name.strip():
        return ""
    try:
        return clean_name(name)
    except NameRefused as error:
        told = i18n.translator(language, "score")  # the names' messages live with the score sheet's
        raise typer.BadParameter(told(f"err_name_{error.key}", name=repr(name)[:40], **error.params),
                                 param_hint="--name") from None
