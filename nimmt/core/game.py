"""The game as immutable values and pure functions.

A game is a :class:`GameState`. :func:`apply` takes a state and an action and returns a
:class:`Step`: the new state and the events that happened, in order. Chance is data: a round
starts when a :class:`Deal` is applied, and :func:`deal_cards` makes one from an injected random
source. Nothing here reads a clock, a file or a global random generator.

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

from .cards import (
    BULLHEADS,
    DECK,
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    ROW_LIMIT,
    TURNS_PER_ROUND,
)
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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
    """Shuffle the 104 cards with ``rng``, deal ten to each player, then lay four face up."""
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


# Events: what happened, in order, so that a table can show it one step at a time.
@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int
    rows: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardChosen:
    player: int  # who has chosen; never what


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    cards: tuple[int, ...]  # in player order


@dataclass(frozen=True, slots=True)
class RowChoiceNeeded:
    player: int
    card: int


@dataclass(frozen=True, slots=True)
class RowTaken:
    player: int
    row: int
    cards: tuple[int, ...]
    bullheads: int
    chosen: bool  # True when the player chose the row for a low card, False for a sixth card


@dataclass(frozen=True, slots=True)
class CardPlaced:
    player: int
    card: int
    row: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    turn: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    RoundStarted
    | CardChosen
    | CardsRevealed
    | RowChoiceNeeded
    | RowTaken
    | CardPlaced
    | TurnEnded
    | RoundEnded
    | GameEnded
)


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
            return tuple(p for p, card in enumerate(self.chosen) if card is None)
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

    >>> target_row(((10,), (20, 25), (30,), (40,)), 27)
    1
    >>> target_row(((10,), (20,), (30,), (40,)), 5) is None
    True
    """
    best: int | None = None
    best_end = 0
    for index, row in enumerate(rows):
        end = row[-1]
        if best_end < end < card:
            best, best_end = index, end
    return best


def apply(state: GameState, action: Action) -> Step:
    """Apply one action; raise an :class:`~nimmt.core.errors.IllegalAction` (state untouched) if wrong."""
    if isinstance(action, PlayCard):
        return _play_card(state, action)
    if isinstance(action, ChooseRow):
        return _choose_row(state, action)
    if isinstance(action, Deal):
        return _start_round(state, action)
    raise NotWaitingForThat(f"{action!r} is not an action of this game")


def apply_all(state: GameState, actions: Iterable[Action]) -> GameState:
    """Apply actions in order and return the final state."""
    for action in actions:
        state = apply(state, action).state
    return state


def _check_player(state: GameState, player: object) -> int:
    if not _is_int(player) or not 0 <= player < state.players:  # type: ignore[operator]
        raise UnknownPlayer(
            f"there is no player {player!r} at this table (players are 0 to {state.players - 1})"
        )
    return player  # type: ignore[return-value]


def _start_round(state: GameState, deal: Deal) -> Step:
    if state.phase is Phase.OVER:
        raise GameOver("the game is over: no more rounds are dealt")
    if state.phase is not Phase.DEAL:
        raise NotWaitingForThat(f"round {state.round} is still being played: it cannot be dealt again")
    deal.check(state.players)
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


def _play_card(state: GameState, action: PlayCard) -> Step:
    if state.phase is Phase.OVER:
        raise GameOver("the game is over: no more cards can be played")
    player = _check_player(state, action.player)
    if state.phase is Phase.DEAL:
        raise NotWaitingForThat("no round is in progress: the cards have not been dealt yet")
    if state.phase is Phase.CHOOSE_ROW:
        waiting = state.waiting_for[0]
        raise NotWaitingForThat(
            f"player {player} cannot play a card now: the table is waiting for player {waiting} "
            f"to choose a row for card {state.row_choice_card}"
        )
    if state.chosen[player] is not None:
        raise AlreadyPlayed(f"player {player} has already chosen a card this turn")
    card = action.card
    if not _is_int(card) or card not in state.hands[player]:
        raise CardNotInHand(f"player {player} does not hold card {card!r}")
    chosen = list(state.chosen)
    chosen[player] = card
    events: list[Event] = [CardChosen(player)]
    if any(c is None for c in chosen):
        return Step(replace(state, chosen=tuple(chosen)), tuple(events))
    # Everybody has chosen: reveal together, take the cards out of the hands, resolve lowest first.
    cards = tuple(c for c in chosen if c is not None)
    events.append(CardsRevealed(cards))
    hands = tuple(
        tuple(c for c in hand if c != cards[p]) for p, hand in enumerate(state.hands)
    )
    revealed = tuple(sorted((card, p) for p, card in enumerate(cards)))
    revealing = replace(
        state, hands=hands, chosen=tuple(chosen), revealed=revealed, resolved=0
    )
    return _resolve(revealing, events)


