"""The game as immutable values and pure functions.

A game is a :class:`GameState`. :func:`apply` takes a state and an action and returns a
:class:`Step`: the new state and the events that happened, in order. Chance is data: a round
starts when a :class:`Deal` is applied, and :func:`deal_cards` makes one from an injected random
source. Nothing here reads a clock, a file or a global random generator.

Reading order: the values (:class:`Rules`, :class:`Deal`, the actions, :class:`GameState`,
:class:`Step`; the events are in :mod:`nimmt.core.events`), then :func:`apply`, which first asks
:func:`_refuse` for the error of an action the game does not allow now (every refusal is there),
then runs one rule: :func:`_start_round`, :func:`_play_card` and :func:`_reveal`,
:func:`_place_cards` (with :func:`_add_to_row` and :func:`_take_row` for the sixth card),
:func:`_choose_row` for a card below every row, :func:`_end_turn`, :func:`_end_round` and
:func:`_end_game`. The fast paths are elsewhere (:mod:`nimmt.core.fast`, :mod:`nimmt.batch`) and
are tested against this module; the row a card goes to is the one rule they share
(:func:`nimmt.core.fast.target`, which :func:`target_row` asks).

>>> state = new_game(2)
>>> deal = Deal(rows=(10, 20, 30, 40),
...             hands=((1, 2, 3, 4, 5, 6, 7, 8, 9, 11), (21, 22, 23, 24, 25, 26, 27, 28, 29, 31)))
>>> state = apply(state, deal).state
>>> state = apply(state, PlayCard(player=1, card=21)).state
>>> step = apply(state, PlayCard(player=0, card=1))
>>> step.state.phase, step.state.waiting_for
(<Phase.CHOOSE_ROW: 'choose_row'>, (0,))
>>> step = apply(step.state, ChooseRow(player=0, row=3))
>>> step.state.rows
((10,), (20, 21), (30,), (1,))
>>> step.state.penalties
(3, 0)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TypeVar

from .cards import (
    DECK,
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    ROW_LIMIT,
    TURNS_PER_ROUND,
    row_bullheads,
)
from .cards import is_int as _is_int
from .errors import (
    AlreadyPlayed,
    CardNotInHand,
    DealError,
    GameOver,
    NotWaitingForThat,
    NotYourTurn,
    RowOutOfRange,
    RulesError,
    UnknownPlayer,
    UnsupportedEdition,
)
from .events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    Event,
    GameEnded,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    TurnEnded,
)
from .fast import target

CLASSIC = "classic"
DEFAULT_END_ABOVE = 66
# Editions and variants that the seeds describe; nimmt explains them but plays only the classic one.
KNOWN_UNSUPPORTED_EDITIONS = frozenset(
    {"professional", "pro", "tactical", "birthday", "anniversary", "junior", "x", "3d"}
)


class Phase(StrEnum):
    """What the game is waiting for."""

    DEAL = "deal"  # a new round: the cards must be dealt (chance)
    CHOOSE_CARDS = "choose_cards"  # every player picks a card in secret
    CHOOSE_ROW = "choose_row"  # one player's card is below every row: that player picks a row
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Rules:
    """Table options. The defaults are the classic game: it ends after a round with a total above 66.

    >>> Rules(rounds=3).rounds
    3
    >>> try:
    ...     Rules(edition="professional")
    ... except UnsupportedEdition as error:
    ...     print(error)
    the professional edition is not automated: nimmt plays only the classic edition
    """

    edition: str = CLASSIC
    end_above: int = DEFAULT_END_ABOVE
    rounds: int | None = None

    def __post_init__(self) -> None:
        if self.edition != CLASSIC:
            if isinstance(self.edition, str) and self.edition.lower() in KNOWN_UNSUPPORTED_EDITIONS:
                raise UnsupportedEdition(
                    f"the {self.edition} edition is not automated: nimmt plays only the classic edition"
                )
            raise UnsupportedEdition(
                f"unknown edition {self.edition!r}: nimmt plays only the classic edition"
            )
        if not _is_int(self.end_above) or self.end_above < 0:
            raise RulesError(f"end_above must be a whole number from 0 up, not {self.end_above!r}")
        if self.rounds is not None and (not _is_int(self.rounds) or self.rounds < 1):
            raise RulesError(f"rounds must be a whole number from 1 up, or unset, not {self.rounds!r}")

    def game_is_over(self, totals: Sequence[int], rounds_played: int) -> bool:
        """Checked only after a complete round."""
        if self.rounds is not None:
            return rounds_played >= self.rounds
        return any(total > self.end_above for total in totals)


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one round: the four cards that start rows 0 to 3, and each player's hand."""

    rows: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]

    def check(self, players: int) -> None:
        """Raise :class:`DealError` unless this deal fits a table of ``players``."""
        # A deal may come from outside (a record, a client): check shapes before len().
        if not isinstance(self.rows, tuple | list):
            raise DealError(f"the rows of a deal must be a list of {ROW_COUNT} cards, not {self.rows!r}")
        if not isinstance(self.hands, tuple | list):
            raise DealError(f"the hands of a deal must be a list of hands, not {self.hands!r}")
        for p, hand in enumerate(self.hands):
            if not isinstance(hand, tuple | list):
                raise DealError(f"player {p}'s hand must be a list of cards, not {hand!r}")
        if len(self.hands) != players:
            raise DealError(f"the deal has {len(self.hands)} hands for {players} players")
        if len(self.rows) != ROW_COUNT:
            raise DealError(f"a deal starts {ROW_COUNT} rows, not {len(self.rows)}")
        seen: set[int] = set()
        for where, cards in (("the rows", self.rows), *(
            (f"player {p}'s hand", hand) for p, hand in enumerate(self.hands)
        )):
            if where != "the rows" and len(cards) != HAND_SIZE:
                raise DealError(f"{where} has {len(cards)} cards instead of {HAND_SIZE}")
            for card in cards:
                if not _is_int(card) or not LOWEST_CARD <= card <= HIGHEST_CARD:
                    raise DealError(f"{where} holds {card!r}, which is not a card from 1 to 104")
                if card in seen:
                    raise DealError(f"card {card} is dealt twice ({where})")
                seen.add(card)


