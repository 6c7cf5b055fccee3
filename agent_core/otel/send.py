"""Sending spans over OTLP/HTTP (protobuf) to any endpoint, with retries and plain error messages.

Presets fill in the endpoint path and the auth header shape of common tracing tools; the
standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_HEADERS`` (and their ``_TRACES_``
forms) are honoured. A failure raises :class:`ExportError` whose message names the endpoint and
the reason in one line; credentials never appear in it.
"""

from __future__ import annotations

import base64
import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core.otel.encode import to_protobuf
from agent_core.otel.export import Trace

RETRYABLE_STATUS = frozenset({408, 429, 502, 503, 504})
"""OTLP/HTTP: these responses may succeed later; others (400, 401, 403, 404, 413, 500 …) will not."""
DEFAULT_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0)
DEFAULT_TIMEOUT_S = 10.0
MAX_WAIT_S = 30.0
TRACES_PATH = "/v1/traces"

PRESETS: dict[str, dict[str, str]] = {
    "generic": {"label": "Any OTLP/HTTP endpoint", "endpoint": "http://localhost:4318"},
    "phoenix": {"label": "Arize Phoenix", "endpoint": "http://localhost:6006"},
    "langfuse": {"label": "Langfuse", "endpoint": "https://cloud.langfuse.com"},
    "mlflow": {"label": "MLflow (3.6+)", "endpoint": "http://localhost:5000"},
}
"""Each preset's default base URL; :func:`preset_target` adds its path and auth header."""


class ExportError(Exception):
    """An export failed after its retries; ``str()`` is one line naming the endpoint and the reason."""


@dataclass
class Target:
    """Where spans go: the full traces URL and the headers (credentials included)."""

    endpoint: str
    headers: dict[str, str] = field(default_factory=dict)

    def masked_headers(self) -> dict[str, str]:
        return {key: mask_header(key, value) for key, value in self.headers.items()}


_SECRET_HEADER_WORDS = ("authorization", "key", "token", "secret", "password", "cookie")


def mask_header(key: str, value: str) -> str:
    """A header value as it may be shown: credentials reduced to a hint."""
    if not any(word in key.lower() for word in _SECRET_HEADER_WORDS):
        return value
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in ("basic", "bearer"):
        return f"{scheme} ****"
    return "****"


def traces_url(url: str) -> str:
    """``url`` as a full OTLP/HTTP traces URL: a base URL gets ``/v1/traces`` added."""
    url = url.strip()
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"not an http(s) URL: {url!r}")
    if parsed.path.rstrip("/").endswith(TRACES_PATH):
        return url
    return url.rstrip("/") + TRACES_PATH


def parse_headers(items: Iterable[str] | str | None) -> dict[str, str]:
    """``K=V`` items (a list, or the comma-separated ``OTEL_EXPORTER_OTLP_HEADERS`` form)."""
    if items is None:
        return {}
    if isinstance(items, str):
        items = [part for part in items.split(",") if part.strip()]
    headers: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a header must look like KEY=VALUE, got {item.split('=')[0]!r}")
        headers[urllib.parse.unquote(key.strip())] = urllib.parse.unquote(value.strip())
    return headers


