"""What one player may know: the only place where secrets are removed from a game.

Bots, the terminal, the server and the environments all work from a :class:`View`, never from
a :class:`~nimmt.core.game.GameState`. A view holds the player's own hand, the rows, who has
chosen this turn (not what), the cards once revealed, what each player took, penalties and
totals. It never holds another player's hand, a card chosen but not revealed, or the cards that
were not dealt.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BULLHEADS, DECK, ROW_COUNT
from .errors import UnknownPlayer
from .game import ChooseRow, GameState, Phase, PlayCard, Rules, _draft_class, _new, target_row

_CHOOSE_CARDS = Phase.CHOOSE_CARDS
_CHOOSE_ROW = Phase.CHOOSE_ROW


@dataclass(frozen=True, slots=True)
class View:
    player: int | None  # None: a spectator, who sees only what is public
    players: int
    rules: Rules
    phase: Phase
    round: int
    turn: int
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    my_card: int | None  # the card this player chose this turn, before the reveal
    has_chosen: tuple[bool, ...]
    revealed: tuple[tuple[int, int], ...]  # (card, player), lowest first; empty before the reveal
    resolved: int
    waiting_for: tuple[int, ...]
    row_choice_card: int | None
    played: tuple[tuple[int, ...], ...]
    taken: tuple[tuple[int, ...], ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    hand_sizes: tuple[int, ...]  # public: everybody holds the same number of cards

    @property
    def must_choose_row(self) -> bool:
        return self.phase is _CHOOSE_ROW and self.waiting_for == (self.player,)

    @property
    def must_play_card(self) -> bool:
        return self.phase is _CHOOSE_CARDS and self.player in self.waiting_for

    def legal_actions(self) -> tuple[PlayCard | ChooseRow, ...]:
        """Same answer as :func:`nimmt.core.game.legal_actions` for this player."""
        if self.player is None:
            return ()
        if self.must_play_card:
            return tuple([PlayCard(self.player, card) for card in self.hand])
        if self.must_choose_row:
            return tuple([ChooseRow(self.player, row) for row in range(ROW_COUNT)])
        return ()

    def row_bullheads(self) -> tuple[int, ...]:
        return tuple([sum([BULLHEADS[c] for c in row]) for row in self.rows])

    def target_row(self, card: int) -> int | None:
        """Where ``card`` would go on the rows as they stand (None: below every row)."""
        return target_row(self.rows, card)

    def unseen_cards(self) -> tuple[int, ...]:
        """Cards this player has not seen this round: other hands and the cards not dealt."""
        seen = set(self.hand)
        for row in self.rows:
            seen.update(row)
        for cards in self.taken:
            seen.update(cards)
        for cards in self.played:
            seen.update(cards)
        seen.update(card for card, _ in self.revealed)
        if self.my_card is not None:
            seen.add(self.my_card)
        return tuple(c for c in DECK if c not in seen)


# view() runs once per action in every layer above the core: it fills in a draft of the View (see
# game._state) and computes each derived field once. Which players are still choosing depends only
# on who has chosen: kept here, at most 2**players tuples per table size.
_VIEW_DRAFT = _draft_class(View)
_WAITING_FOR: dict[tuple[bool, ...], tuple[int, ...]] = {}


def view(state: GameState, player: int | None) -> View:
    """The game as ``player`` sees it; ``None`` gives the public view for spectators."""
    n = state.players
    if player is not None and not (type(player) is int and 0 <= player < n) and not (
        isinstance(player, int) and not isinstance(player, bool) and 0 <= player < n
    ):
        raise UnknownPlayer(f"there is no player {player!r} at this table")
    phase = state.phase
    chosen = state.chosen
    revealed = state.revealed
    hands = state.hands
    draft = _new(_VIEW_DRAFT)
    draft.player = player
    draft.players = n
    draft.rules = state.rules
    draft.phase = phase
    draft.round = state.round
    draft.turn = state.turn
    draft.rows = state.rows
    if player is None:
        draft.hand = ()
        draft.my_card = None
    else:
        draft.hand = hands[player] if hands else ()
        draft.my_card = chosen[player] if chosen and not revealed else None
    has_chosen = tuple([c is not None for c in chosen])
    draft.has_chosen = has_chosen or (False,) * n
    draft.revealed = revealed
    draft.resolved = state.resolved
    draft.row_choice_card = None
    if phase is _CHOOSE_CARDS:
        waiting_for = _WAITING_FOR.get(has_chosen)
        if waiting_for is None:
            waiting_for = tuple([p for p, done in enumerate(has_chosen) if not done])
            _WAITING_FOR[has_chosen] = waiting_for
        draft.waiting_for = waiting_for
    elif phase is _CHOOSE_ROW:
        draft.row_choice_card, waiting = revealed[state.resolved]
        draft.waiting_for = (waiting,)
    else:
        draft.waiting_for = ()
    draft.played = state.played
    draft.taken = state.taken
    draft.penalties = state.penalties
    draft.totals = state.totals
    draft.history = state.history
    draft.winners = state.winners
    draft.hand_sizes = tuple(map(len, hands)) or (0,) * n
    draft.__class__ = View
    result: View = draft
    return result
