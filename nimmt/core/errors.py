"""Exceptions of the rules core. Every message names the problem in words a player understands."""

from __future__ import annotations


class NimmtError(Exception):
    """Base of every error nimmt raises on purpose."""


class RulesError(NimmtError, ValueError):
    """Table options that nimmt cannot play (an unknown edition, a bad threshold)."""


class UnsupportedEdition(RulesError):
    """An edition or variant that nimmt describes but does not automate."""


class UnknownCard(NimmtError, ValueError):
    """A number that is no card of the deck (cards run from 1 to 104)."""


class DealError(NimmtError, ValueError):
    """A deal that does not fit the table: wrong sizes, repeated or unknown cards."""


class IllegalAction(NimmtError):
    """An action the game does not allow now; the game is left unchanged."""


class UnknownPlayer(IllegalAction):
    """A seat that does not exist at this table."""


class GameOver(IllegalAction):
    """Any action after the game has ended."""


class NotWaitingForThat(IllegalAction):
    """An action of the wrong kind for this moment (a card while a row is awaited, a deal mid-round)."""


class NotYourTurn(IllegalAction):
    """A player acting when the game waits for somebody else."""


class AlreadyPlayed(IllegalAction):
    """A second card from the same player in one turn."""


class CardNotInHand(IllegalAction):
    """A card that the player does not hold."""


class RowOutOfRange(IllegalAction):
    """A row number other than 0 to 3."""
