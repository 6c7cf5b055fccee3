"""Take the README's screenshot of a run: the real app in headless Chromium, one goal on the
offline demo model, the Run page once the answer is in.

    python scripts/docs_screenshot.py docs/screenshot-run.png

Uses the browser tests' helpers (Debian's chromium through Playwright, a throwaway data folder).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_kit import choose_provider, chromium, fresh_data_dir, start_run, streamlit_app  # noqa: E402

GOAL = "What's the weather in Seoul and in London, and which is warmer?"


def main(out: Path) -> None:
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = fresh_data_dir(Path(tmp) / "agent_data")
        with streamlit_app(data_dir) as app, chromium() as browser:
            context = browser.new_context(viewport={"width": 1280, "height": 2600})
            page = context.new_page()
            page.set_default_timeout(30_000)
            page.goto(app.url + "/")
            page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
            choose_provider(page, "offline")
            start_run(page, GOAL)
            outcome = page.get_by_text("Outcome:").first
            outcome.wait_for()
            page.wait_for_timeout(1500)
            top = page.get_by_label("Goal", exact=True).bounding_box()
            end = outcome.bounding_box()
            shot = Path(tmp) / "run.png"
            page.screenshot(path=str(shot))
            context.close()
        image = Image.open(shot).convert("RGB")
        y0 = int(top["y"]) - 40 if top else 0
        y1 = min(image.height, int(end["y"]) + 260) if end else image.height
        image = image.crop((260, y0, image.width - 20, y1))
        image = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.Resampling.LANCZOS)
        image.quantize(colors=128).save(out, optimize=True)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "screenshot-run.png"))
