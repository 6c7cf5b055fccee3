"""The sample documents of ``agent_data/workspace``, copied into a data folder that has none.

The example goals read these files; a fresh ``AGENT_DATA_DIR`` without a ``workspace/`` would
make every file example fail with "the workspace folder does not exist".
"""

from __future__ import annotations

import shutil
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "agent_data" / "workspace"


def ensure_sample_workspace(workspace: Path, sample: Path = SAMPLE) -> bool:
    """Copy ``sample`` to ``workspace`` when ``workspace`` does not exist; True when copied.

    An existing folder (even an empty one) is left alone; so is a missing sample. A copy that
    fails (a read-only disk) raises ``OSError`` for the caller to report.
    """
    if workspace.exists() or not sample.is_dir() or workspace.resolve() == sample.resolve():
        return False
    workspace.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(sample, workspace)
    return True