def preset_target(
    preset: str,
    *,
    endpoint: str | None = None,
    api_key: str | None = None,
    public_key: str | None = None,
    secret_key: str | None = None,
    experiment_id: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Target:
    """The target for a preset: its path on ``endpoint`` and its auth header."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    base = (endpoint or PRESETS[preset]["endpoint"]).strip().rstrip("/")
    out: dict[str, str] = {}
    if preset == "langfuse":
        if not base.endswith("/api/public/otel") and not base.endswith("/api/public/otel/v1/traces"):
            base += "/api/public/otel"
        if public_key or secret_key:
            pair = f"{public_key or ''}:{secret_key or ''}".encode()
            out["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        out["x-langfuse-ingestion-version"] = "4"
    elif preset == "mlflow":
        out["x-mlflow-experiment-id"] = (experiment_id or "0").strip() or "0"
    elif preset == "phoenix" and api_key:
        out["Authorization"] = f"Bearer {api_key}"
    elif preset == "generic" and api_key:
        out["Authorization"] = f"Bearer {api_key}"
    out.update(headers or {})
    return Target(traces_url(base), out)


def target_from_env(env: Mapping[str, str] | None = None) -> Target | None:
    """The standard OTLP variables as a target; None when no endpoint is set."""
    env = os.environ if env is None else env
    url = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if not url:
        base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
        if not base:
            return None
        url = traces_url(base)
    headers = parse_headers(env.get("OTEL_EXPORTER_OTLP_HEADERS", ""))
    headers.update(parse_headers(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "")))
    return Target(url, headers)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        try:
            body = exc.read(300).decode("utf-8", "replace")
        except Exception:
            body = ""
        body = " ".join(body.split())[:160]
        return f"HTTP {exc.code} {exc.reason}" + (f": {body}" if body and body.isprintable() else "")
    if isinstance(exc, urllib.error.URLError):
        return f"unreachable ({exc.reason})"
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"


def _retry_after(exc: BaseException) -> float | None:
    if isinstance(exc, urllib.error.HTTPError):
        value = exc.headers.get("Retry-After") if exc.headers else None
        try:
            return min(MAX_WAIT_S, max(0.0, float(value))) if value else None
        except ValueError:
            return None
    return None


def post(
    target: Target,
    body: bytes,
    *,
    delays: tuple[float, ...] = DEFAULT_DELAYS,
    timeout: float = DEFAULT_TIMEOUT_S,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> int:
    """POST one protobuf request; retry what may succeed later; return the HTTP status.

    Raises :class:`ExportError` after the last attempt, or at once for a refusal that will not
    change (e.g. 400, 401, 404).
    """
    rng = rng or random.Random()
    headers = {"Content-Type": "application/x-protobuf", "User-Agent": "agent-workbench-otel/1"}
    headers.update(target.headers)
    attempt = 0
    while True:
        request = urllib.request.Request(target.endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only
                response.read(1 << 16)
                return int(response.status)
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            retryable = not isinstance(exc, urllib.error.HTTPError) or exc.code in RETRYABLE_STATUS
            reason = _reason(exc)
            if not retryable or attempt >= len(delays):
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise ExportError(f"export to {target.endpoint} failed{tries}: {reason}") from None
            wait = _retry_after(exc)
            if wait is None:
                wait = rng.uniform(0, delays[attempt])  # full jitter
            sleep(min(wait, MAX_WAIT_S))
            attempt += 1


def send_traces(traces: Iterable[Trace], target: Target, **kwargs: Any) -> int:
    """Encode and send; returns the number of spans sent."""
    traces = list(traces)
    message = to_protobuf(traces)
    post(target, message.SerializeToString(), **kwargs)
    return sum(len(t.spans) for t in traces)


# --- the last-used destination (History → "Send to…") ------------------------------------------

PREFS_FILE = "otel_destination.json"
"""In the data folder: the last preset, endpoint and MLflow experiment. Never credentials."""
_PREF_KEYS = ("preset", "endpoint", "experiment_id")


def load_last_destination(data_dir: Path | str) -> dict[str, str]:
    """The last-used destination, or {} (a missing or unreadable file is not an error)."""
    try:
        data = json.loads((Path(data_dir) / PREFS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in _PREF_KEYS and isinstance(v, str) and len(v) <= 2000}


def save_last_destination(data_dir: Path | str, destination: Mapping[str, str]) -> None:
    """Remember the destination (only preset, endpoint, experiment id); failures are ignored."""
    data = {k: str(v) for k, v in destination.items() if k in _PREF_KEYS and v}
    try:
        path = Path(data_dir) / PREFS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