def deal_cards(players: int, rng: random.Random) -> Deal:
    """Shuffle the 104 cards with ``rng``, deal ten to each player, then lay four face up.

    A seed gives the same deals as ever:

    >>> rng, reference = random.Random(7), random.Random(7)
    >>> cards = list(DECK)
    >>> reference.shuffle(cards)
    >>> deal = deal_cards(4, rng)
    >>> deal.hands[3] == tuple(sorted(cards[30:40])) and deal.rows == tuple(cards[40:44])
    True
    >>> rng.random() == reference.random()
    True
    """
    _check_player_count(players)
    cards = list(DECK)
    rng.shuffle(cards)
    hands = tuple(
        tuple(sorted(cards[p * HAND_SIZE : (p + 1) * HAND_SIZE])) for p in range(players)
    )
    start = players * HAND_SIZE
    return Deal(rows=tuple(cards[start : start + ROW_COUNT]), hands=hands)


@dataclass(frozen=True, slots=True)
class PlayCard:
    """A player picks a card from their hand, in secret, for this turn."""

    player: int
    card: int


@dataclass(frozen=True, slots=True)
class ChooseRow:
    """The player whose card is below every row takes row ``row`` (0 to 3)."""

    player: int
    row: int


Action = Deal | PlayCard | ChooseRow


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about a game at one moment, secrets included. Only the core sees it whole."""

    rules: Rules
    players: int
    phase: Phase = Phase.DEAL
    round: int = 0  # rounds started; 1 during the first round
    turn: int = 0  # turns completed in this round, 0 to 10
    rows: tuple[tuple[int, ...], ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    chosen: tuple[int | None, ...] = ()  # this turn's secret picks, by player
    revealed: tuple[tuple[int, int], ...] = ()  # (card, player) of this turn, lowest card first
    resolved: int = 0  # how many revealed cards are placed
    played: tuple[tuple[int, ...], ...] = ()  # earlier turns of this round, cards in player order
    taken: tuple[tuple[int, ...], ...] = ()  # cards each player took this round
    penalties: tuple[int, ...] = ()  # bullheads each player took this round
    totals: tuple[int, ...] = ()
    history: tuple[tuple[int, ...], ...] = ()  # penalties of each complete round
    winners: tuple[int, ...] = ()

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """The players whose action the game needs now (empty while it waits for a deal)."""
        if self.phase is Phase.CHOOSE_CARDS:
            return tuple([p for p, card in enumerate(self.chosen) if card is None])
        if self.phase is Phase.CHOOSE_ROW:
            return (self.revealed[self.resolved][1],)
        return ()

    @property
    def row_choice_card(self) -> int | None:
        """The card waiting for its player's row choice, if any."""
        if self.phase is Phase.CHOOSE_ROW:
            return self.revealed[self.resolved][0]
        return None

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER


