# The Thousand bot: python -m bot (long polling), the database on the /data volume.
#
#   docker build -t thousand-bot .
#   docker run -d --name thousand -e TELEGRAM_BOT_TOKEN=123456:ABC... \
#       -v thousand-data:/data thousand-bot
#
# Settings come from the environment (see docs/bot.md); DATABASE_PATH points at the volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
# The exact, hash-checked versions first (a layer that changes only with the lock) ...
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock
# ... then the project itself, without resolving anything again.
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY storage ./storage
RUN pip install --no-deps . \
    && rm -rf /src \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin thousand \
    && mkdir -p /data \
    && chown thousand:thousand /data

USER thousand
WORKDIR /home/thousand
ENV DATABASE_PATH=/data/thousand.sqlite3 \
    METRICS_PORT=9090
VOLUME ["/data"]

# GET /healthz on METRICS_PORT (127.0.0.1 unless METRICS_LISTEN says otherwise; publish
# it with METRICS_LISTEN=0.0.0.0 for Prometheus): alive and the database answers.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health", "4"]

# SIGTERM stops polling, finishes the moves in flight and closes the database cleanly;
# a killed container loses nothing either (every accepted move is committed first).
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
