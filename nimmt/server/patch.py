"""What changed between two states sent to one connection, as a merge patch (``docs/protocol.md``,
*Patches*).

A patch is a JSON Merge Patch (RFC 7386) with one difference: a ``null`` in a patch sets the key to
``null`` (``reveal``, ``view``, ``my_card`` are legitimately null) instead of removing it. No key of a
state ever goes away; should one, :func:`state_patch` says so and the whole state is sent instead.
Arrays are replaced whole, objects merged key by key. A value is changed when its type or its value
(``==``) is: ``1`` to ``true`` or ``1.0`` is sent, though not inside an array, which the states never
do (an array holds one kind of thing).
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
        # Shared and never changed: the cards' bullheads, and what render kept of the version before.
        if before is value:
            continue
        kind = type(value)
        if kind is dict and type(before) is dict:
            inner = state_patch(before, value)
            if inner is None:
                return None
            if inner:
                patch[key] = inner
        elif kind is not type(before) or before != value:
            # Arrays compare with ==, in C: a state never turns a 1 in an array into true or 1.0.
            patch[key] = value
    return patch


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
