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
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

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
        if self._is_plainly_good(players):
            return
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

    def _is_plainly_good(self, players: int) -> bool:
        """A quick test passed by every good deal made of tuples of plain ints (all of them, in
        practice); False sends the deal through :meth:`check`'s card-by-card test and its messages."""
        rows, hands = self.rows, self.hands
        if type(rows) is not tuple or type(hands) is not tuple:
            return False
        if len(rows) != ROW_COUNT or len(hands) != players:
            return False
        cards = list(rows)
        for hand in hands:
            if type(hand) is not tuple or len(hand) != HAND_SIZE:
                return False
            cards += hand
        return (
            set(map(type, cards)) == {int}
            and len(set(cards)) == len(cards)
            and min(cards) >= LOWEST_CARD
            and max(cards) <= HIGHEST_CARD
        )


def deal_cards(players: int, rng: random.Random) -> Deal:
    """Shuffle the 104 cards with ``rng``, deal ten to each player, then lay four face up.

    The shuffle is ``rng.shuffle``'s, draw for draw (a seed gives the same deals as ever):

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
    _shuffle(cards, rng)
    hands = tuple(
        tuple(sorted(cards[p * HAND_SIZE : (p + 1) * HAND_SIZE])) for p in range(players)
    )
    start = players * HAND_SIZE
    return Deal(rows=tuple(cards[start : start + ROW_COUNT]), hands=hands)


_SHUFFLE = random.Random.shuffle
_RANDBELOW = getattr(random.Random, "_randbelow_with_getrandbits", None)
_BITS = tuple(n.bit_length() for n in range(len(DECK) + 1))


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """``rng.shuffle(cards)``: the same swaps from the same random bits, without a method call per
    card. Any generator whose shuffle works otherwise (another ``shuffle``, or draws that do not
    come from ``getrandbits``) shuffles for itself."""
    if (
        _RANDBELOW is None
        or getattr(getattr(rng, "shuffle", None), "__func__", None) is not _SHUFFLE
        or getattr(getattr(rng, "_randbelow", None), "__func__", None) is not _RANDBELOW
    ):
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    bits = _BITS
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1  # as Random._randbelow_with_getrandbits(n): k bits, drawn again until below n
        k = bits[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


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
        phase = self.phase
        if phase is _CHOOSE_CARDS:
            return tuple([p for p, card in enumerate(self.chosen) if card is None])
        if phase is _CHOOSE_ROW:
            return (self.revealed[self.resolved][1],)
        return ()

    @property
    def row_choice_card(self) -> int | None:
        """The card waiting for its player's row choice, if any."""
        if self.phase is _CHOOSE_ROW:
            return self.revealed[self.resolved][0]
        return None

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER


@dataclass(frozen=True, slots=True)
class Step:
    state: GameState
    events: tuple[Event, ...] = field(default=())


_DEAL = Phase.DEAL
_CHOOSE_CARDS = Phase.CHOOSE_CARDS
_CHOOSE_ROW = Phase.CHOOSE_ROW
_OVER = Phase.OVER

# Private constructors for the values apply() makes at every step. The dataclass __init__ of a
# frozen class sets each field through object.__setattr__ (dataclasses.replace is slower still),
# which is most of what a step costs. Instead, each value is filled in as a "draft": an instance of
# a plain class with exactly the same slots, then turned into the frozen class by setting its
# __class__ (allowed because the two layouts are the same). The result is an ordinary, frozen
# instance with the same fields as the public constructor would give. Only the core calls these,
# with values it has already checked.
_new = object.__new__


def _draft_class(cls: type) -> Any:
    """A plain class with the slots of the frozen dataclass ``cls``, to fill in a new value.

    >>> draft = _new(_draft_class(TurnEnded))
    >>> draft.turn = 3
    >>> draft.__class__ = TurnEnded
    >>> draft == TurnEnded(3), draft
    (True, TurnEnded(turn=3))
    >>> draft.turn = 4
    Traceback (most recent call last):
    dataclasses.FrozenInstanceError: cannot assign to field 'turn'
    """
    return type(f"{cls.__name__}Draft", (), {"__slots__": vars(cls)["__slots__"], "__module__": __name__})


