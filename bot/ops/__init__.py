"""What an operator sees of a running bot (issue 22): ``metrics.py`` (the Prometheus
metrics and the Bot API request observer), ``server.py`` (``GET /healthz`` and
``GET /metrics`` on METRICS_PORT), ``ports.py`` (the port an aiohttp server bound: that
server's and the Mini App's), ``logs.py`` (LOG_FORMAT=json), ``backup.py``
(``python -m bot backup FILE``)."""
