"""``python -m bot.process.healthcheck``: exit 0 when the local bot answers ``/healthz`` with 200.

The container health check; it reads only ``VLLM_REPORT_HTTP_PORT`` (through the settings).
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from pydantic import ValidationError

from config.settings import Settings, settings_error


def check(port: int, *, host: str = "127.0.0.1", timeout: float = 4.0) -> bool:
    """Whether ``http://host:port/healthz`` answers 200."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=timeout) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def main() -> int:
    try:
        port = Settings().http_port
    except ValidationError as exc:
        sys.stderr.write(f"vllm-report: unhealthy (invalid setting: {settings_error(exc)})\n")
        return 1
    healthy = check(port)
    if not healthy:
        sys.stderr.write(f"vllm-report: unhealthy (no 200 from 127.0.0.1:{port}/healthz)\n")
    return 0 if healthy else 1


if __name__ == "__main__":
    raise SystemExit(main())
