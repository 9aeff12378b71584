"""The tables of one server process: their state, their one writer each, and the service that holds them.

- :mod:`.state`: :class:`TableState`, the fold of a table's journal (seats, game, checks), pure;
- :mod:`.table`: :class:`Table`, that state plus what one process keeps around it (presence, caches);
- :mod:`.commands`: what may be asked of a table, a closed union of typed commands (a person's
  action, a join, a bot's answer, a clock that ran out, an arrival...), what one did, and the
  :class:`~.commands.Port` the parts submit them through;
- :mod:`.host`: :class:`~.host.TableHost`, the one writer of one table: ``submit(command)`` under its
  lock, check, store, apply, publish, then what the write calls for, then the listeners;
- :mod:`.changes`: :class:`TableChanged`, the one event a table emits, and its listeners' type;
- :mod:`.service`: :class:`TableService`, which holds the process's tables (creates, loads, evicts
  them), composes the parts and is their port;
- its parts, each a listener or a submitter, none holding the service: :mod:`.bots` (the bots),
  :mod:`.coach` (the coach), :mod:`.presence` (arrivals, departures, the grace before a seat goes to
  a bot), :mod:`.memory` (idle tables leave memory), :mod:`.clock` (timed tables: a seat whose
  clock runs out goes to a bot), :mod:`.reviews` (each finished
  game's review, made in the bot pool's workers);
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
