"""Every code a person or a program can be refused with, in one registry.

A refusal reaches a client as ``{"code": ..., "message": ..., "params": ...}``: on the table's
WebSocket (``ActionError``), as an HTTP answer (``ApiError``, the people part's ``PeopleError``, the
limits, the request guard, the record checker), and the pages tell it in the person's language
from the text ``error_<code>`` of their catalogs. :class:`Refusal` names each code once, with the
HTTP status it is answered with where it has one (None: only a WebSocket or a worker says it).
A member is its code (a :class:`~enum.StrEnum`), so a raise site may name the member or still write
the string; ``tests/server/test_refusals.py`` holds every raised code to a member and every member
to a text in each of the six languages.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self


class Refusal(StrEnum):
    """A refusal's code; :attr:`status` is its HTTP status, or None."""

    status: int | None

    def __new__(cls, code: str, status: int | None = None) -> Self:
        member = str.__new__(cls, code)
        member._value_ = code
        member.status = status
        return member

    # -- a table's refusals (ActionError): the API answers them with 409 unless said here -------
    UNKNOWN_TABLE = "unknown_table", 404
    NOT_SEATED = "not_seated", 404  # this player holds no seat at the table
    SERVER_ERROR = "server_error", 503  # the store failed: nothing was changed
    SEATS_NOT_FILLED = "seats_not_filled", 422
    TABLE_FULL = "table_full", 409
    ALREADY_STARTED = "already_started", 409
    UNKNOWN_BOT = "unknown_bot", 409
    TOO_MANY_BOTS = "too_many_bots", 409
    SEAT_TAKEN = "seat_taken", 409
    NO_SUCH_SEAT = "no_such_seat", 409
    ALREADY_BOT = "already_bot", 409
    PLAYER_PRESENT = "player_present", 409
    NOT_AWAY_LONG = "not_away_long", 409
    NOT_CREATOR = "not_creator", 409
    SEAT_IS_BOT = "seat_is_bot", 409
    SPECTATOR = "spectator", 409
    NOT_STARTED = "not_started", 409
    NOT_OVER = "not_over", 409
    GAME_OVER = "game_over", 409
    GAME_NOT_FINISHED = "game_not_finished", 409
    ALREADY_ASKED = "already_asked", 409
    ALREADY_REVEALED = "already_revealed", 409
    ALREADY_REVIEWED = "already_reviewed", 409
    STALE = "stale", 409
    BAD_VERSION = "bad_version", 409
    BAD_MESSAGE = "bad_message", 409
    # the rules core's refusals (nimmt.server.tables.errors.CORE_ERROR_CODES)
    ALREADY_CHOSEN = "already_chosen", 409
    CARD_NOT_IN_HAND = "card_not_in_hand", 409
    NO_SUCH_ROW = "no_such_row", 409
    NOT_YOUR_TURN = "not_your_turn", 409
    ILLEGAL = "illegal", 409

    # -- the table's WebSocket only --------------------------------------------------------------
    HELLO_FIRST = "hello_first"
    ALREADY_GREETED = "already_greeted"
    BAD_JSON = "bad_json"
    BAD_TOKEN = "bad_token"
    COACH_OFF = "coach_off"
    NO_ADVICE = "no_advice"
    ADVICE_BUSY = "advice_busy"
    ADVICE_FAILED = "advice_failed"
    UNKNOWN_REACTION = "unknown_reaction"
    REACTION_TOO_SOON = "reaction_too_soon"

    # -- any request: the API, the limits and the request guard ---------------------------------
    BAD_REQUEST = "bad_request", 422  # 400 when the body is not JSON at all
    NOT_FOUND = "not_found", 404
    METHOD_NOT_ALLOWED = "method_not_allowed", 405
    HTTP_ERROR = "http_error"  # any other HTTP error, with its own status
    RATE_LIMITED = "rate_limited", 429
    TOO_MANY_CONNECTIONS = "too_many_connections", 429
    TOO_LARGE = "too_large", 413
    TOO_SLOW = "too_slow", 408
    HEAD_TOO_LARGE = "head_too_large", 431
    URL_TOO_LONG = "url_too_long", 414

    # -- records, replays and reviews --------------------------------------------------------------
    UNKNOWN_GAME = "unknown_game", 404
    BAD_RECORD = "bad_record", 422
    TOO_LONG = "too_long", 413  # a record with more decisions than a review takes
    BUSY = "busy", 503
    PREPARING = "preparing", 503
    REVIEW_TOO_SLOW = "review_too_slow", 503
    PUBLIC_GROUP = "public_group", 422

    # -- the score sheet (nimmt.server.routes.scoresheet.SHEET_CODES) -----------------------------
    BAD_SHEET = "bad_sheet", 422
    SHEET_ERROR = "sheet_error", 422
    SHEET_SAME_NAME = "sheet_same_name", 422
    SHEET_NAME_MISSING = "sheet_name_missing", 422
    SHEET_PLAYERS = "sheet_players", 422
    SHEET_OVER = "sheet_over", 422
    SHEET_COUNT = "sheet_count", 422
    SHEET_PENALTY = "sheet_penalty", 422
    SHEET_SUM = "sheet_sum", 422
    SHEET_NOTHING_TO_UNDO = "sheet_nothing_to_undo", 422

    # -- people (PeopleError; nimmt.server.routes.people.PEOPLE_STATUS) ----------------------------
    NO_KEY = "no_key", 401
    UNKNOWN_KEY = "unknown_key", 401
    UNKNOWN_PLAYER = "unknown_player", 401
    UNKNOWN_DEVICE = "unknown_device", 404
    UNKNOWN_PASSKEY = "unknown_passkey", 404
    CODE_UNKNOWN = "code_unknown", 404
    CODE_USED = "code_used", 409
    CODE_EXPIRED = "code_expired", 410
    LINK_SAME = "link_same", 409
    LINK_MERGE = "link_merge", 409
    PASSKEY_TAKEN = "passkey_taken", 409
    PASSKEY_REFUSED = "passkey_refused", 422
    BAD_NAME = "bad_name", 422
    BAD_LANGUAGE = "bad_language", 422
    INVITE_UNKNOWN = "invite_unknown", 404
    INVITE_CLOSED = "invite_closed", 403
    UNKNOWN_GROUP = "unknown_group", 404
    NOT_MEMBER = "not_member", 403
    NOT_HOST = "not_host", 403
    REMOVE_HOST = "remove_host", 409
    NOT_IN_GAME = "not_in_game", 404
    BAD_GAME = "bad_game", 422
    PEOPLE_UNAVAILABLE = "people_unavailable", 503
    # a group's chat (nimmt.people.chat.ChatRefused: chat_ and the name check's key)
    CHAT_EMPTY = "chat_empty", 422
    CHAT_LONG = "chat_long", 422
    CHAT_CONTROL = "chat_control", 422
    CHAT_DIRECTION = "chat_direction", 422
    CHAT_MARKS = "chat_marks", 422
    CHAT_TOO_SOON = "chat_too_soon", 429
    # notices by Web Push (nimmt.server.routes.push)
    BAD_SUBSCRIPTION = "bad_subscription", 422
    UNKNOWN_SUBSCRIPTION = "unknown_subscription", 404
