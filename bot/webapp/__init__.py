"""The Mini App: a web page where a seat plays by touching cards (docs/webapp.md).

    auth.py     Telegram's init data checked, our own short-lived session token
    port.py     the narrow port to the tables (``TablePort``): a seat's view, an action,
                "game G changed"
    payload.py  a seat's view as JSON (only what the seat may know) and the page's texts
    server.py   the aiohttp server: the page, ``/api/*``, one WebSocket per open page
    adapter.py  the one place that connects the port to today's rooms (bot/tg/rooms)
    static/     the page itself: HTML, CSS and JavaScript, no build step
"""
