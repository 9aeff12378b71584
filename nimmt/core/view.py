"""What one player may know: the only place where secrets are removed from a game.

Bots, the terminal, the server and the environments all work from a :class:`View`, never from
a :class:`~nimmt.core.game.GameState`. A view holds the player's own hand, the rows, who has
chosen this turn (not what), the cards once revealed, what each player took, penalties and
totals. It never holds another player's hand, a card chosen but not revealed, or the cards that
were not dealt.

>>> from nimmt.core.game import Deal, apply, new_game
>>> deal = Deal(rows=(10, 20, 30, 40),
...             hands=((1, 2, 3, 4, 5, 6, 7, 8, 9, 11), (21, 22, 23, 24, 25, 26, 27, 28, 29, 31)))
>>> state = apply(apply(new_game(2), deal).state, PlayCard(player=1, card=21)).state
>>> mine, theirs = view(state, 1), view(state, 0)
>>> mine.my_card, mine.hand
(21, (21, 22, 23, 24, 25, 26, 27, 28, 29, 31))
>>> theirs.my_card, theirs.has_chosen, theirs.waiting_for, 21 in theirs.unseen_cards()
(None, (False, True), (0,), True)
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BULLHEADS, DECK, ROW_COUNT, is_int
from .errors import UnknownPlayer
from .game import ChooseRow, GameState, Phase, PlayCard, Rules, target_row


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
        return self.phase is Phase.CHOOSE_ROW and self.waiting_for == (self.player,)

    @property
    def must_play_card(self) -> bool:
        return self.phase is Phase.CHOOSE_CARDS and self.player in self.waiting_for

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


def view(state: GameState, player: int | None) -> View:
    """The game as ``player`` sees it; ``None`` gives the public view for spectators."""
    n = state.players
    if player is not None and not (is_int(player) and 0 <= player < n):
        raise UnknownPlayer(f"there is no player {player!r} at this table")
    return View(
        player=player,
        players=n,
        rules=state.rules,
        phase=state.phase,
        round=state.round,
        turn=state.turn,
        rows=state.rows,
        hand=state.hands[player] if player is not None and state.hands else (),
        # Before the reveal only: afterwards the card is in ``revealed`` for everybody.
        my_card=state.chosen[player] if player is not None and state.chosen and not state.revealed else None,
        has_chosen=tuple([card is not None for card in state.chosen]) or (False,) * n,
        revealed=state.revealed,
        resolved=state.resolved,
        waiting_for=state.waiting_for,
        row_choice_card=state.row_choice_card,
        played=state.played,
        taken=state.taken,
        penalties=state.penalties,
        totals=state.totals,
        history=state.history,
        winners=state.winners,
        hand_sizes=tuple(map(len, state.hands)) or (0,) * n,
    )
