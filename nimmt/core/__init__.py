"""The rules core of nimmt: pure, immutable, standard library only."""

from .cards import (
    BULLHEADS,
    DECK,
    DECK_BULLHEADS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROW_COUNT,
    ROW_LIMIT,
    TURNS_PER_ROUND,
    bullheads,
    row_bullheads,
)
from .ending import Ending, EndReason, ending
from .errors import (
    AlreadyPlayed,
    CardNotInHand,
    DealError,
    GameOver,
    IllegalAction,
    NimmtError,
    NotWaitingForThat,
    NotYourTurn,
    RowOutOfRange,
    RulesError,
    UnknownCard,
    UnknownPlayer,
    UnsupportedEdition,
)
from .events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    Event,
    GameEnded,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    TurnEnded,
)
from .game import (
    CLASSIC,
    DEFAULT_END_ABOVE,
    Action,
    ChooseRow,
    Deal,
    GameState,
    Phase,
    PlayCard,
    Rules,
    Step,
    apply,
    apply_all,
    deal_cards,
    legal_actions,
    new_game,
    take_back,
    target_row,
)
from .view import View, view

__all__ = [
    "BULLHEADS", "CLASSIC", "DECK", "DECK_BULLHEADS", "DEFAULT_END_ABOVE", "HAND_SIZE",
    "MAX_PLAYERS", "MIN_PLAYERS", "ROW_COUNT", "ROW_LIMIT", "TURNS_PER_ROUND",
    "Action", "AlreadyPlayed", "CardChosen", "CardNotInHand", "CardPlaced", "CardsRevealed",
    "ChooseRow", "Deal", "DealError", "EndReason", "Ending", "Event", "GameEnded", "GameOver", "GameState",
    "IllegalAction", "NimmtError", "NotWaitingForThat", "NotYourTurn", "Phase", "PlayCard",
    "RoundEnded", "RoundStarted", "RowChoiceNeeded", "RowOutOfRange", "RowTaken", "Rules",
    "RulesError", "Step", "TurnEnded", "UnknownCard", "UnknownPlayer", "UnsupportedEdition", "View",
    "apply", "apply_all", "bullheads", "deal_cards", "ending", "legal_actions", "new_game",
    "row_bullheads", "take_back", "target_row", "view",
]
