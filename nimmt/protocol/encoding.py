"""The JSON form of a view and of actions, shared by the bot protocol and anything else that talks JSON.

The form is stable and documented in ``docs/protocol-bots.md``. Every key is always present, so a
reader never needs to guess; lists are in seat order (players 0..n-1) or row order (rows 0..3).

>>> from nimmt.core import Deal, PlayCard, apply, new_game, view
>>> deal = Deal((10, 20, 30, 40), (tuple(range(1, 10)) + (11,), tuple(range(21, 30)) + (31,)))
>>> state = apply(apply(new_game(2), deal).state, PlayCard(1, 21)).state
>>> data = view_to_json(view(state, 0))
>>> data["hand"][:3], data["rows"], data["has_chosen"], data["legal"][:2]
([1, 2, 3], [[10], [20], [30], [40]], [False, True], [{'card': 1}, {'card': 2}])
>>> view_from_json(data) == view(state, 0)
True
>>> action_from_json({"card": 11}, view(state, 0))
PlayCard(player=0, card=11)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nimmt.core import ROW_COUNT, ChooseRow, NimmtError, Phase, PlayCard, Rules, View
from nimmt.core.cards import BULLHEADS
from nimmt.core.cards import is_int as _is_int

from .reasons import REASONS, detail_text, facts_of

VIEW_FORMAT = "nimmt-view/1"


class ProtocolError(NimmtError, ValueError):
    """A JSON message that does not follow the documented form. The message says what is wrong.

    ``kind`` sorts answers: ``"bad_answer"`` (not the documented shape), ``"wrong_kind"`` (a card
    when a row was asked, or the other way round), ``"illegal_action"`` (a card not in the hand, a
    row that does not exist).

    ``reason`` and ``facts`` say the same as the message in keys (see :mod:`nimmt.protocol.reasons`);
    only a refused answer carries them.
    """

    def __init__(
        self,
        message: str,
        kind: str = "bad_answer",
        *,
        reason: str | None = None,
        facts: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.facts = dict(facts or {})

    @classmethod
    def refused(cls, reason: str, /, **facts: object) -> ProtocolError:
        """An answer refused for ``reason``: the message is the reason's English text with its facts."""
        text = facts_of(facts)
        return cls(detail_text(reason, text), REASONS[reason].kind, reason=reason, facts=text)


def rules_to_json(rules: Rules) -> dict[str, Any]:
    return {"edition": rules.edition, "end_above": rules.end_above, "rounds": rules.rounds}


def action_to_json(action: PlayCard | ChooseRow) -> dict[str, int]:
    """``{"card": N}`` for a card, ``{"row": R}`` for a row (0 to 3)."""
    if isinstance(action, PlayCard):
        return {"card": action.card}
    return {"row": action.row}


def legal_to_json(view: View) -> list[dict[str, int]]:
    """The actions the viewing player may take now, in the answer form: ``view.legal_actions()``'s,
    written without making the actions (a server writes one for every seat at every change)."""
    if view.player is None:
        return []
    if view.must_play_card:
        return [{"card": card} for card in view.hand]
    if view.must_choose_row:
        return [{"row": row} for row in range(ROW_COUNT)]
    return []


def view_to_json(view: View) -> dict[str, Any]:
    """A plain-JSON dict of everything in ``view`` (and nothing else), plus a few derived helpers.

    Derived keys (``row_bullheads``, ``must_play_card``, ``must_choose_row``, ``legal``) repeat what
    the other keys already say, so that simple programs need not recompute them.
    """
    return seat_view_json(shared_view_json(view), view)


def shared_view_json(view: View) -> dict[str, Any]:
    """What :func:`view_to_json` gives every seat alike at this moment of the game: the spectator's view
    (its own keys hold nobody's: no hand, no card, nothing to do), whichever seat ``view`` is from.

    A server makes it once per moment and builds each seat's view on it with :func:`seat_view_json`.
    """
    return {
        "format": VIEW_FORMAT,
        "player": None,
        "players": view.players,
        "rules": rules_to_json(view.rules),
        "phase": view.phase.value,
        "round": view.round,
        "turn": view.turn,
        "rows": [list(row) for row in view.rows],
        "row_bullheads": [sum([BULLHEADS[c] for c in row]) for row in view.rows],
        "hand": [],
        "my_card": None,
        "has_chosen": list(view.has_chosen),
        "revealed": [{"card": card, "player": player} for card, player in view.revealed],
        "resolved": view.resolved,
        "waiting_for": list(view.waiting_for),
        "row_choice_card": view.row_choice_card,
        "played": [list(cards) for cards in view.played],
        "taken": [list(cards) for cards in view.taken],
        "penalties": list(view.penalties),
        "totals": list(view.totals),
        "history": [list(penalties) for penalties in view.history],
        "winners": list(view.winners),
        "hand_sizes": list(view.hand_sizes),
        "must_play_card": False,
        "must_choose_row": False,
        "legal": [],
    }


