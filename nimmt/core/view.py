"""What one player may know: the only place where secrets are removed from a game.

Bots, the terminal, the server and the environments all work from a :class:`View`, never from
a :class:`~nimmt.core.game.GameState`. A view holds the player's own hand, the rows, who has
chosen this turn (not what), the cards once revealed, what each player took, penalties and
totals. It never holds another player's hand, a card chosen but not revealed, or the cards that
were not dealt.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BULLHEADS, DECK, ROW_COUNT, ROW_LIMIT
from .errors import UnknownPlayer
from .game import ChooseRow, GameState, Phase, PlayCard, Rules, target_row

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

    def row_is_full(self, row: int) -> bool:
        return len(self.rows[row]) >= ROW_LIMIT

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


# view() runs once per action in every layer above the core: it builds the View through its slot
# descriptors (see game._state) and computes each derived field once.
_new = object.__new__
_VIEW_SLOTS = View.__dict__
_set_player = _VIEW_SLOTS["player"].__set__
_set_players = _VIEW_SLOTS["players"].__set__
_set_rules = _VIEW_SLOTS["rules"].__set__
_set_phase = _VIEW_SLOTS["phase"].__set__
_set_round = _VIEW_SLOTS["round"].__set__
_set_turn = _VIEW_SLOTS["turn"].__set__
_set_rows = _VIEW_SLOTS["rows"].__set__
_set_hand = _VIEW_SLOTS["hand"].__set__
_set_my_card = _VIEW_SLOTS["my_card"].__set__
_set_has_chosen = _VIEW_SLOTS["has_chosen"].__set__
_set_revealed = _VIEW_SLOTS["revealed"].__set__
_set_resolved = _VIEW_SLOTS["resolved"].__set__
_set_waiting_for = _VIEW_SLOTS["waiting_for"].__set__
_set_row_choice_card = _VIEW_SLOTS["row_choice_card"].__set__
_set_played = _VIEW_SLOTS["played"].__set__
_set_taken = _VIEW_SLOTS["taken"].__set__
_set_penalties = _VIEW_SLOTS["penalties"].__set__
_set_totals = _VIEW_SLOTS["totals"].__set__
_set_history = _VIEW_SLOTS["history"].__set__
_set_winners = _VIEW_SLOTS["winners"].__set__
_set_hand_sizes = _VIEW_SLOTS["hand_sizes"].__set__


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
    row_choice_card: int | None = None
    if phase is _CHOOSE_CARDS:
        waiting_for = tuple([p for p, card in enumerate(chosen) if card is None])
    elif phase is _CHOOSE_ROW:
        row_choice_card, waiting = revealed[state.resolved]
        waiting_for = (waiting,)
    else:
        waiting_for = ()
    result: View = _new(View)
    _set_player(result, player)
    _set_players(result, n)
    _set_rules(result, state.rules)
    _set_phase(result, phase)
    _set_round(result, state.round)
    _set_turn(result, state.turn)
    _set_rows(result, state.rows)
    if player is None:
        _set_hand(result, ())
        _set_my_card(result, None)
    else:
        _set_hand(result, hands[player] if hands else ())
        _set_my_card(result, chosen[player] if chosen and not revealed else None)
    _set_has_chosen(result, tuple([c is not None for c in chosen]) or (False,) * n)
    _set_revealed(result, revealed)
    _set_resolved(result, state.resolved)
    _set_waiting_for(result, waiting_for)
    _set_row_choice_card(result, row_choice_card)
    _set_played(result, state.played)
    _set_taken(result, state.taken)
    _set_penalties(result, state.penalties)
    _set_totals(result, state.totals)
    _set_history(result, state.history)
    _set_winners(result, state.winners)
    _set_hand_sizes(result, tuple(map(len, hands)) or (0,) * n)
    return result