_STATE_DRAFT = _draft_class(GameState)
_STEP_DRAFT = _draft_class(Step)
_CARDS_REVEALED_DRAFT = _draft_class(CardsRevealed)
_ROW_CHOICE_NEEDED_DRAFT = _draft_class(RowChoiceNeeded)
_CARD_PLACED_DRAFT = _draft_class(CardPlaced)
_ROW_TAKEN_DRAFT = _draft_class(RowTaken)
_BULLHEADS_OF = BULLHEADS.__getitem__


def _state(
    rules: Rules,
    players: int,
    phase: Phase,
    round: int,
    turn: int,
    rows: tuple[tuple[int, ...], ...],
    hands: tuple[tuple[int, ...], ...],
    chosen: tuple[int | None, ...],
    revealed: tuple[tuple[int, int], ...],
    resolved: int,
    played: tuple[tuple[int, ...], ...],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    totals: tuple[int, ...],
    history: tuple[tuple[int, ...], ...],
    winners: tuple[int, ...],
) -> GameState:
    """``GameState(...)`` with every field given in order, made faster.

    >>> state = new_game(3)
    >>> _state(*(getattr(state, name) for name in GameState.__slots__)) == state
    True
    """
    draft = _new(_STATE_DRAFT)
    draft.rules = rules
    draft.players = players
    draft.phase = phase
    draft.round = round
    draft.turn = turn
    draft.rows = rows
    draft.hands = hands
    draft.chosen = chosen
    draft.revealed = revealed
    draft.resolved = resolved
    draft.played = played
    draft.taken = taken
    draft.penalties = penalties
    draft.totals = totals
    draft.history = history
    draft.winners = winners
    draft.__class__ = GameState
    state: GameState = draft
    return state


def _step(state: GameState, events: tuple[Event, ...]) -> Step:
    """``Step(state, events)``, made faster."""
    draft = _new(_STEP_DRAFT)
    draft.state = state
    draft.events = events
    draft.__class__ = Step
    step: Step = draft
    return step


def _cards_revealed(cards: tuple[int, ...]) -> CardsRevealed:
    draft = _new(_CARDS_REVEALED_DRAFT)
    draft.cards = cards
    draft.__class__ = CardsRevealed
    event: CardsRevealed = draft
    return event


def _row_choice_needed(player: int, card: int) -> RowChoiceNeeded:
    draft = _new(_ROW_CHOICE_NEEDED_DRAFT)
    draft.player = player
    draft.card = card
    draft.__class__ = RowChoiceNeeded
    event: RowChoiceNeeded = draft
    return event


def _card_placed(player: int, card: int, row: int) -> CardPlaced:
    draft = _new(_CARD_PLACED_DRAFT)
    draft.player = player
    draft.card = card
    draft.row = row
    draft.__class__ = CardPlaced
    event: CardPlaced = draft
    return event


# Events that depend on the player or the turn alone, made once (events are immutable values).
_CARD_CHOSEN: tuple[tuple[Event, ...], ...] = tuple((CardChosen(p),) for p in range(MAX_PLAYERS))
_TURN_ENDED: tuple[TurnEnded, ...] = tuple(TurnEnded(t) for t in range(TURNS_PER_ROUND + 1))


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
    phase = state.phase
    if phase is _OVER:
        raise GameOver("the game is over: no more rounds are dealt")
    if phase is not _DEAL:
        raise NotWaitingForThat(f"round {state.round} is still being played: it cannot be dealt again")
    n = state.players
    deal.check(n)
    round_number = state.round + 1
    new = _state(
        state.rules,
        n,
        _CHOOSE_CARDS,
        round_number,
        0,
        tuple([(card,) for card in deal.rows]),
        tuple([tuple(sorted(hand)) for hand in deal.hands]),
        (None,) * n,
        (),
        0,
        (),
        ((),) * n,
        (0,) * n,
        state.totals,
        state.history,
        state.winners,
    )
    return _step(new, (RoundStarted(round_number, tuple(deal.rows)),))


