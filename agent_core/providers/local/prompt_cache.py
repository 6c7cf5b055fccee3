"""The prompt cache on disk: the warmed system and tool prompt, saved once, restored in a new process.

Reading the system prompt and the tool list costs the local model ~500 prompt tokens (8 s on 2
idle cores, 30 s and more on a busy machine) in every new process. llama.cpp can save a slot's
state (its tokens and their KV cache) to a file and restore it (``POST /slots/0?action=save|restore``
on the embedded server, under ``slot_save_path``); restoring the 14 MB file takes ~30 ms.

The files live in ``<AGENT_DATA_DIR>/cache/prompt/``:

- ``<key>.<sha256 of the content, 16 hex>.slot``: the state llama.cpp wrote, named by its content;
- ``<key>.json``: which slot file belongs to the key, with its size, SHA-256 and token count.

The key (:func:`cache_key`) covers everything the saved state depends on: the model file's
SHA-256, the exact messages warmed (system prompt and tool descriptions) and the tool schemas, the
context size, the batch size, the runtime (xllamacpp) version and this file's format.

Safety: a slot file is only handed to llama.cpp after its size and SHA-256 match the index, so a
missing, stale, truncated or corrupt file is ignored (the prompt is computed again and saved
anew); it never crashes a run and never feeds the model a damaged state. Writes are atomic: the
slot file is written under a temporary name and renamed to its content name, then the index is
written to a temporary file and renamed; two processes building the same key at once each
publish a whole file, and the last index written wins.

Everything here but the llama.cpp calls is plain file work, unit-tested without the model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("agent_core.providers.local.prompt_cache")

FORMAT = 2
"""Bump when the files or the key change meaning: older files are then simply never found.
2: the weights are no longer repacked at load (``no_extra_bufts``); a state computed with the
repacked kernels differs in its last bits from one computed now, so it is not reused."""
SLOT_SUFFIX = ".slot"
INDEX_SUFFIX = ".json"
TEMP_SUFFIX = ".tmp"
STALE_TEMP_S = 3600.0
"""A temporary file older than this is a leftover of a crashed process and is removed."""
HASH_MARKER_SUFFIX = ".sha256.json"
_NAME = re.compile(r"^[0-9a-f]{32}\.[0-9a-f]{16}\.slot$")


def cache_dir(data_dir: Path) -> Path:
    """Where the prompt cache of a data folder lives: ``<data_dir>/cache/prompt``."""
    return data_dir / "cache" / "prompt"


def cache_key(
    *,
    model_sha256: str,
    messages: Sequence[Mapping[str, Any]],
    tool_schemas: Sequence[Mapping[str, Any]],
    n_ctx: int,
    n_batch: int,
    runtime_version: str | None,
) -> str:
    """32 hex digits naming one saved prompt state; any change in what it depends on changes it."""
    payload = {
        "format": FORMAT,
        "model_sha256": model_sha256,
        "messages": list(messages),
        "tools": list(tool_schemas),
        "n_ctx": n_ctx,
        "n_batch": n_batch,
        "runtime": runtime_version,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class CachedPrompt:
    """A verified slot file: its name inside the cache folder and how many tokens it holds."""

    filename: str
    n_tokens: int


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` through a uniquely named temporary file and a rename."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class PromptCache:
    """The slot files of one cache folder (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _index(self, key: str) -> Path:
        return self.directory / f"{key}{INDEX_SUFFIX}"

    def find(self, key: str) -> CachedPrompt | None:
        """The verified slot file for ``key``, or None (missing, stale or damaged: logged, never raised)."""
        index = self._index(key)
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("prompt cache index %s is unreadable (%s); the prompt is computed again", index.name, exc)
            return None
        reason = self._check(key, data)
        if reason:
            log.warning("prompt cache %s ignored: %s; the prompt is computed again", index.name, reason)
            return None
        return CachedPrompt(filename=data["file"], n_tokens=int(data["n_tokens"]))

    def _check(self, key: str, data: Any) -> str:
        """Why the index ``data`` cannot be used for ``key`` ('' when it can)."""
        if not isinstance(data, dict):
            return "the index is not an object"
        if data.get("format") != FORMAT or data.get("key") != key:
            return "it was written for another key or format"
        name, size, digest, tokens = data.get("file"), data.get("size"), data.get("sha256"), data.get("n_tokens")
        if not isinstance(name, str) or not _NAME.match(name) or not name.startswith(key + "."):
            return "the slot file name is invalid"
        if not isinstance(size, int) or not isinstance(digest, str) or not isinstance(tokens, int) or tokens <= 0:
            return "the index is incomplete"
        path = self.directory / name
        try:
            actual_size = path.stat().st_size
            if actual_size != size:
                return f"the slot file has {actual_size} bytes, not {size} (truncated or replaced)"
            if _file_sha256(path) != digest:
                return "the slot file's SHA-256 does not match (damaged)"
        except OSError as exc:
            return f"the slot file cannot be read ({exc.strerror or exc})"
        return ""

    def temp_name(self, key: str) -> str:
        """A fresh name for llama.cpp to save a slot into (unique per process and call)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        return f"{key}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"

    def publish(self, key: str, temp_name: str, n_tokens: int) -> CachedPrompt:
        """Make the slot file llama.cpp saved as ``temp_name`` the cache entry of ``key``.

        Renamed to its content name, then the index written atomically; older slot files of the
        key and stale temporary files are removed. Raises OSError when the file is not there.
        """
        tmp = self.directory / temp_name
        try:
            digest = _file_sha256(tmp)
            size = tmp.stat().st_size
            name = f"{key}.{digest[:16]}{SLOT_SUFFIX}"
            os.replace(tmp, self.directory / name)
        finally:
            tmp.unlink(missing_ok=True)
        index = {
            "format": FORMAT,
            "key": key,
            "file": name,
            "size": size,
            "sha256": digest,
            "n_tokens": n_tokens,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        _write_atomically(self._index(key), json.dumps(index, indent=1))
        self._tidy(key, keep=name)
        return CachedPrompt(filename=name, n_tokens=n_tokens)

    def _tidy(self, key: str, keep: str) -> None:
        now = time.time()
        for path in self.directory.iterdir():
            try:
                if path.name.startswith(key + ".") and path.name.endswith(SLOT_SUFFIX) and path.name != keep:
                    path.unlink()  # an older state of this key (a reader of it falls back to computing)
                elif path.name.endswith(TEMP_SUFFIX) and now - path.stat().st_mtime > STALE_TEMP_S:
                    path.unlink()
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
# The model file's SHA-256, remembered


def remembered_sha256(model: Path, fallback_dir: Path) -> str:
    """The SHA-256 of ``model``, hashed once and remembered by its size and mtime.

    Kept next to the model (``<model>.sha256.json``), or in ``fallback_dir`` when the model's
    folder is not writable, so a 1 GB file is not hashed at every start.
    """
    stat = model.stat()
    fallback = fallback_dir / (hashlib.sha256(str(model.resolve()).encode()).hexdigest()[:16] + HASH_MARKER_SUFFIX)
    places = [model.with_name(model.name + HASH_MARKER_SUFFIX), fallback]
    for place in places:
        try:
            data = json.loads(place.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if (
            isinstance(data, dict)
            and data.get("size") == stat.st_size
            and data.get("mtime_ns") == stat.st_mtime_ns
            and isinstance(data.get("sha256"), str)
        ):
            return str(data["sha256"])
    digest = _file_sha256(model)
    text = json.dumps({"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest})
    for place in places:
        try:
            place.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(place, text)
            break
        except OSError:
            continue
    return digest
