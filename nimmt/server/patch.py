"""What changed between two states sent to one connection, as a merge patch (``docs/protocol.md``,
*Patches*).

A patch is a JSON Merge Patch (RFC 7386) with one difference: a ``null`` in a patch sets the key to
``null`` (``reveal``, ``view``, ``my_card`` are legitimately null) instead of removing it. No key of a
state ever goes away; should one, :func:`state_patch` says so and the whole state is sent instead.
Arrays are replaced whole, objects merged key by key.
"""

from __future__ import annotations

from typing import Any

_MISSING: Any = object()


def state_patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any] | None:
    """The patch that turns ``old`` into ``new`` (``{}`` when they are the same), or None when no
    patch can say it (a key of ``old`` is missing from ``new``)."""
    if len(old.keys() - new.keys()):
        return None
    patch: dict[str, Any] = {}
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is value:  # shared and never changed (the bullheads of the deck)
            continue
        kind = type(value)
        if kind is dict and type(before) is dict:
            inner = state_patch(before, value)
            if inner is None:
                return None
            if inner:
                patch[key] = inner
        elif kind is not type(before) or before != value or (kind is list and not same(before, value)):
            patch[key] = value
    return patch


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same JSON: unlike ``==``, ``1``, ``1.0`` and ``true`` differ."""
    if a is b:
        return True
    if type(a) is not type(b) or a != b:  # ==, in C, settles most cases: the rest only checks types
        return False
    if type(a) is list:
        types = list(map(type, a))
        if types != list(map(type, b)):
            return False
        if list not in types and dict not in types:  # numbers, texts: nothing deeper to look at
            return True
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:  # a == b: the same keys
        if list(a) == list(b):  # in the same order (built by the same code): the types compared in C
            types = list(map(type, a.values()))
            if types != list(map(type, b.values())):
                return False
            if list not in types and dict not in types:
                return True
        return all(same(value, b[key]) for key, value in a.items())
    return True


def apply_patch(state: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The state after the patch; ``state`` itself is left as it was (what a client does, in Python)."""
    merged = dict(state)
    for key, value in patch.items():
        before = merged.get(key)
        if type(value) is dict and type(before) is dict:
            merged[key] = apply_patch(before, value)
        else:
            merged[key] = value
    return merged