def _refuse_card(state: GameState, action: PlayCard) -> None:
    """Raise the error for a card that cannot be played now; return if it can be after all."""
    if state.phase is _OVER:
        raise GameOver("the game is over: no more cards can be played")
    player = _check_player(state, action.player)
    if state.phase is _DEAL:
        raise NotWaitingForThat("no round is in progress: the cards have not been dealt yet")
    if state.phase is _CHOOSE_ROW:
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


def _play_card(state: GameState, action: PlayCard) -> Step:
    player = action.player
    card = action.card
    chosen = state.chosen
    # The usual case is tested in one go; anything else gets the full checks, in their order.
    if not (
        state.phase is _CHOOSE_CARDS
        and type(player) is int
        and 0 <= player < state.players
        and chosen[player] is None
        and type(card) is int
        and card in state.hands[player]
    ):
        _refuse_card(state, action)
    picks = list(chosen)
    picks[player] = card
    if None in picks:
        # Most actions end here: only the choices change.
        events = _CARD_CHOSEN[player] if type(player) is int else (CardChosen(player),)
        return _step(
            _state(
                state.rules, state.players, state.phase, state.round, state.turn, state.rows, state.hands,
                tuple(picks), state.revealed, state.resolved, state.played, state.taken, state.penalties,
                state.totals, state.history, state.winners,
            ),
            events,
        )
    # Everybody has chosen: reveal together, take the cards out of the hands, resolve lowest first.
    cards: tuple[int, ...] = tuple(picks)  # type: ignore[arg-type]  # no None is left
    hands = []
    for hand, mine in zip(state.hands, cards, strict=True):
        at = hand.index(mine)  # a hand holds each card once
        hands.append(hand[:at] + hand[at + 1 :])
    revealed = tuple(sorted(zip(cards, range(len(cards)), strict=True)))
    return _resolve(
        state, tuple(hands), cards, revealed, 0, list(state.rows), state.taken, state.penalties,
        [
            _CARD_CHOSEN[player][0] if type(player) is int else CardChosen(player),
            _cards_revealed(cards),
        ],
    )


def _choose_row(state: GameState, action: ChooseRow) -> Step:
    player = action.player
    row = action.row
    resolved = state.resolved
    # The usual case is tested in one go; anything else gets the full checks, in their order.
    if (
        state.phase is _CHOOSE_ROW
        and type(player) is int
        and type(row) is int
        and 0 <= row < ROW_COUNT
        and state.revealed[resolved][1] == player
        and 0 <= player < state.players
    ):
        card = state.revealed[resolved][0]
    else:
        card, player, row = _refuse_row(state, action)
    rows = list(state.rows)
    events: list[Event] = []
    taken, penalties = _take(
        rows, state.taken, state.penalties, events, player, row, card, chosen=True
    )
    return _resolve(
        state, state.hands, state.chosen, state.revealed, resolved + 1, rows, taken,
        penalties, events,
    )


def _refuse_row(state: GameState, action: ChooseRow) -> tuple[int, int, int]:
    """Raise the error for a row choice that is wrong now; if it is right after all, return the
    waiting card, the player and the row."""
    if state.phase is _OVER:
        raise GameOver("the game is over: no row can be chosen")
    player = _check_player(state, action.player)
    if state.phase is not _CHOOSE_ROW:
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
    return card, player, row


