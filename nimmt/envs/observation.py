"""A fixed-size numeric encoding of one player's :class:`~nimmt.core.View`, for learning agents.

Everything is seen from the viewing player: seat blocks are rotated so that block 0 is that player,
block 1 the next seat, and so on; seats beyond the table are zeros. The vector has the same length
for every table size (2 to 10 players), so one network can play at any table. It is built from the
view only, so it can never hold another player's hand or a card chosen but not revealed.

Layout (:data:`OBSERVATION_SIZE` float32 values; ``SLICES`` gives each part by name):

==================  ======  ==============================================================
part                size    values
==================  ======  ==============================================================
hand                104     1 if the card is in this player's hand
rows                4x104   1 if the card lies in row r (row-major: row 0's 104 first)
gone                104     1 if the card was taken by anybody this round
revealed            104     1 if the card was revealed this turn (while rows are chosen)
my_card             104     1 for the card this player picked this turn, before the reveal
row_choice_card     104     1 for this player's card that waits for its row choice
row_ends            4       last card of each row / 104
row_lengths         4       cards in each row / 5
row_bullheads       4       bullheads in each row / 35
must_play_card      1       1 if the game waits for this player's card
must_choose_row     1       1 if the game waits for this player's row choice
turn                1       turns done in this round / 10
players             1       players at the table / 10
seat_present        10      1 for each seat at the table (seat-relative)
seat_has_chosen     10      1 if that seat has picked its card this turn
seat_penalties      10      bullheads that seat took this round / 171
seat_totals         10      that seat's total / 100 (above 1 once a total passes 100)
==================  ======  ==============================================================

>>> OBSERVATION_SIZE
992
>>> SLICES["row_ends"]
slice(936, 940, None)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from nimmt.core import DECK_BULLHEADS, MAX_PLAYERS, ROW_COUNT, ROW_LIMIT, TURNS_PER_ROUND, NimmtError, View
from nimmt.core.cards import BULLHEADS, HIGHEST_CARD

CARDS = HIGHEST_CARD  # 104
ACTIONS = CARDS + ROW_COUNT  # cards 1..104 are actions 0..103, rows 0..3 are actions 104..107
ROW_ACTION = CARDS  # the action of row r is ROW_ACTION + r
MAX_ROW_BULLHEADS = 35  # five cards of at most 7 bullheads

_PARTS: tuple[tuple[str, int], ...] = (
    ("hand", CARDS),
    ("rows", ROW_COUNT * CARDS),
    ("gone", CARDS),
    ("revealed", CARDS),
    ("my_card", CARDS),
    ("row_choice_card", CARDS),
    ("row_ends", ROW_COUNT),
    ("row_lengths", ROW_COUNT),
    ("row_bullheads", ROW_COUNT),
    ("must_play_card", 1),
    ("must_choose_row", 1),
    ("turn", 1),
    ("players", 1),
    ("seat_present", MAX_PLAYERS),
    ("seat_has_chosen", MAX_PLAYERS),
    ("seat_penalties", MAX_PLAYERS),
    ("seat_totals", MAX_PLAYERS),
)


class EnvError(NimmtError, ValueError):
    """An environment asked for something it cannot be (a bad table size, seat, option...)."""


class EpisodeOver(NimmtError, RuntimeError):
    """A step after the episode ended, before ``reset()``."""


def _slices() -> dict[str, slice]:
    slices: dict[str, slice] = {}
    start = 0
    for name, size in _PARTS:
        slices[name] = slice(start, start + size)
        start += size
    return slices


SLICES: dict[str, slice] = _slices()
OBSERVATION_SIZE = SLICES["seat_totals"].stop
# Upper bounds: 1 everywhere except totals, which have no ceiling.
OBSERVATION_HIGH: npt.NDArray[np.float32] = np.ones(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH[SLICES["seat_totals"]] = np.inf


def encode_view(view: View) -> npt.NDArray[np.float32]:
    """The observation vector of ``view`` (which must be a player's view, not a spectator's)."""
    if view.player is None:
        raise EnvError("a spectator's view has no observation: it belongs to no seat")
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)

    def mark(part: str, cards: tuple[int, ...] | list[int], offset: int = 0) -> None:
        start = SLICES[part].start + offset
        for card in cards:
            out[start + card - 1] = 1.0

    mark("hand", view.hand)
    for r, row in enumerate(view.rows):
        mark("rows", row, r * CARDS)
    for cards in view.taken:
        mark("gone", cards)
    mark("revealed", [card for card, _ in view.revealed])
    if view.my_card is not None:
        mark("my_card", [view.my_card])
    if view.must_choose_row and view.row_choice_card is not None:
        mark("row_choice_card", [view.row_choice_card])
    if view.rows:
        base = SLICES["row_ends"].start
        for r, row in enumerate(view.rows):
            out[base + r] = row[-1] / CARDS
            out[SLICES["row_lengths"].start + r] = len(row) / ROW_LIMIT
            out[SLICES["row_bullheads"].start + r] = sum(BULLHEADS[c] for c in row) / MAX_ROW_BULLHEADS
    out[SLICES["must_play_card"].start] = float(view.must_play_card)
    out[SLICES["must_choose_row"].start] = float(view.must_choose_row)
    out[SLICES["turn"].start] = view.turn / TURNS_PER_ROUND
    out[SLICES["players"].start] = view.players / MAX_PLAYERS
    for k in range(view.players):
        seat = (view.player + k) % view.players
        out[SLICES["seat_present"].start + k] = 1.0
        if view.has_chosen:
            out[SLICES["seat_has_chosen"].start + k] = float(view.has_chosen[seat])
        if view.penalties:
            out[SLICES["seat_penalties"].start + k] = view.penalties[seat] / DECK_BULLHEADS
        out[SLICES["seat_totals"].start + k] = view.totals[seat] / 100
    return out


def action_mask(view: View) -> npt.NDArray[np.int8]:
    """1 for every action the viewing player may take now, 0 elsewhere."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    if view.must_play_card:
        for card in view.hand:
            mask[card - 1] = 1
    elif view.must_choose_row:
        mask[ROW_ACTION : ROW_ACTION + ROW_COUNT] = 1
    return mask