@dataclass(frozen=True, slots=True)
class Step:
    state: GameState
    events: tuple[Event, ...] = field(default=())


def _check_player_count(players: int) -> None:
    if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(f"a table has 2 to 10 players, not {players!r}")


def new_game(players: int, rules: Rules | None = None) -> GameState:
    """A game before its first deal."""
    _check_player_count(players)
    return GameState(rules=rules or Rules(), players=players, totals=(0,) * players)


def target_row(rows: Sequence[Sequence[int]], card: int) -> int | None:
    """The row a card goes to: the one ending with the highest card below it; None if none is.
    The rule looks only at the rows' last cards, and is written once, on them: :func:`.fast.target`
    (which the faster engines place with too).

    >>> target_row(((10,), (20, 25), (30,), (40,)), 27)
    1
    >>> target_row(((10,), (20,), (30,), (40,)), 5) is None
    True
    """
    row = target([row[-1] for row in rows], card)
    return None if row < 0 else row


def apply(state: GameState, action: Action) -> Step:
    """Apply one action; raise an :class:`~nimmt.core.errors.IllegalAction` (state untouched) if wrong.

    A deal that does not fit the table raises :class:`~nimmt.core.errors.DealError` instead.
    """
    _refuse(state, action)
    if isinstance(action, Deal):
        return _start_round(state, action)
    if isinstance(action, PlayCard):
        return _play_card(state, action.player, action.card)
    return _choose_row(state, action.player, action.row)


def apply_all(state: GameState, actions: Iterable[Action]) -> GameState:
    """Apply actions in order and return the final state."""
    for action in actions:
        state = apply(state, action).state
    return state


def take_back(state: GameState, player: int) -> GameState:
    """The game with ``player``'s face-down card back in their hand, before the turn is revealed:
    nobody has seen it, so the player may choose again. :class:`NotWaitingForThat` if that player
    has no face-down card (none chosen yet, or the turn is revealed).

    >>> state = replace(new_game(2), phase=Phase.CHOOSE_CARDS, chosen=(None, 21))
    >>> take_back(state, 1).chosen
    (None, None)
    """
    _check_player(state, player)
    if state.phase is not Phase.CHOOSE_CARDS or state.chosen[player] is None:
        raise NotWaitingForThat(f"player {player} has no face-down card to take back: the turn is revealed, "
                                "or no card is chosen")
    return replace(state, chosen=_replaced(state.chosen, player, None))


def legal_actions(state: GameState, player: int) -> tuple[PlayCard | ChooseRow, ...]:
    """What ``player`` may do now; empty when the game waits for somebody else or for a deal."""
    _check_player(state, player)
    if state.phase is Phase.CHOOSE_CARDS and state.chosen[player] is None:
        return tuple([PlayCard(player, card) for card in state.hands[player]])
    if state.phase is Phase.CHOOSE_ROW and state.waiting_for == (player,):
        return tuple([ChooseRow(player, row) for row in range(ROW_COUNT)])
    return ()


# The refusals: every action that apply() does not allow is stopped here, before any rule runs.


