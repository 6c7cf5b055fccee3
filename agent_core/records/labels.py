"""People's verdicts on runs (pass or fail, a reason, a corrected answer), kept beside the runs.

A label is never written into a run record: the record is what the run did, the label what a
person thought of it, and a record is rewritten by sync and imports. Labels live in
``<data>/labels.jsonl`` (:class:`FolderLabels`: a journal of JSON lines, the newest line of a run
wins, a line with ``verdict: null`` takes a label off) and, with a team store, in its
``run_labels`` table (:class:`agent_core.pgstore.labels.PgLabels`). Both answer the
:class:`LabelStore` questions, and both exchange labels as JSON lines (:func:`to_jsonl`,
:func:`parse_jsonl`): one object per line, the fields of :class:`Label`.

When two labels of one run meet (an import, the team store and the folder), the newer
``labelled_at`` wins; equal times keep the stored one.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Protocol

log = logging.getLogger("agent_core.records.labels")

Verdict = Literal["pass", "fail"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail")
UNLABELLED = ""
"""In a label filter: runs nobody has labelled."""
LABEL_CHOICES = (*VERDICTS, UNLABELLED)
MAX_TEXT = 4000
"""The longest reason or corrected answer kept (longer text is cut, said in the import count)."""
FIELDS = ("run_id", "verdict", "reason", "corrected_answer", "user", "labelled_at")
FILE_NAME = "labels.jsonl"


class LabelError(ValueError):
    """A label that cannot be stored; the message is one line naming the place."""


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Label:
    """One person's verdict on one run."""

    run_id: str
    verdict: Verdict
    reason: str = ""
    """Why (free text; empty when none was given)."""
    corrected_answer: str = ""
    """What the answer should have been (empty when none was given); goals made from the run take
    their figures from it."""
    user: str | None = None
    """Who labelled it (AGENT_USER or the signed-in user)."""
    labelled_at: str = field(default_factory=utc_now)
    """When (ISO 8601, UTC)."""

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    @classmethod
    def make(
        cls, run_id: str, verdict: str, *, reason: str = "", corrected_answer: str = "", user: str | None = None
    ) -> Label:
        """A new label, checked (:class:`LabelError`)."""
        return from_mapping(
            {
                "run_id": run_id,
                "verdict": verdict,
                "reason": reason,
                "corrected_answer": corrected_answer,
                "user": user,
                "labelled_at": utc_now(),
            }
        )


