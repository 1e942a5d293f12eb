"""The rooms of the game service, one object per job; the table's owner (``owner.py``)
that alone changes and stores a table's fields and publishes its events (``events.py``);
the map, and the only place where listeners and signals are wired: ``service.py``."""