def _refuse(state: GameState, action: object) -> None:
    """Raise the error for an action that the game does not allow now; return if it does.

    The checks run in this order, and the first that fails decides the error.

    >>> state = new_game(2)
    >>> _refuse(state, PlayCard(player=0, card=5))
    Traceback (most recent call last):
    nimmt.core.errors.NotWaitingForThat: no round is in progress: the cards have not been dealt yet
    >>> _refuse(state, PlayCard(player=2, card=5))
    Traceback (most recent call last):
    nimmt.core.errors.UnknownPlayer: there is no player 2 at this table (players are 0 to 1)
    >>> _refuse(state, "deal")
    Traceback (most recent call last):
    nimmt.core.errors.NotWaitingForThat: 'deal' is not an action of this game
    """
    if isinstance(action, PlayCard):
        _refuse_card(state, action)
    elif isinstance(action, ChooseRow):
        _refuse_row(state, action)
    elif isinstance(action, Deal):
        _refuse_deal(state, action)
    else:
        raise NotWaitingForThat(f"{action!r} is not an action of this game")


def _refuse_deal(state: GameState, deal: Deal) -> None:
    if state.phase is Phase.OVER:
        raise GameOver("the game is over: no more rounds are dealt")
    if state.phase is not Phase.DEAL:
        raise NotWaitingForThat(f"round {state.round} is still being played: it cannot be dealt again")
    deal.check(state.players)


def _refuse_card(state: GameState, action: PlayCard) -> None:
    if state.phase is Phase.OVER:
        raise GameOver("the game is over: no more cards can be played")
    player = _check_player(state, action.player)
    if state.phase is Phase.DEAL:
        raise NotWaitingForThat("no round is in progress: the cards have not been dealt yet")
    if state.phase is Phase.CHOOSE_ROW:
        raise NotWaitingForThat(
            f"player {player} cannot play a card now: the table is waiting for player "
            f"{state.waiting_for[0]} to choose a row for card {state.row_choice_card}"
        )
    if state.chosen[player] is not None:
        raise AlreadyPlayed(f"player {player} has already chosen a card this turn")
    card = action.card
    if not _is_int(card) or card not in state.hands[player]:
        raise CardNotInHand(f"player {player} does not hold card {card!r}")


def _refuse_row(state: GameState, action: ChooseRow) -> None:
    if state.phase is Phase.OVER:
        raise GameOver("the game is over: no row can be chosen")
    player = _check_player(state, action.player)
    if state.phase is not Phase.CHOOSE_ROW:
        raise NotWaitingForThat(
            f"player {player} cannot choose a row now: no card is waiting for a row choice"
        )
    card, waiting = state.revealed[state.resolved]
    if player != waiting:
        raise NotYourTurn(
            f"player {player} cannot choose a row: the table is waiting for player {waiting} "
            f"to choose a row for card {card}"
        )
    row = action.row
    if not _is_int(row) or not 0 <= row < ROW_COUNT:
        raise RowOutOfRange(f"row {row!r} does not exist: rows are numbered 0 to {ROW_COUNT - 1}")


def _check_player(state: GameState, player: object) -> int:
    if not _is_int(player) or not 0 <= player < state.players:  # type: ignore[operator]
        raise UnknownPlayer(
            f"there is no player {player!r} at this table (players are 0 to {state.players - 1})"
        )
    return player  # type: ignore[return-value]


# The rules, one function each, called only with actions that _refuse() let through. Each returns
# the Step it makes (the new state and the events, in order), except the two that place one card:
# they work on the lists of rows, cards taken and penalties of the turn being placed, and return
# their events.


def _start_round(state: GameState, deal: Deal) -> Step:
    """A round starts: each deal card starts a row, the hands are sorted, nothing is played yet.

    >>> deal = Deal(rows=(10, 20, 30, 40), hands=(tuple(range(50, 60)), tuple(range(60, 70))))
    >>> step = _start_round(new_game(2), deal)
    >>> step.state.rows, step.state.phase
    (((10,), (20,), (30,), (40,)), <Phase.CHOOSE_CARDS: 'choose_cards'>)
    >>> step.events
    (RoundStarted(round=1, rows=(10, 20, 30, 40)),)
    """
    n = state.players
    round_number = state.round + 1
    new = replace(
        state,
        phase=Phase.CHOOSE_CARDS,
        round=round_number,
        turn=0,
        rows=tuple((card,) for card in deal.rows),
        hands=tuple(tuple(sorted(hand)) for hand in deal.hands),
        chosen=(None,) * n,
        revealed=(),
        resolved=0,
        played=(),
        taken=((),) * n,
        penalties=(0,) * n,
    )
    return Step(new, (RoundStarted(round_number, tuple(deal.rows)),))


