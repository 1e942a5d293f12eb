"""The Telegram layer, in three folders by role (and the benchmarks beside them):

* ``io/`` — Telegram I/O and what runs outside the event loop's game logic:
  ``app.py`` (the PTB application), ``handlers.py`` (each update routed to the room that
  owns it), ``outbox.py`` (per-chat queues, send once then edit, group budgets),
  ``aiohttp_request.py`` (the request layer), ``coord.py`` (several processes on one
  database: leases, send-once), ``thinking.py`` (computer moves in a process pool).
* ``rooms/`` — the game service as objects, one per job, built once by
  ``rooms/service.py`` (``GameService``) in dependency order; each is given the shared
  ``Kit`` (``rooms/base.py``: registry, languages and admins, tasks, settings, storage,
  outbox, thinker), the table's owner and the rooms below it:

      buttons   commands        (top: what handlers call)
      media     restore   keepers
      membership
      lobby
      table     hints   ratings
      owner                     (every table's fields: it alone changes and stores them)
      base (Kit)  events  session  (the plain pieces: Session, its typed Settings and
                                    Messages, UserRef, Answer, ...; the typed events)

  A room calls another only through that room's public methods and only downwards.  A
  table's fields are assigned only by its owner (``rooms/owner.py``), which publishes one
  typed event per change once it is stored (``rooms/events.py``); what shows a table
  listens to them, wired in ``service.py`` — as every other upward signal
  (``TableHooks.reload``, ``Tasks.on_died``, ``Registry.rebuild``, the outbox's
  ``on_forbidden``…).  The import-linter contract "Rooms call only the rooms below them"
  and ``tests/test_rooms.py`` check it.
* ``view/`` — pure rendering: ``render.py`` gathers ``common``, ``rules``, ``menus``,
  ``table``, ``hands`` and ``sheet``; ``callbacks.py`` is the button data.  No I/O, no
  rooms (an import-linter contract).
* ``model.py`` — the stored record of a game (seats, action records, replay), read by the
  rooms and the view.

Who owns what and who calls whom, in full: ``docs/bot.md`` ("How it works").
"""
