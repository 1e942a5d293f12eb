"""The rooms of the game service, one object per job (the map: ``service.py``)."""
