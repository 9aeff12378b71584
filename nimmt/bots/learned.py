"""A learned policy and value for 6 nimmt!: a small network, NumPy inference, weights in the package.

The network scores each card of a hand from a few dozen numbers about that card and the table,
all computed from the player's :class:`~nimmt.core.View` (or from rows, a hand and the unseen
cards: :func:`card_features`), never from the game state. They are computed in one place, the batch
engine's kernel ``net_features`` (``nimmt/batch/_choices.py``), which this bot calls through
:mod:`nimmt.batch.decide` and the compiled rollouts of the network inline:

* **per card**: the card and its bullheads; whether it is below every row; the row it lands on
  (length, bullheads, its gap to the row's end, how many unseen cards fall in that gap, how many
  of the other players' cards are expected there, the chance that enough of them come first to
  make it the sixth card); the expected cost now by ``heuristic``'s estimate
  (:func:`nimmt.bots.heuristic.card_cost`) and the mean and sum of the estimated costs of the rest
  of the hand on the rows it leaves; own cards in its gap, own cards that land on its row later,
  the unseen cards that would land after it on its row; its rank in the hand; whether it is the
  card ``heuristic`` would play;
* **per table** (the same for every card): players, hand size, unseen cards, the four rows sorted
  by their last card (end, length, bullheads), the cheapest row, the hand's mean and lowest
  estimated cost, its share of cards below every row.

A shared multilayer perceptron (two hidden layers of :data:`HIDDEN` units, ReLU) maps each card's
numbers to two outputs:

* **value** ``q``: the bullheads the player is expected to take from now to the end of the round
  if it plays that card now and plays on well (trained on the compiled rollouts of
  :mod:`nimmt.batch` at tables of mixed styles, the player playing on like the network of the
  generation before: policy iteration, see ``scripts/train_policy.py`` and ``docs/ladder.md``);
* **policy** logit: softmax over the hand gives the network's probability that the card is the
  best one (trained on the rollouts' soft ranking of the cards).

The value of a position (:meth:`Net.evaluate`) is the policy-weighted mean of ``q``. The row
choice needs no third head: taking row ``r`` costs its bullheads now plus the value of the hand on
the rows that choice leaves (the cards still to be placed this turn played out, a low one taking
the cheapest row), :func:`row_values`.

Inference is NumPy only (a few small matrix products); the weights are a small ``.npz`` file
shipped in the package (:data:`WEIGHTS`, loaded with :mod:`importlib.resources`). Everything is
deterministic: the same view gives the same numbers.

>>> from nimmt.core import Deal, apply, new_game, view
>>> hands = (tuple(range(41, 51)), tuple(range(51, 61)))
>>> state = apply(new_game(2), Deal((1, 2, 3, 4), hands)).state
>>> scores = load().score_view(view(state, 0))
>>> sorted(scores) == list(range(41, 51)), all(p >= 0 for q, p in scores.values())
(True, True)
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from nimmt.core import ROW_COUNT, View, row_bullheads

from .base import Bot, BotError
from .heuristic import compiled, play_out

if TYPE_CHECKING:  # NumPy is loaded when the network first runs, not by every command that names a bot
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]

WEIGHTS = "policy.npz"  # in nimmt/bots/data
HIDDEN = 64
# The encoding's sizes and scale come from the kernel that computes it (nimmt.batch.decide), read when
# first asked for: importing the batch engine loads Numba, which a command that never asks should not.
_ENCODING = {
    "CARD_FEATURES": "NET_CARD_FEATURES",  # the card's own numbers, then the table's
    "TABLE_FEATURES": "NET_TABLE_FEATURES",
    "FEATURES": "NET_FEATURES",
    "TAKE_ROW": "NET_TAKE_ROW",  # bullheads scale of the features (a row with 20 bullheads is a costly one)
}


def __getattr__(name: str) -> object:
    if name in _ENCODING:
        from nimmt.batch import decide

        return getattr(decide, _ENCODING[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def card_features(
    rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int], players: int
) -> Floats:
    """(len(hand), FEATURES): the numbers the network sees for each card of ``hand`` (sorted or not)
    on ``rows``, with ``unseen`` the cards this player has not seen, at a table of ``players``. Only
    what a player's view shows goes in. Computed by the batch engine's kernel
    (:func:`nimmt.batch.decide.net_features`), the one the compiled rollouts of the network use."""
    from nimmt.batch.decide import net_features

    return net_features(rows, hand, unseen, players, compiled())


def view_features(view: View) -> Floats:
    """:func:`card_features` of ``view.hand`` (sorted) from ``view``: the rows, the hand and the
    cards this player has not seen."""
    if view.player is None or not view.hand:
        raise BotError("the network scores the hand of a player's view")
    return card_features(view.rows, view.hand, sorted(view.unseen_cards()), view.players)


@dataclass(frozen=True)
class Net:
    """The network's weights: ``scale`` and ``shift`` standardise the features, then
    ``w1, b1, w2, b2, w3, b3`` (ReLU between layers); output column 0 is ``q``, column 1 the logit."""

    shift: Floats
    scale: Floats
    w1: Floats
    b1: Floats
    w2: Floats
    b2: Floats
    w3: Floats
    b3: Floats
    meta: str = ""  # how the weights were trained (JSON text written by scripts/train_policy.py)

    ARRAYS = ("shift", "scale", "w1", "b1", "w2", "b2", "w3", "b3")

    def forward(self, features: Floats) -> tuple[Floats, Floats]:
        """(q, logits) of each row of ``features`` (n, FEATURES)."""
        import numpy as np
        x = (features - self.shift) * self.scale
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        h = np.maximum(h @ self.w2 + self.b2, 0.0)
        out = h @ self.w3 + self.b3
        return out[:, 0], out[:, 1]

    def evaluate(self, features: Floats) -> tuple[Floats, Floats, float]:
        """(q, policy, value): each card's expected bullheads to the end of the round, the policy's
        probability of each card, and the position's value (the policy-weighted mean of q)."""
        import numpy as np

        q, logits = self.forward(features)
        z = np.exp(logits - logits.max())
        policy = z / z.sum()
        return q, policy, float((policy * q).sum())

    def score_view(self, view: View) -> dict[int, tuple[float, float]]:
        """card -> (q, policy probability) for each card of ``view.hand``."""
        q, policy, _ = self.evaluate(view_features(view))
        return {c: (float(a), float(b)) for c, a, b in zip(sorted(view.hand), q, policy, strict=True)}

    @cached_property
    def flat(self) -> Floats:
        """The weights as one float32 array, as the compiled rollouts take them
        (:func:`nimmt.batch._choices.net_logits`): features and hidden units, then the arrays. Made
        once per network (the rollouts ask for it on every call)."""
        import numpy as np

        features, hidden = self.w1.shape
        parts = [np.array([features, hidden], np.float32)] + [getattr(self, name).ravel() for name in self.ARRAYS]
        return np.ascontiguousarray(np.concatenate(parts), np.float32)

    def flat_at(self, temperature: float) -> Floats:
        """:attr:`flat` with the policy logit divided by ``temperature`` (:func:`sharpened`), made once
        per temperature: the compiled rollouts of ``learned-drawn`` ask for it on every call."""
        if temperature == 1.0:
            return self.flat
        if temperature not in self._sharpened:
            self._sharpened[temperature] = sharpened(self.flat, temperature)
        return self._sharpened[temperature]

    @cached_property
    def _sharpened(self) -> dict[float, Floats]:
        return {}

    def save(self, path: str | Path) -> None:
        import numpy as np

        arrays = {name: getattr(self, name) for name in self.ARRAYS}
        np.savez_compressed(path, meta=np.array(self.meta), **arrays)

    @classmethod
    def from_bytes(cls, data: bytes) -> Net:
        import numpy as np

        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: np.asarray(npz[name], np.float32) for name in cls.ARRAYS}
            meta = str(npz["meta"]) if "meta" in npz.files else ""
        from nimmt.batch.decide import NET_FEATURES

        if arrays["w1"].shape[0] != NET_FEATURES:
            raise BotError(f"these weights take {arrays['w1'].shape[0]} features, the encoding has {NET_FEATURES}")
        return cls(meta=meta, **arrays)


