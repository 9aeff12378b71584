"""An independent referee for nimmt/1 records, written from RULES.md without the project's code.

It is deliberately plain (mutable lists, no shared helpers) so that a mistake in the engine is
unlikely to be repeated here. It answers what ``nimmt replay --json`` answers, minus the message.
"""

from __future__ import annotations

from typing import Any


def heads(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


class Invalid(Exception):
    pass


def _int(x: Any) -> bool:
    return type(x) is int


def judge(data: Any) -> dict[str, Any]:
    """{"totals", "rounds", "finished", "winners"} or {"error": True}."""
    try:
        return _judge(data)
    except Invalid:
        return {"error": True}


def _judge(data: Any) -> dict[str, Any]:
    if type(data) is not dict or data.get("format") != "nimmt/1":
        raise Invalid
    rules = data.get("rules", {})
    if rules is None:
        rules = {}
    if type(rules) is not dict:
        raise Invalid
    if rules.get("edition", "classic") != "classic":
        raise Invalid
    end_above = rules.get("end_above", 66)
    if end_above is None:
        end_above = 66
    fixed = rules.get("rounds")
    if not _int(end_above) or end_above < 0:
        raise Invalid
    if fixed is not None and (not _int(fixed) or fixed < 1):
        raise Invalid
    players = data.get("players")
    if type(players) is not list or not 2 <= len(players) <= 10:
        raise Invalid
    if any(type(p) is not str for p in players):
        raise Invalid
    n = len(players)
    rounds = data.get("rounds")
    if type(rounds) is not list:
        raise Invalid
    totals = [0] * n
    scored: list[list[int]] = []
    finished = False
    for index, rnd in enumerate(rounds):
        if finished:
            raise Invalid
        if type(rnd) is not dict:
            raise Invalid
        rows_start, hands = rnd.get("rows"), rnd.get("hands")
        turns = rnd.get("turns", [])
        if type(rows_start) is not list or len(rows_start) != 4 or type(hands) is not list or len(hands) != n:
            raise Invalid
        if type(turns) is not list or len(turns) > 10:
            raise Invalid
        if len(turns) < 10 and index != len(rounds) - 1:
            raise Invalid
        dealt: list[int] = list(rows_start)
        for hand in hands:
            if type(hand) is not list or len(hand) != 10:
                raise Invalid
            dealt.extend(hand)
        if any(not _int(c) or not 1 <= c <= 104 for c in dealt) or len(set(dealt)) != len(dealt):
            raise Invalid
        rows = [[c] for c in rows_start]
        held = [set(h) for h in hands]
        penalty = [0] * n
        for turn in turns:
            if type(turn) is not dict:
                raise Invalid
            cards = turn.get("cards")
            taken = turn.get("rows_taken", {})
            if taken is None:
                taken = {}
            if type(cards) is not list or len(cards) != n or type(taken) is not dict:
                raise Invalid
            for p, c in enumerate(cards):
                if not _int(c) or c not in held[p]:
                    raise Invalid
                held[p].discard(c)
            used = set()
            for c, p in sorted((c, p) for p, c in enumerate(cards)):
                below = [i for i in range(4) if rows[i][-1] < c]
                if not below:
                    key = str(p)
                    if key not in taken:
                        raise Invalid
                    r = taken[key]
                    if not _int(r) or not 0 <= r <= 3:
                        raise Invalid
                    used.add(key)
                    penalty[p] += sum(heads(x) for x in rows[r])
                    rows[r] = [c]
                    continue
                r = max(below, key=lambda i: rows[i][-1])
                if len(rows[r]) == 5:
                    penalty[p] += sum(heads(x) for x in rows[r])
                    rows[r] = [c]
                else:
                    rows[r].append(c)
            if set(taken) != used:
                raise Invalid
        scored.append(penalty)
        if len(turns) == 10:
            totals = [t + q for t, q in zip(totals, penalty, strict=True)]
            finished = len(scored) >= fixed if fixed is not None else max(totals) > end_above
    winners = [p for p in range(n) if totals[p] == min(totals)] if finished else []
    return {"totals": totals, "rounds": scored, "finished": finished, "winners": winners}
