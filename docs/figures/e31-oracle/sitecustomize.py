"""An experiment, not a part of nimmt (issue 31, docs/ladder.md "What if the expert saw every hand?").

The expert's rollouts deal every other seat its true hand (an upper bound on what any reading of the
others' hands could give); its opponents and everything else play as ever. Python loads this file at
start when its directory is first on ``PYTHONPATH`` (the tournament's spawned workers too); it acts
only with ``NIMMT_ORACLE=1``, on a worktree with ``kernel.diff`` applied (the compiled deal skips the
shuffle across seats when flag 0 of the public cards, a card that does not exist, is set).
``NIMMT_ORACLE_PRUNE=0`` also turns off the expert's early stop (see the ladder for why).

    git worktree add --detach ../oracle HEAD && git -C ../oracle apply docs/figures/e31-oracle/kernel.diff
    NIMMT_ORACLE=1 PYTHONPATH=docs/figures/e31-oracle:../oracle nimmt tournament --bots 'expert,9*field:risk' ...
"""

from __future__ import annotations

import os
from typing import Any

if os.environ.get("NIMMT_ORACLE") == "1":
    from dataclasses import fields

    import nimmt.batch.rollout as _rollout
    import nimmt.batch.seated as _seated
    import nimmt.bots.expert as _expert
    import nimmt.match as _match
    from nimmt.core import GameState, View

    _current: dict[str, GameState] = {}

    class OracleView(View):
        """A view whose unseen cards are every other seat's hand in seat order, then the undealt."""

        __slots__ = ("pool_order",)

        def unseen_cards(self) -> tuple[int, ...]:
            return self.pool_order  # type: ignore[no-any-return]

    def oracle_of(view: View) -> OracleView:
        """The view of the state play_game asked about last, with the true hands as its unseen cards."""
        state = _current.get("state")
        me = view.player
        assert me is not None
        if state is None or (view.round, view.turn, view.hand) != (state.round, state.turn, tuple(state.hands[me])):
            raise RuntimeError("oracle: the state is not the view's")
        base = View.unseen_cards(view)
        order = [card for p in range(view.players) if p != me for card in state.hands[p]]
        held = set(order)
        rest = [card for card in base if card not in held]
        dealt = sum(size for p, size in enumerate(view.hand_sizes) if p != me)
        if not held <= set(base) or len(order) != dealt:
            raise RuntimeError("oracle: the hands do not fit the view")
        new = OracleView(**{f.name: getattr(view, f.name) for f in fields(View)})
        object.__setattr__(new, "pool_order", tuple(order + rest))
        return new

    _view = _match.view

    def _remembering_view(state: GameState, player: int | None) -> View:
        _current["state"] = state
        return _view(state, player)

    _match.view = _remembering_view
    _public = _rollout._public

    def _flagged_public(view: View) -> Any:
        flags = _public(view)
        if isinstance(view, OracleView):
            flags[0] = True
        return flags

    _rollout._public = _flagged_public
    _seated._public = _flagged_public
    _evaluate = _expert.evaluate_batch
    _prune = os.environ.get("NIMMT_ORACLE_PRUNE", "1") == "1"

    def _oracle_evaluate(view: View, kind: str, **options: Any) -> Any:
        if not _prune:  # the whole budget: one chunk's standard error misses the spread of the style draws
            options["prune"] = False
        return _evaluate(oracle_of(view), kind, **options)

    _expert.evaluate_batch = _oracle_evaluate  # type: ignore[assignment]