def sharpened(flat: Floats, temperature: float) -> Floats:
    """A copy of the flat weights (:attr:`Net.flat`) with the policy logit divided by ``temperature``:
    its output weights and bias, the last column of ``w3`` and ``b3[1]``, the last numbers of the array."""
    hidden = int(flat[1])
    scaled = flat.copy()
    scaled[-2 - 2 * hidden + 1 : -2 : 2] /= temperature  # w3 is (hidden, 2), row by row: its column 1
    scaled[-1] /= temperature
    return scaled


@cache
def load(path: str | None = None) -> Net:
    """The network: the weights shipped in the package (``nimmt/bots/data/policy.npz``), or those in
    the file ``path``."""
    if path is None:
        data = resources.files("nimmt.bots").joinpath("data", WEIGHTS).read_bytes()
    else:
        data = Path(path).read_bytes()
    return Net.from_bytes(data)


def hand_value(net: Net, rows: Sequence[Sequence[int]], hand: Sequence[int], unseen: Sequence[int],
               players: int) -> float:
    """The bullheads ``hand`` is expected to take from the next card choice to the end of the
    round on ``rows``: the lowest ``q`` of its cards (0 for an empty hand)."""
    if not hand:
        return 0.0
    q, _ = net.forward(card_features(rows, hand, unseen, players))
    return float(q.min())


