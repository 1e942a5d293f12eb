"""Pure rendering: messages and keyboards from engine views (``render`` and its parts),
and the callback data of the buttons (``callbacks``)."""
