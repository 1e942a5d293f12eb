"""Telegram I/O: the application, the handlers (routing), the outbox, the request layer,
the coordination of several processes and the computer players' process pool."""