def _text(data: Mapping[str, Any], name: str, where: str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LabelError(f"{where}{name}: expected text, got {type(value).__name__}")
    return value.replace("\x00", "")[:MAX_TEXT].strip()


def from_mapping(data: Any, where: str = "") -> Label:
    """A :class:`Label` from its JSON object; :class:`LabelError` naming the field otherwise."""
    if not isinstance(data, Mapping):
        raise LabelError(f"{where}expected a JSON object with run_id and verdict")
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        raise LabelError(f"{where}{unknown[0]}: unknown field (expected: {', '.join(FIELDS)})")
    run_id = data.get("run_id")
    if not isinstance(run_id, str) or not run_id.strip() or "/" in run_id or "\x00" in run_id:
        raise LabelError(f"{where}run_id: expected a run id, got {run_id!r}")
    verdict = data.get("verdict")
    if verdict not in VERDICTS:
        raise LabelError(f"{where}verdict: expected pass or fail, got {verdict!r}")
    at = data.get("labelled_at") or utc_now()
    if not isinstance(at, str):
        raise LabelError(f"{where}labelled_at: expected an ISO 8601 time, got {type(at).__name__}")
    try:
        datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        raise LabelError(f"{where}labelled_at: not an ISO 8601 time: {at!r}") from None
    user = data.get("user")
    if user is not None and not isinstance(user, str):
        raise LabelError(f"{where}user: expected text, got {type(user).__name__}")
    return Label(
        run_id=run_id.strip(),
        verdict=verdict,
        reason=_text(data, "reason", where),
        corrected_answer=_text(data, "corrected_answer", where),
        user=(user or "").strip() or None,
        labelled_at=at,
    )


def to_jsonl(labels: Iterable[Label]) -> str:
    """Labels as JSON lines (one object a line, in the order given)."""
    return "".join(json.dumps(label.as_json(), ensure_ascii=False) + "\n" for label in labels)


def parse_jsonl(text: str | bytes, source: str = "labels") -> list[Label]:
    """Every label of a JSON-lines text; :class:`LabelError` (``FILE: line N: …``) at the first bad
    line, so a bad file imports nothing. Blank lines are skipped."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise LabelError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    labels = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}: line {number}: "
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{where}not JSON ({exc.msg})") from None
        labels.append(from_mapping(data, where))
    return labels


def newer(label: Label, than: Label | None) -> bool:
    """Whether ``label`` replaces ``than`` (the stored one): none stored, or a later time."""
    return than is None or _moment(label.labelled_at) > _moment(than.labelled_at)


def _moment(at: str) -> datetime:
    moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass
class ImportCount:
    """What storing a batch of labels did."""

    added: int = 0
    """Runs that had no label."""
    replaced: int = 0
    """Runs whose label was older."""
    kept: int = 0
    """Runs whose stored label was as new or newer (left alone)."""


class LabelStore(Protocol):
    """Where labels are kept: the folder's journal or the team store's table."""

    def get(self, run_ids: Sequence[str]) -> dict[str, Label]:
        """The labels of ``run_ids`` (runs without one are left out)."""
        ...

    def all(self) -> list[Label]:
        """Every label, oldest first."""
        ...

    def put(self, labels: Iterable[Label]) -> ImportCount:
        """Store each label unless the stored one of its run is as new or newer."""
        ...

    def remove(self, run_id: str) -> bool:
        """Take the label off a run; False when it had none."""
        ...


class FolderLabels:
    """Labels in ``<data>/labels.jsonl``: appended as JSON lines, the newest line of a run wins.

    Several processes may append at once (the app and the command line): each label is one
    ``write`` of one line to a file opened for appending, under an advisory lock where the system
    has one. Reads are cached until the file changes. A line that cannot be read is skipped and
    logged, never a crash. When superseded lines outnumber the live ones, the journal is rewritten
    (atomically) with one line per labelled run.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._cache: tuple[tuple[int, int], dict[str, Label], int] | None = None
        self.problems: list[str] = []
        """Lines skipped at the last read (``labels.jsonl: line N: …``)."""

    @classmethod
    def beside(cls, runs_dir: Path | str) -> FolderLabels:
        """The labels of the runs in ``runs_dir`` (``<data>/runs``): ``<data>/labels.jsonl``."""
        return cls(Path(runs_dir).parent / FILE_NAME)

    # -- reading -------------------------------------------------------------------------------
    def _stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _read(self) -> tuple[dict[str, Label], int]:
        """(the live labels by run, how many lines the journal has)."""
        stamp = self._stamp()
        if stamp is None:
            return {}, 0
        cached = self._cache
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        live: dict[str, Label] = {}
        problems: list[str] = []
        lines = 0
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            log.warning("cannot read %s: %s", self.path, exc)
            return {}, 0
        for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
            if not raw.strip():
                continue
            lines += 1
            try:
                obj = json.loads(raw)
                if isinstance(obj, dict) and obj.get("verdict") is None and isinstance(obj.get("run_id"), str):
                    live.pop(obj["run_id"], None)  # taken off
                    continue
                label = from_mapping(obj)
            except (ValueError, TypeError) as exc:
                problems.append(f"{self.path.name}: line {number}: {exc}")
                continue
            if newer(label, live.get(label.run_id)) or label.labelled_at == live[label.run_id].labelled_at:
                live[label.run_id] = label  # (the later line of the same moment: a re-label)
        if problems:
            log.warning("%d label line(s) skipped in %s: %s", len(problems), self.path, problems[0])
        self.problems = problems
        self._cache = (stamp, live, lines)
        return live, lines

    def get(self, run_ids: Sequence[str]) -> dict[str, Label]:
        with self._lock:
            live, _ = self._read()
        return {rid: live[rid] for rid in run_ids if rid in live}

    def all(self) -> list[Label]:
        with self._lock:
            live, _ = self._read()
        return sorted(live.values(), key=lambda label: (_moment(label.labelled_at), label.run_id))

    def by_verdict(self, verdicts: Iterable[str]) -> set[str]:
        """The runs whose label is one of ``verdicts``."""
        wanted = set(verdicts)
        with self._lock:
            live, _ = self._read()
        return {rid for rid, label in live.items() if label.verdict in wanted}

    def version(self) -> tuple[int, int] | None:
        """Changes whenever the journal changes (a cache key)."""
        return self._stamp()

    # -- writing -------------------------------------------------------------------------------
    def _append(self, lines: Sequence[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as out:
            _lock_file(out)
            out.write("".join(lines))
            out.flush()
            os.fsync(out.fileno())

    def put(self, labels: Iterable[Label]) -> ImportCount:
        count = ImportCount()
        with self._lock:
            live, lines = self._read()
            live = dict(live)
            out = []
            for label in labels:
                have = live.get(label.run_id)
                if not newer(label, have):
                    count.kept += 1
                    continue
                if have is None:
                    count.added += 1
                else:
                    count.replaced += 1
                live[label.run_id] = label
                out.append(json.dumps(label.as_json(), ensure_ascii=False) + "\n")
            if out:
                self._append(out)
                if lines + len(out) > 2 * len(live) + 200:
                    self._compact()
        return count

    def remove(self, run_id: str) -> bool:
        with self._lock:
            live, _ = self._read()
            if run_id not in live:
                return False
            self._append([json.dumps({"run_id": run_id, "verdict": None, "labelled_at": utc_now()}) + "\n"])
        return True

    def _compact(self) -> None:
        """One line per labelled run, written to a temporary file and moved over the journal."""
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            with open(self.path, "a", encoding="utf-8") as guard:
                _lock_file(guard)  # no other process appends meanwhile
                live, _ = self._read()
                tmp.write_text(to_jsonl(sorted(live.values(), key=lambda x: _moment(x.labelled_at))), "utf-8")
                os.replace(tmp, self.path)
        except OSError as exc:  # the journal stays as it was: still right, only longer
            log.warning("could not compact %s: %s", self.path, exc)
            tmp.unlink(missing_ok=True)


def _lock_file(handle: Any) -> None:
    """An exclusive advisory lock on an open file until it is closed (where the system has flock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on this platform
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
