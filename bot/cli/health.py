"""``python -m bot health``: exit 0 when the running bot's ``GET /healthz`` answers 200
(its event loop runs and its database answers), 1 otherwise: the Docker ``HEALTHCHECK``.
Reads METRICS_PORT and METRICS_LISTEN from the environment (as the bot does)."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def health_main(argv: list[str]) -> int:
    port = os.environ.get("METRICS_PORT", "").strip()
    if not port or port == "0":
        print("thousand-bot health: METRICS_PORT is not set (the health server is off)",
              file=sys.stderr)
        return 1
    host = os.environ.get("METRICS_LISTEN", "").strip() or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    timeout = float(argv[0]) if argv else 5.0
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=timeout) as r:
            ok = r.status == 200
            body = r.read().decode(errors="replace").strip()
    except urllib.error.HTTPError as e:
        ok, body = False, e.read().decode(errors="replace").strip()
    except (OSError, ValueError) as e:
        ok, body = False, str(e)
    print(body or ("ok" if ok else "unhealthy"), file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1