def _choose_row(state: GameState, action: ChooseRow) -> Step:
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
    rows = list(state.rows)
    taken = list(state.taken)
    penalties = list(state.penalties)
    events: list[Event] = []
    _take(rows, taken, penalties, events, player, row, card, chosen=True)
    new = replace(
        state,
        rows=tuple(rows),
        taken=tuple(taken),
        penalties=tuple(penalties),
        resolved=state.resolved + 1,
        phase=Phase.CHOOSE_CARDS,
    )
    return _resolve(new, events)


def _take(
    rows: list[tuple[int, ...]],
    taken: list[tuple[int, ...]],
    penalties: list[int],
    events: list[Event],
    player: int,
    row: int,
    card: int,
    *,
    chosen: bool,
) -> None:
    cards = rows[row]
    heads = sum(BULLHEADS[c] for c in cards)
    taken[player] = taken[player] + cards
    penalties[player] += heads
    rows[row] = (card,)
    events.append(RowTaken(player, row, cards, heads, chosen))
    events.append(CardPlaced(player, card, row))


def _resolve(state: GameState, events: list[Event]) -> Step:
    """Place revealed cards in order until one needs its player's row choice or the turn ends."""
    rows = list(state.rows)
    taken = list(state.taken)
    penalties = list(state.penalties)
    index = state.resolved
    revealed = state.revealed
    while index < len(revealed):
        card, player = revealed[index]
        row = target_row(rows, card)
        if row is None:
            events.append(RowChoiceNeeded(player, card))
            waiting = replace(
                state,
                rows=tuple(rows),
                taken=tuple(taken),
                penalties=tuple(penalties),
                resolved=index,
                phase=Phase.CHOOSE_ROW,
            )
            return Step(waiting, tuple(events))
        if len(rows[row]) >= ROW_LIMIT:
            _take(rows, taken, penalties, events, player, row, card, chosen=False)
        else:
            rows[row] = (*rows[row], card)
            events.append(CardPlaced(player, card, row))
        index += 1
    return _end_turn(
        state, tuple(rows), tuple(taken), tuple(penalties), events
    )


def _end_turn(
    state: GameState,
    rows: tuple[tuple[int, ...], ...],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    events: list[Event],
) -> Step:
    n = state.players
    cards = tuple(c for c in state.chosen if c is not None)
    turn = state.turn + 1
    events.append(TurnEnded(turn))
    common = {
        "rows": rows,
        "taken": taken,
        "penalties": penalties,
        "turn": turn,
        "chosen": (None,) * n,
        "revealed": (),
        "resolved": 0,
        "played": (*state.played, cards),
    }
    if turn < TURNS_PER_ROUND:
        return Step(replace(state, phase=Phase.CHOOSE_CARDS, **common), tuple(events))  # type: ignore[arg-type]
    totals = tuple(t + p for t, p in zip(state.totals, penalties, strict=True))
    history = (*state.history, penalties)
    events.append(RoundEnded(state.round, penalties, totals))
    if state.rules.game_is_over(totals, len(history)):
        low = min(totals)
        winners = tuple(p for p, t in enumerate(totals) if t == low)
        events.append(GameEnded(totals, winners))
        over = replace(
            state, phase=Phase.OVER, totals=totals, history=history, winners=winners, **common  # type: ignore[arg-type]
        )
        return Step(over, tuple(events))
    nxt = replace(state, phase=Phase.DEAL, totals=totals, history=history, **common)  # type: ignore[arg-type]
    return Step(nxt, tuple(events))


def legal_actions(state: GameState, player: int) -> tuple[PlayCard | ChooseRow, ...]:
    """What ``player`` may do now; empty when the game waits for somebody else or for a deal."""
    _check_player(state, player)
    if state.phase is Phase.CHOOSE_CARDS and state.chosen[player] is None:
        return tuple(PlayCard(player, card) for card in state.hands[player])
    if state.phase is Phase.CHOOSE_ROW and state.waiting_for == (player,):
        return tuple(ChooseRow(player, row) for row in range(ROW_COUNT))
    return ()
