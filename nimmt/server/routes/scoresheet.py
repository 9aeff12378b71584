"""The score sheet API, for tables playing with real cards: nothing is stored, the page holds the sheet."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from nimmt.core import DECK_BULLHEADS, Rules, RulesError
from nimmt.scoresheet import ScoreSheet, ScoreSheetError

from ..models import ScoreSheetNew, ScoreSheetRound, ScoreSheetUndo
from .common import ApiError

router = APIRouter(tags=["score sheet"])

# The API's code for each of the sheet's refusals, by the error's key (any other: sheet_error).
SHEET_CODES = {
    "same_name": "sheet_same_name",
    "name_missing": "sheet_name_missing",
    "players_count": "sheet_players",
    "over": "sheet_over",
    "penalty_count": "sheet_count",
    "penalty_range": "sheet_penalty",
    "penalty_sum": "sheet_sum",
    "undo_none": "sheet_nothing_to_undo",
}


@router.post("/api/scoresheet")
async def new_sheet(body: ScoreSheetNew) -> dict[str, Any]:
    """A new, empty score sheet."""
    try:
        rules = Rules(end_above=body.end_above, rounds=body.rounds)
        return _sheet_json(ScoreSheet(tuple(body.players), rules))
    except (ScoreSheetError, RulesError) as error:
        raise ApiError(422, sheet_code(error), str(error)) from None


@router.post("/api/scoresheet/round")
async def add_round(body: ScoreSheetRound) -> dict[str, Any]:
    """The sheet with one more round of penalties (one number per player)."""
    sheet = _load_sheet(body.sheet)
    try:
        return _sheet_json(sheet.add_round(body.penalties))
    except ScoreSheetError as error:
        raise ApiError(422, sheet_code(error), str(error), total=sum(body.penalties), deck=DECK_BULLHEADS) from None


@router.post("/api/scoresheet/undo")
async def undo_round(body: ScoreSheetUndo) -> dict[str, Any]:
    """The sheet without its last round."""
    try:
        return _sheet_json(_load_sheet(body.sheet).undo())
    except ScoreSheetError as error:
        raise ApiError(422, sheet_code(error), str(error)) from None


def sheet_code(error: ScoreSheetError | RulesError) -> str:
    """The code the page translates, from the error's key."""
    if not isinstance(error, ScoreSheetError):
        return "sheet_error"
    inner = error.params.get("error")
    if error.key == "in_round" and isinstance(inner, ScoreSheetError):  # "round 2: ...": the reason's code
        return sheet_code(inner)
    return SHEET_CODES.get(error.key, "sheet_error")


def _load_sheet(data: dict[str, Any]) -> ScoreSheet:
    try:
        return ScoreSheet.from_json(data)
    except ScoreSheetError as error:
        raise ApiError(422, "bad_sheet", str(error)) from None


def _sheet_json(sheet: ScoreSheet) -> dict[str, Any]:
    data = sheet.to_json()
    data["countdown"] = list(sheet.countdown)
    return data
