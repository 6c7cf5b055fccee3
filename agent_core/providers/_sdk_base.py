"""What the three SDK providers (``openai``, ``openai-chat``, ``anthropic``) have in common.

:class:`SdkProvider` owns their shape: a client built with ``max_retries=0`` and the request
timeout, the key registered for masking, nothing to prepare, and one ``complete`` template
(build the request, call the SDK, map its errors, parse the answer). Each provider file keeps
what is its own: the request, the client method, the parsing, its label and its SDK.

This module imports no SDK: each provider file imports its own, lazily, and hands it over as an
:class:`Sdk`, so listing providers stays fast.
"""

from __future__ import annotations

import json
import os
from abc import abstractmethod
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, ClassVar, NamedTuple

from agent_core.errors import ERROR_PREFIX, ProviderError, ProviderUnavailable
from agent_core.masking import register_secret
from agent_core.providers._sdk_errors import map_sdk_error, unexpected_response
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Provider

MISSING_OUTPUT = ERROR_PREFIX + "this call was not run (the run stopped before it)."
"""Sent for a call that has no output, since the APIs refuse a call without its output."""


def key_hint(variable: str) -> str | None:
    """None when the API key variable ``variable`` is set, else a one-line hint to set it."""
    if os.environ.get(variable, "").strip():
        return None
    return f"set {variable} in the environment or .env"


def require_key(provider_id: str, variable: str) -> str:
    """The API key in ``variable``; raise :class:`ProviderUnavailable` with the hint when unset."""
    api_key = os.environ.get(variable, "").strip()
    if not api_key:
        raise ProviderUnavailable(
            f"{provider_id} is unavailable: {key_hint(variable)}", provider=provider_id, error_type="Unavailable"
        )
    return api_key


def drop_none(value: Any) -> Any:
    """Remove ``None`` fields, which the APIs reject on input items (``status: null`` …)."""
    if isinstance(value, dict):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value


def arguments_text(arguments: Any) -> str:
    """Call arguments as the JSON string the OpenAI APIs expect."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


class Sdk(NamedTuple):
    """An SDK as a provider uses it, handed over by the one file that imports it."""

    module: ModuleType
    """The SDK module (``openai``, ``anthropic``), whose exception classes the errors are sorted by."""
    client_class: Callable[..., Any]
    """Builds the client: ``openai.OpenAI``, ``anthropic.Anthropic``."""
    error_class: type[Exception]
    """The SDK's base exception: ``openai.OpenAIError``, ``anthropic.AnthropicError``."""


class SdkProvider(Provider):
    """A model behind a remote API reached through its official SDK.

    Subclasses set the class attributes and implement the hooks; ``complete`` is the same for all.
    """

    id: str
    """Provider id, for errors and the record."""
    default_model: ClassVar[str]
    """The model when none is given."""
    default_base_url: ClassVar[str]
    """Where the client connects when no base URL is given."""
    title: ClassVar[str]
    """The API's name at the start of the label ("OpenAI Responses API")."""
    service_name: ClassVar[str]
    """How error messages name the service ("OpenAI", "Anthropic")."""
    server_hint: ClassVar[str]
    """Appended to connection errors ("is it running?")."""
    parse_errors: ClassVar[tuple[type[Exception], ...]] = (AttributeError, KeyError, TypeError, ValueError)
    """What ``_parse`` raises on an answer in an unexpected shape."""
    placeholder_key: ClassVar[str | None] = None
    """A key that stands for no key (local servers ignore it): no secret, so not masked."""

    def __init__(
        self,
        *,
        model: str | None = None,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.model = self.default_model if model is None else model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.timeout = timeout
        self.label = self._label_text()
        if api_key != self.placeholder_key:
            register_secret(api_key)
        sdk = self._load_sdk()
        self._sdk = sdk.module
        self._sdk_error = sdk.error_class
        # The engine's retry policy is the only one: every attempt shows in the record.
        self._client = sdk.client_class(api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout)

    def prepare(self) -> Iterator[LoadProgress]:
        """Nothing to prepare: the model lives on the server."""
        yield from ()

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One API call; raise :class:`ProviderError` on failure."""
        kwargs = self._request_kwargs(request)
        try:
            response = self._send(kwargs, request)
        except self._sdk_error as exc:
            raise map_sdk_error(
                exc,
                sdk=self._sdk,
                provider=self.id,
                name=self.service_name,
                base_url=self.base_url,
                timeout=self.timeout,
                server_hint=self.server_hint,
            ) from None
        try:
            return self._parse(response, request)
        except ProviderError:  # the parser's own verdict, e.g. a response marked failed
            raise
        except self.parse_errors as exc:
            raise unexpected_response(self.id, self.service_name, exc) from None

    # What each provider does its own way.

    def _label_text(self) -> str:
        """What the UI and the record call it: the API, where it is unless that is the default
        place, and the model."""
        where = "" if self.base_url == self.default_base_url else f" at {self.base_url}"
        return f"{self.title}{where} — {self.model}"

    @abstractmethod
    def _load_sdk(self) -> Sdk:
        """Import the SDK (here, not at module import) and name its client and error classes."""

    @abstractmethod
    def _request_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of the SDK call: messages in, tools in."""

    @abstractmethod
    def _send(self, kwargs: dict[str, Any], request: ModelRequest) -> Any:
        """Call the client method with ``kwargs``; the SDK's errors are mapped by ``complete``."""

    @abstractmethod
    def _parse(self, response: Any, request: ModelRequest) -> ModelResponse:
        """The SDK's answer as a :class:`ModelResponse`: response out."""