def seat_view_json(shared: dict[str, Any], view: View) -> dict[str, Any]:
    """:func:`view_to_json` of ``view``, built on ``shared``, the :func:`shared_view_json` of any view of
    the same moment: only the seat's own keys are made anew (in their places), the others are the very
    values of ``shared``, so neither may be changed afterwards."""
    if view.player is None:
        return dict(shared)
    seen = dict(shared)  # the same keys in the same order: assigning keeps each in its place
    seen["player"] = view.player
    seen["hand"] = list(view.hand)
    seen["my_card"] = view.my_card
    seen["must_play_card"] = view.must_play_card
    seen["must_choose_row"] = view.must_choose_row
    seen["legal"] = legal_to_json(view)
    return seen


def _int(data: Mapping[str, Any], key: str, *, optional: bool = False) -> Any:
    if key not in data:
        raise ProtocolError(f"the view has no {key!r}")
    value = data[key]
    if value is None and optional:
        return None
    if not _is_int(value):
        raise ProtocolError(f"the view's {key!r} must be a whole number, not {value!r}")
    return value


def _ints(value: object, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise ProtocolError(f"the view's {key!r} must be a list of whole numbers, not {value!r}")
    return tuple(value)


def _lists(data: Mapping[str, Any], key: str) -> tuple[tuple[int, ...], ...]:
    value = data.get(key)
    if not isinstance(value, list):
        raise ProtocolError(f"the view's {key!r} must be a list of lists, not {value!r}")
    return tuple(_ints(item, key) for item in value)


def view_from_json(data: object) -> View:
    """Read back what :func:`view_to_json` wrote; raise :class:`ProtocolError` on anything else."""
    if not isinstance(data, Mapping):
        raise ProtocolError(f"a view must be a JSON object, not {type(data).__name__}")
    if data.get("format") != VIEW_FORMAT:
        raise ProtocolError(f"the view's format must be {VIEW_FORMAT!r}, not {data.get('format')!r}")
    rules = data.get("rules")
    if not isinstance(rules, Mapping):
        raise ProtocolError("the view has no 'rules' object")
    try:
        phase = Phase(str(data.get("phase")))
        parsed_rules = Rules(
            edition=str(rules.get("edition")), end_above=rules["end_above"], rounds=rules["rounds"]
        )
    except KeyError as error:
        raise ProtocolError(f"the view's rules have no {error}") from None
    except ValueError as error:
        raise ProtocolError(f"the view's rules or phase are wrong: {error}") from None
    has_chosen = data.get("has_chosen")
    if not isinstance(has_chosen, list) or not all(isinstance(v, bool) for v in has_chosen):
        raise ProtocolError("the view's 'has_chosen' must be a list of true/false")
    revealed = data.get("revealed")
    if not isinstance(revealed, list) or not all(
        isinstance(r, Mapping) and _is_int(r.get("card")) and _is_int(r.get("player")) for r in revealed
    ):
        raise ProtocolError("the view's 'revealed' must be a list of {'card': N, 'player': P}")
    return View(
        player=_int(data, "player", optional=True),
        players=_int(data, "players"),
        rules=parsed_rules,
        phase=phase,
        round=_int(data, "round"),
        turn=_int(data, "turn"),
        rows=_lists(data, "rows"),
        hand=_ints(data.get("hand"), "hand"),
        my_card=_int(data, "my_card", optional=True),
        has_chosen=tuple(has_chosen),
        revealed=tuple((r["card"], r["player"]) for r in revealed),
        resolved=_int(data, "resolved"),
        waiting_for=_ints(data.get("waiting_for"), "waiting_for"),
        row_choice_card=_int(data, "row_choice_card", optional=True),
        played=_lists(data, "played"),
        taken=_lists(data, "taken"),
        penalties=_ints(data.get("penalties"), "penalties"),
        totals=_ints(data.get("totals"), "totals"),
        history=_lists(data, "history"),
        winners=_ints(data.get("winners"), "winners"),
        hand_sizes=_ints(data.get("hand_sizes"), "hand_sizes"),
    )


def action_from_json(answer: object, view: View) -> PlayCard | ChooseRow:
    """The action an answer names, checked against ``view``: :class:`ProtocolError` says what is wrong."""
    if not isinstance(answer, Mapping):
        raise ProtocolError.refused("not_object", answer=_short(answer))
    if view.player is None:
        raise ProtocolError("a spectator cannot act")  # nimmt's mistake, not the program's: no reason
    keys = [key for key in ("card", "row") if key in answer]
    if len(keys) != 1:
        raise ProtocolError.refused("card_or_row", answer=_short(answer))
    kind = keys[0]
    value = answer[kind]
    if not _is_int(value):
        raise ProtocolError.refused("card_not_number" if kind == "card" else "row_not_number", answer=_short(value))
    if kind == "card":
        if not view.must_play_card:
            if view.must_choose_row:
                raise ProtocolError.refused("card_for_row", card=value, asked=view.row_choice_card)
            raise ProtocolError.refused("card_unasked", card=value)
        if value not in view.hand:
            raise ProtocolError.refused("not_in_hand", card=value, hand=list(view.hand))
        return PlayCard(view.player, value)
    if not view.must_choose_row:
        raise ProtocolError.refused("row_for_card" if view.must_play_card else "row_unasked", row=value)
    if not 0 <= value < ROW_COUNT:
        raise ProtocolError.refused("no_such_row", row=value, last=ROW_COUNT - 1)
    return ChooseRow(view.player, value)


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