def _take(
    rows: list[tuple[int, ...]],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    events: list[Event],
    player: int,
    row: int,
    card: int,
    *,
    chosen: bool,
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """``player`` takes ``row`` and ``card`` starts it again; returns the new taken and penalties."""
    cards = rows[row]
    heads = sum(map(_BULLHEADS_OF, cards))
    rows[row] = (card,)
    taking = _new(_ROW_TAKEN_DRAFT)
    taking.player = player
    taking.row = row
    taking.cards = cards
    taking.bullheads = heads
    taking.chosen = chosen
    taking.__class__ = RowTaken
    events.append(taking)
    events.append(_card_placed(player, card, row))
    after = player + 1
    return (
        (*taken[:player], taken[player] + cards, *taken[after:]),
        (*penalties[:player], penalties[player] + heads, *penalties[after:]),
    )


def _resolve(
    state: GameState,
    hands: tuple[tuple[int, ...], ...],
    chosen: tuple[int | None, ...],
    revealed: tuple[tuple[int, int], ...],
    index: int,
    rows: list[tuple[int, ...]],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    events: list[Event],
) -> Step:
    """Place revealed cards in order from ``index`` until one needs its player's row choice or the
    turn ends. ``state`` gives the fields that this turn does not change."""
    count = len(revealed)
    ends = [cards[-1] for cards in rows]
    while index < count:
        card, player = revealed[index]
        row = -1  # target_row(), inline: this is the innermost loop of the engine
        best_end = 0
        for r, end in enumerate(ends):
            if best_end < end < card:
                row = r
                best_end = end
        if row < 0:
            events.append(_row_choice_needed(player, card))
            waiting = _state(
                state.rules, state.players, _CHOOSE_ROW, state.round, state.turn, tuple(rows),
                hands, chosen, revealed, index, state.played, taken, penalties, state.totals,
                state.history, state.winners,
            )
            return _step(waiting, tuple(events))
        cards = rows[row]
        if len(cards) >= ROW_LIMIT:
            taken, penalties = _take(rows, taken, penalties, events, player, row, card, chosen=False)
        else:
            rows[row] = cards + (card,)  # noqa: RUF005  (half the time of (*cards, card))
            placed = _new(_CARD_PLACED_DRAFT)  # _card_placed(), inline
            placed.player = player
            placed.card = card
            placed.row = row
            placed.__class__ = CardPlaced
            events.append(placed)
        ends[row] = card
        index += 1
    return _end_turn(state, hands, chosen, tuple(rows), taken, penalties, events)


def _end_turn(
    state: GameState,
    hands: tuple[tuple[int, ...], ...],
    chosen: tuple[int | None, ...],
    rows: tuple[tuple[int, ...], ...],
    taken: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    events: list[Event],
) -> Step:
    n = state.players
    cards = tuple([c for c in chosen if c is not None]) if None in chosen else chosen
    played = (*state.played, cast("tuple[int, ...]", cards))
    turn = state.turn + 1
    events.append(_TURN_ENDED[turn] if type(turn) is int and 0 < turn <= TURNS_PER_ROUND else TurnEnded(turn))
    nobody = (None,) * n
    if turn < TURNS_PER_ROUND:
        nxt = _state(
            state.rules, n, _CHOOSE_CARDS, state.round, turn, rows, hands, nobody, (), 0, played,
            taken, penalties, state.totals, state.history, state.winners,
        )
        return _step(nxt, tuple(events))
    totals = tuple(t + p for t, p in zip(state.totals, penalties, strict=True))
    history = (*state.history, penalties)
    events.append(RoundEnded(state.round, penalties, totals))
    phase = _DEAL
    winners = state.winners
    if state.rules.game_is_over(totals, len(history)):
        low = min(totals)
        winners = tuple(p for p, t in enumerate(totals) if t == low)
        events.append(GameEnded(totals, winners))
        phase = _OVER
    nxt = _state(
        state.rules, n, phase, state.round, turn, rows, hands, nobody, (), 0, played, taken,
        penalties, totals, history, winners,
    )
    return _step(nxt, tuple(events))


def legal_actions(state: GameState, player: int) -> tuple[PlayCard | ChooseRow, ...]:
    """What ``player`` may do now; empty when the game waits for somebody else or for a deal."""
    _check_player(state, player)
    if state.phase is _CHOOSE_CARDS and state.chosen[player] is None:
        return tuple([PlayCard(player, card) for card in state.hands[player]])
    if state.phase is _CHOOSE_ROW and state.revealed[state.resolved][1] == player:
        return tuple([ChooseRow(player, row) for row in range(ROW_COUNT)])
    return ()
