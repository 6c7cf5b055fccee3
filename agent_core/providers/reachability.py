"""Does a server answer at a URL? A quick TCP connect, for showing a provider as available only
when its server is there (``openai-chat`` with no Ollama running otherwise fails after retries)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

DEFAULT_TIMEOUT_S = 0.4


def answers(url: str, timeout: float = DEFAULT_TIMEOUT_S) -> bool:
    """True when something accepts a TCP connection at ``url``'s host and port within ``timeout``."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if not host:
        return False
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
