"""``--approve``: who answers tool calls whose policy asks, on the command line.

``run --approve ask`` (the default) asks on the terminal; with no terminal (a pipe, a cron job)
it cannot, so it says so once and rejects them, like ``none``. ``all`` approves every call,
``none`` rejects them (recorded as such). Evals, arena and replay take ``all`` or ``none``
(default ``none``): a batch never waits for a person.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any, TextIO

from agent_core.run.approval import Answer, ApprovalRequest, Approver, FixedApprover

MODES = ("ask", "all", "none")
BATCH_MODES = ("all", "none")


def add_argument(parser: argparse.ArgumentParser, *, interactive: bool) -> None:
    """The ``--approve`` option of a command (``ask`` only where a person can answer)."""
    if interactive:
        parser.add_argument(
            "--approve",
            choices=MODES,
            default="ask",
            help="tool calls whose policy asks (see the Tools page): ask on the terminal (default; without a "
            "terminal they are rejected), all (approve them), none (reject them; the model is told)",
        )
    else:
        parser.add_argument(
            "--approve",
            choices=BATCH_MODES,
            default="none",
            help="tool calls whose policy asks: none (default: reject them, recorded as such) or all "
            "(approve them); nothing ever waits for a person here",
        )


def approver_for(
    mode: str, *, stdin: TextIO | None = None, stderr: TextIO | None = None, command: str = "run"
) -> Approver:
    """The approver of ``--approve mode``; ``ask`` without a terminal is ``none``, with a note."""
    stdin = stdin if stdin is not None else sys.stdin
    stderr = stderr if stderr is not None else sys.stderr
    if mode == "all":
        return FixedApprover("all", by=f"{command} --approve all")
    if mode == "ask":
        if stdin.isatty():
            return TerminalApprover(stdin, stderr)
        return NoTerminal(stderr, by=f"{command} --approve ask, without a terminal")
    return FixedApprover("none", by=f"{command} --approve none")


def fixed(mode: str, command: str) -> FixedApprover:
    """A batch command's ``--approve all|none`` (evals, arena, replay)."""
    return FixedApprover("all" if mode == "all" else "none", by=f"{command} --approve {mode}")


class NoTerminal(FixedApprover):
    """``ask`` with no terminal: rejects, and says why once (at the first call that needed asking)."""

    def __init__(self, stderr: TextIO, *, by: str) -> None:
        super().__init__("none", by=by)
        self.out = stderr
        self.said = False

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Answer:
        if not self.said:
            self.said = True
            self.out.write(
                f"note: {request.tool} needs approval but there is no terminal to ask on: rejected "
                "(--approve all allows such calls, --approve none rejects them without this note)\n"
            )
        return super().decide(request, cancel)


class TerminalApprover:
    """Asks on the terminal: approve, edit (JSON, checked against the schema), reject, always."""

    def __init__(self, stdin: TextIO, stderr: TextIO) -> None:
        self.stdin = stdin
        self.out = stderr

    def _ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:  # end of input: no one is there any more
            raise EOFError
        return line.strip()

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Answer:
        where = f" from MCP server {request.server}" if request.source == "mcp" else ""
        where = f" (declared in {request.server})" if request.source == "declared" else where
        self.out.write(
            f"✋ {request.tool}{where} wants to run · {', '.join(request.badges)}\n"
            f"   arguments: {json.dumps(request.arguments, ensure_ascii=False)}\n"
        )
        while True:
            try:
                choice = self._ask("   [a]pprove, [e]dit, [r]eject, a[l]ways allow (this run)? ").lower()
            except EOFError:
                return Answer("reject", reason="no answer on the terminal (end of input)", by="the terminal")
            if choice in ("a", "approve", "y", "yes"):
                return Answer("approve", by="a person, on the terminal")
            if choice in ("l", "always"):
                return Answer("approve", by="a person, on the terminal", always="run")
            if choice in ("r", "reject", "n", "no"):
                try:
                    reason = self._ask("   reason (goes to the model): ")
                except EOFError:
                    reason = ""
                return Answer("reject", reason=reason, by="a person, on the terminal")
            if choice in ("e", "edit"):
                edited = self._edit(request)
                if edited is not None:
                    return Answer("edit", arguments=edited, by="a person, on the terminal")

    def _edit(self, request: ApprovalRequest) -> dict[str, Any] | None:
        text = self._ask("   new arguments (JSON object): ")
        try:
            edited = json.loads(text)
        except json.JSONDecodeError as exc:
            self.out.write(f"   not valid JSON ({exc.msg}); try again\n")
            return None
        problem = request.check(edited) if isinstance(edited, dict) else "the arguments must be a JSON object"
        if problem:
            self.out.write(f"   refused: {problem}\n")
            return None
        return edited
