"""The tables of one server process: their state, their runtime, and the service that owns them.

- :mod:`.state`: :class:`TableState`, the fold of a table's journal (seats, game, checks), pure;
- :mod:`.table`: :class:`Table`, that state plus what one process keeps around it (lock, tasks,
  presence, caches);
- :mod:`.service`: :class:`TableService`, which loads, writes (one write path, one settling hook
  after each write) and publishes;
- its parts: :mod:`.bots` (the bots), :mod:`.coach` (the coach), :mod:`.presence` (arrivals,
  departures, the grace before a seat goes to a bot), :mod:`.memory` (idle tables leave memory),
  :mod:`.clock` (timed tables: a seat whose clock runs out goes to a bot), :mod:`.reviews` (each
  finished game's review, made in the bot pool's workers);
- :mod:`.changes` (:class:`TableChanged`, the one event a table emits, and its listeners' type);
- :mod:`.events` (the core's events on the wire, the reveal), :mod:`.errors` (refusals and codes).
"""

from .changes import TableChanged, TableListener
from .coach import ADVICE_SAMPLES, advice_seed
from .errors import ActionError
from .service import TableService, new_table_id, new_token
from .state import Seat, TableState
from .table import Table

__all__ = ["ADVICE_SAMPLES", "ActionError", "Seat", "Table", "TableChanged", "TableListener", "TableService",
           "TableState", "advice_seed", "new_table_id", "new_token"]