def _play_card(state: GameState, player: int, card: int) -> Step:
    """A player picks a card in secret; the last pick of the turn reveals them all.

    >>> state = replace(new_game(2), phase=Phase.CHOOSE_CARDS, chosen=(None, None))
    >>> step = _play_card(state, player=1, card=21)
    >>> step.state.chosen, step.events
    ((None, 21), (CardChosen(player=1),))
    """
    chosen = _replaced(state.chosen, player, card)
    if None in chosen:
        return Step(replace(state, chosen=chosen), (CardChosen(player),))
    cards = tuple([card for card in chosen if card is not None])
    return _reveal(state, cards, [CardChosen(player)])


def _reveal(state: GameState, cards: tuple[int, ...], events: list[Event]) -> Step:
    """Everybody has chosen ``cards`` (in player order): they are shown together and leave the
    hands, then they are placed, lowest first.

    >>> state = GameState(Rules(), 2, rows=((10,), (20,), (30,), (40,)), hands=((5, 12), (21, 22)),
    ...                   taken=((), ()), penalties=(0, 0))
    >>> step = _reveal(state, (12, 21), [])
    >>> step.events[:3]
    (CardsRevealed(cards=(12, 21)), CardPlaced(player=0, card=12, row=0), CardPlaced(player=1, card=21, row=1))
    >>> step.state.hands, step.state.rows
    (((5,), (22,)), ((10, 12), (20, 21), (30,), (40,)))
    """
    events.append(CardsRevealed(cards))
    revealed = replace(
        state,
        hands=tuple([
            tuple([card for card in hand if card != mine])
            for hand, mine in zip(state.hands, cards, strict=True)
        ]),
        chosen=cards,
        revealed=tuple(sorted([(card, player) for player, card in enumerate(cards)])),
        resolved=0,
    )
    return _place_cards(revealed, events)


def _place_cards(state: GameState, events: list[Event]) -> Step:
    """Place the revealed cards from ``state.resolved`` on, lowest first, each on its row
    (:func:`target_row`), until one is below every row or all are placed (the turn ends).

    A card below every row stops the turn: the game waits for its player to choose a row to take
    (:func:`_choose_row`), and the cards above it wait too.
    """
    rows, taken, penalties = list(state.rows), list(state.taken), list(state.penalties)
    for index in range(state.resolved, len(state.revealed)):
        card, player = state.revealed[index]
        row = target_row(rows, card)
        if row is None:
            events.append(RowChoiceNeeded(player, card))
            waiting = replace(
                state,
                phase=Phase.CHOOSE_ROW,
                rows=tuple(rows),
                taken=tuple(taken),
                penalties=tuple(penalties),
                resolved=index,
            )
            return Step(waiting, tuple(events))
        if len(rows[row]) >= ROW_LIMIT:
            events += _take_row(rows, taken, penalties, player, card, row, chosen=False)
        else:
            events.append(_add_to_row(rows, player, card, row))
    return _end_turn(state, tuple(rows), tuple(taken), tuple(penalties), events)


def _add_to_row(rows: list[tuple[int, ...]], player: int, card: int, row: int) -> CardPlaced:
    """The card goes at the end of its row.

    >>> rows = [(10,), (20,), (30,), (40,)]
    >>> _add_to_row(rows, player=1, card=21, row=1)
    CardPlaced(player=1, card=21, row=1)
    >>> rows
    [(10,), (20, 21), (30,), (40,)]
    """
    rows[row] += (card,)
    return CardPlaced(player, card, row)