def row_values(net: Net, view: View) -> list[float]:
    """For each row, while ``view.player``'s card waits for one: its bullheads now plus the value
    of the hand on the rows the choice leaves, once the cards still to come this turn are placed
    (a low one taking the cheapest row)."""
    card = view.row_choice_card
    if view.player is None or card is None or not view.must_choose_row:
        raise BotError("row values need a card of this player waiting for a row")
    unseen = sorted(view.unseen_cards())
    still = [c for c, _ in view.revealed[view.resolved + 1 :]]
    values = []
    for r in range(ROW_COUNT):
        now = row_bullheads(view.rows[r])
        rows = [tuple(row) for row in view.rows]
        rows[r] = (card,)
        after = play_out(rows, still)
        values.append(now + hand_value(net, after, view.hand, unseen, view.players))
    return values


class LearnedBot(Bot):
    name = "learned"
    description = (
        "A small network trained on rollouts of the batch engine: plays the card its policy likes "
        "best and takes the row whose bullheads now plus the value of its hand afterwards are "
        "lowest. No search: about a millisecond a decision."
    )

    MODES = ("value", "policy")

    def __init__(self, rng: random.Random | None = None, weights: str | None = None, mode: str = "policy") -> None:
        super().__init__(rng)
        if mode not in self.MODES:
            raise BotError(f"the learned bot plays by 'value' or 'policy', not {mode!r}")
        self.net = load(weights)
        # "policy": the likeliest card (the stronger of the two in every check of the training run,
        # docs/ladder.md); "value": the card with the lowest q.
        self.mode = mode

    def choose_card(self, view: View) -> int:
        import numpy as np

        hand = sorted(view.hand)
        if len(hand) == 1:
            return hand[0]
        q, logits = self.net.forward(view_features(view))
        if self.mode == "policy":
            return hand[int(np.argmax(logits))]
        return hand[int(np.argmin(q))]

    def choose_row(self, view: View) -> int:
        values = row_values(self.net, view)
        return min(range(ROW_COUNT), key=lambda r: (values[r], r))
