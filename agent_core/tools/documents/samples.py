"""Which documents are the product's samples (copied in on first start), and removing them at once.

A file is a sample when the sample folder (``agent_data/workspace``) has a file of the same name
with the same bytes: a sample the person edited is theirs now, and stays.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from agent_core.tools.sample_workspace import SAMPLE


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def sample_names(root: Path, sample: Path = SAMPLE) -> set[str]:
    """Names of the files in ``root`` that are unchanged samples."""
    found = set()
    try:
        candidates = [p for p in sample.iterdir() if p.is_file() and not p.name.startswith(".")]
    except OSError:
        return set()
    for original in candidates:
        copy = root / original.name
        if copy.is_file() and (copy.resolve() == original.resolve() or _digest(copy) == _digest(original)):
            found.add(original.name)
    return found