def _take_row(
    rows: list[tuple[int, ...]],
    taken: list[tuple[int, ...]],
    penalties: list[int],
    player: int,
    card: int,
    row: int,
    *,
    chosen: bool,
) -> tuple[RowTaken, CardPlaced]:
    """The player takes the row's cards and their bullheads, and the card starts the row again.

    This is the sixth card (``chosen=False``: its row already holds five cards) and the row chosen
    for a card below every row (``chosen=True``).

    >>> rows, taken, penalties = [(10,), (20, 21, 22, 23, 24), (30,), (40,)], [(), ()], [0, 0]
    >>> for event in _take_row(rows, taken, penalties, player=0, card=25, row=1, chosen=False):
    ...     print(event)
    RowTaken(player=0, row=1, cards=(20, 21, 22, 23, 24), bullheads=11, chosen=False)
    CardPlaced(player=0, card=25, row=1)
    >>> rows, taken, penalties
    ([(10,), (25,), (30,), (40,)], [(20, 21, 22, 23, 24), ()], [11, 0])
    """
    cards = rows[row]
    heads = row_bullheads(cards)
    rows[row] = (card,)
    taken[player] += cards
    penalties[player] += heads
    return RowTaken(player, row, cards, heads, chosen), CardPlaced(player, card, row)


def _choose_row(state: GameState, player: int, row: int) -> Step:
    """The player whose card was below every row takes the chosen row; the card starts it again,
    and the cards above it are placed.

    >>> state = GameState(Rules(), 2, phase=Phase.CHOOSE_ROW, rows=((10,), (20,), (30,), (40,)),
    ...                   chosen=(1, 21), revealed=((1, 0), (21, 1)), taken=((), ()), penalties=(0, 0))
    >>> step = _choose_row(state, player=0, row=3)
    >>> step.state.rows, step.state.penalties
    (((10,), (20, 21), (30,), (1,)), (3, 0))
    """
    card = state.revealed[state.resolved][0]
    rows, taken, penalties = list(state.rows), list(state.taken), list(state.penalties)
    events: list[Event] = [*_take_row(rows, taken, penalties, player, card, row, chosen=True)]
    chosen = replace(
        state,
        rows=tuple(rows),
        taken=tuple(taken),
        penalties=tuple(penalties),
        resolved=state.resolved + 1,
    )
    return _place_cards(chosen, events)


def _end_turn(
    state: GameState,
    rows: tuple[tuple[int, ...], ...],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    events: list[Event],
) -> Step:
    """Every revealed card is placed, which left these rows, cards taken and penalties: the next
    turn starts, or the round ends after the tenth."""
    turn = state.turn + 1
    new = replace(
        state,
        phase=Phase.CHOOSE_CARDS,
        turn=turn,
        rows=rows,
        taken=taken,
        penalties=penalties,
        chosen=(None,) * state.players,
        revealed=(),
        resolved=0,
        played=(*state.played, tuple([card for card in state.chosen if card is not None])),
    )
    events.append(TurnEnded(turn))
    if turn < TURNS_PER_ROUND:
        return Step(new, tuple(events))
    return _end_round(new, events)


def _end_round(state: GameState, events: list[Event]) -> Step:
    """The round's penalties join the totals; the game ends if the rules say so, else the next round
    waits for its deal.

    >>> state = GameState(Rules(), 2, penalties=(70, 3), totals=(0, 1))
    >>> step = _end_round(state, [])
    >>> step.state.totals, step.state.history, step.state.winners
    ((70, 4), ((70, 3),), (1,))
    """
    totals = tuple(total + penalty for total, penalty in zip(state.totals, state.penalties, strict=True))
    history = (*state.history, state.penalties)
    new = replace(state, phase=Phase.DEAL, totals=totals, history=history)
    events.append(RoundEnded(state.round, state.penalties, totals))
    if state.rules.game_is_over(totals, len(history)):
        return _end_game(new, events)
    return Step(new, tuple(events))


def _end_game(state: GameState, events: list[Event]) -> Step:
    """The game is over: the players with the lowest total win."""
    low = min(state.totals)
    winners = tuple(player for player, total in enumerate(state.totals) if total == low)
    events.append(GameEnded(state.totals, winners))
    return Step(replace(state, phase=Phase.OVER, winners=winners), tuple(events))


T = TypeVar("T")


def _replaced(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the one at ``index`` replaced.

    >>> _replaced((1, 2, 3), 1, 9)
    (1, 9, 3)
    """
    return (*values[:index], value, *values[index + 1 :])
