"""ui/frame.py works around Streamlit's legacy pages/ mode; this fails when that mode is gone."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_streamlit_still_treats_a_pages_folder_as_a_legacy_multipage_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.runtime.pages_manager import PagesManager

    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "history.py").write_text("", encoding="utf-8")
    (tmp_path / "app.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)  # as on a fresh server
    PagesManager(str(tmp_path / "app.py"))
    assert PagesManager.uses_pages_directory is True, (
        "Streamlit no longer switches to the legacy pages/ mode for an app with a pages/ folder: "
        "ui/frame.py (ensure_app_frame) is not needed any more; remove it and its calls."
    )


def test_the_workaround_lives_in_one_place() -> None:
    root = Path(__file__).resolve().parent.parent
    files = [*(root / "pages").glob("*.py"), *(root / "ui").glob("*.py")]
    users = [p.name for p in files if "uses_pages_directory" in p.read_text(encoding="utf-8")]
    assert users == ["frame.py"]
