"""Print the command-line reference (docs/cli.md) from the CLI's own argparse parser.

    python scripts/cli_reference.py > docs/cli.md

``tests/test_docs.py`` fails when docs/cli.md is not what this prints, so the reference cannot
drift from the code.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEADER = """# Command-line reference

Generated from the parser by `python scripts/cli_reference.py > docs/cli.md`; do not edit by hand.

```bash
python -m agent_core run "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
python -m agent_core run "What is (24*7)+100?" --provider offline --json
python -m agent_core run "Summarise notes.txt" --provider anthropic --model claude-sonnet-4-5 --max-steps 5
python -m agent_core run "hello" --provider openai-chat --base-url http://localhost:11434/v1 --model llama3.2
python -m agent_core runs
```

Progress goes to stderr, so stdout stays the answer (or, with `--json`, the record). Exit codes
everywhere: **0** done, **1** the work failed (a failed run, an eval below `--min-pass`, an
export refused), **2** bad input. `runs` lists saved runs, newest first, each with its run id (what
`summary`, `compare`, `export` and `replay` take) and its outcome word (*Answered*, *Not found*,
*No answer*, *Step limit*, *Stopped*, *Failed*, as the dashboard says it); `runs --json` prints
one JSON object a line (`null` for an unknown value, `tools_offered` as a list). `run` says the
outcome on stderr. Unreadable files are reported on stderr and skipped.
"""


def reference() -> str:
    """The whole page: the header, then each command's ``--help``."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: the same text everywhere
    from agent_core.cli.main import build_parser

    parser = build_parser()
    out = [HEADER, "## python -m agent_core\n", "```text\n" + parser.format_help().rstrip() + "\n```\n"]
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        out.append(f"## {name}\n")
        out.append("```text\n" + sub.format_help().rstrip() + "\n```\n")
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        for inner, subsub in nested[0].choices.items() if nested else ():
            out.append(f"### {name} {inner}\n")
            out.append("```text\n" + subsub.format_help().rstrip() + "\n```\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(reference())
