"""The statistics of an eval: Wilson intervals, pass@k, pass^k, McNemar, medians, and the scoring
of a result's runs into cells, a summary per (provider, model), flips against a baseline and a trend.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agent_core.evals.not_found import says_not_found

Z95 = 1.959963984540054


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``passed`` out of ``total`` (95 % by default); (0, 1) for none."""
    if total <= 0:
        return 0.0, 1.0
    p = passed / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator (Chen et al. 2021): chance that at least one of k samples drawn
    from n attempts, c of them correct, passes: ``1 - C(n-c, k) / C(n, k)``."""
    if n <= 0 or k <= 0:
        return 0.0
    k = min(k, n)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_all_k(n: int, c: int, k: int) -> float:
    """pass^k: chance that all of k samples drawn from the n attempts pass, ``C(c, k) / C(n, k)``
    (with k = n: 1 when every repeat passed, else 0)."""
    if n <= 0 or k <= 0:
        return 0.0
    k = min(k, n)
    return math.comb(c, k) / math.comb(n, k)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b pass→fail and c fail→pass discordant pairs
    (binomial test of min(b, c) in b + c trials at 1/2); 1.0 with no discordant pair."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def median(values: Iterable[float | int | None]) -> float | None:
    kept = [float(v) for v in values if v is not None and v == v]
    return statistics.median(kept) if kept else None


def _key(row: Mapping[str, Any]) -> tuple[str, str]:
    return str(row["provider"]), str(row.get("model") or "")


def cells_of(runs: Sequence[Mapping[str, Any]], goal_order: Sequence[str]) -> list[dict[str, Any]]:
    """One cell per (provider, model, goal): its runs, passes and the checks that failed."""
    grouped: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    targets: list[tuple[str, str]] = []
    for run in runs:
        key = _key(run)
        if key not in targets:
            targets.append(key)
        grouped[(*key, str(run["goal_id"]))].append(run)
    order = {g: i for i, g in enumerate(goal_order)}
    cells = []
    for (provider, model, goal_id), rows in sorted(
        grouped.items(), key=lambda kv: (targets.index(kv[0][:2]), order.get(kv[0][2], len(order)), kv[0][2])
    ):
        decided = [r for r in rows if r.get("passed") is not None]
        failed: dict[str, int] = {}
        for r in rows:
            for check in r.get("checks") or []:
                if check.get("passed") is False:
                    failed[check["check"]] = failed.get(check["check"], 0) + 1
        passed = sum(1 for r in decided if r["passed"])
        cells.append(
            {
                "provider": provider,
                "model": model,
                "goal_id": goal_id,
                "run_ids": [r["run_id"] for r in sorted(rows, key=lambda r: r.get("repeat", 0))],
                "passed": passed,
                "total": len(decided),
                "failed_checks": [{"check": k, "runs": v} for k, v in failed.items()],
                "flaky": 0 < passed < len(decided),
            }
        )
    return cells


def cell_passes(cell: Mapping[str, Any]) -> bool | None:
    """A cell's pass/fail for flips: a strict majority of its decided repeats passed."""
    total = int(cell.get("total") or 0)
    if total == 0:
        return None
    return 2 * int(cell["passed"]) > total


def summary_of(
    runs: Sequence[Mapping[str, Any]], cells: Sequence[Mapping[str, Any]], repeats: int
) -> list[dict[str, Any]]:
    """Scores per (provider, model)."""
    out = []
    targets: list[tuple[str, str]] = []
    for cell in cells:
        if _key(cell) not in targets:
            targets.append(_key(cell))
    for provider, model in targets:
        mine = [c for c in cells if _key(c) == (provider, model)]
        rows = [r for r in runs if _key(r) == (provider, model)]
        passed = sum(c["passed"] for c in mine)
        total = sum(c["total"] for c in mine)
        low, high = wilson(passed, total)
        k = max(1, min([c["total"] for c in mine if c["total"]] or [repeats]))
        scored = [c for c in mine if c["total"]]
        grounded = [r.get("grounding_status") for r in rows if r.get("grounding_status")]
        judged = [r["judge"] for r in rows if r.get("judge")]
        samples = sum(j["samples"] for j in judged)
        out.append(
            {
                "provider": provider,
                "model": model,
                "runs": len(rows),
                "passed": passed,
                "total": total,
                "pass_rate": passed / total if total else None,
                "ci_low": low,
                "ci_high": high,
                "k": k,
                "pass_at_k": sum(pass_at_k(c["total"], c["passed"], k) for c in scored) / len(scored)
                if scored
                else None,
                "pass_all_k": sum(pass_all_k(c["total"], c["passed"], k) for c in scored) / len(scored)
                if scored
                else None,
                "flaky": [c["goal_id"] for c in mine if c["flaky"]],
                "median_steps": median(r.get("steps") for r in rows),
                "median_tokens": median(r.get("tokens") for r in rows),
                "median_cost_usd": median(r.get("cost_usd") for r in rows),
                "median_duration_ms": median(r.get("duration_ms") for r in rows),
                "ungrounded_rate": (
                    sum(1 for s in grounded if s in ("ungrounded", "partly")) / len(grounded) if grounded else None
                ),
                "grounding_checked": len(grounded),
                # A wrong answer the badge showed as grounded: the worst thing a user can be shown.
                "wrong_but_grounded": sum(
                    1 for r in rows if not r.get("passed") and r.get("grounding_status") == "grounded"
                ),
                # Right, or honest about it: the answer says it could not find it, or the check
                # flagged it (not every figure found).
                "honest_rate": (
                    sum(
                        1
                        for r in rows
                        if r.get("passed")
                        or says_not_found(str(r.get("answer") or ""))
                        or r.get("grounding_status") in ("partly", "ungrounded")
                    )
                    / len(rows)
                    if rows
                    else None
                ),
                "model_call_rate": (
                    sum(r.get("calls_by_model") or 0 for r in rows) / calls
                    if (calls := sum(r.get("tool_calls") or 0 for r in rows))
                    else None
                ),
                "judge_disagreement": (sum(j["disagreeing"] for j in judged) / samples) if samples else None,
                "judge_uncertain": sum(1 for j in judged if j.get("uncertain")),
            }
        )
    return out


def flips_of(
    cells: Sequence[Mapping[str, Any]], baseline_cells: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Cells whose pass/fail changed since the baseline, and the McNemar test over the paired cells
    (overall and per (provider, model))."""
    before = {(c["provider"], c.get("model") or "", c["goal_id"]): c for c in baseline_cells}
    flips = []
    pairs: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # b, c, paired
    for cell in cells:
        key = (cell["provider"], cell.get("model") or "", cell["goal_id"])
        old = before.get(key)
        if old is None:
            continue
        now, then = cell_passes(cell), cell_passes(old)
        if now is None or then is None:
            continue
        counts = pairs[key[:2]]
        counts[2] += 1
        if then and not now:
            counts[0] += 1
            flips.append(
                {
                    "provider": key[0],
                    "model": key[1],
                    "goal_id": key[2],
                    "flip": "pass→fail",
                    "before": f"{old['passed']}/{old['total']}",
                    "after": f"{cell['passed']}/{cell['total']}",
                    "run_ids": cell["run_ids"],
                    "baseline_run_ids": old["run_ids"],
                }
            )
        elif now and not then:
            counts[1] += 1
            flips.append(
                {
                    "provider": key[0],
                    "model": key[1],
                    "goal_id": key[2],
                    "flip": "fail→pass",
                    "before": f"{old['passed']}/{old['total']}",
                    "after": f"{cell['passed']}/{cell['total']}",
                    "run_ids": cell["run_ids"],
                    "baseline_run_ids": old["run_ids"],
                }
            )
    b = sum(v[0] for v in pairs.values())
    c = sum(v[1] for v in pairs.values())
    per_target = [
        {
            "provider": p,
            "model": m,
            "pass_to_fail": v[0],
            "fail_to_pass": v[1],
            "paired": v[2],
            "p": mcnemar_exact(v[0], v[1]),
        }
        for (p, m), v in pairs.items()
    ]
    test = {
        "pass_to_fail": b,
        "fail_to_pass": c,
        "paired": sum(v[2] for v in pairs.values()),
        "p": mcnemar_exact(b, c) if pairs else None,
        "per_target": per_target,
    }
    return flips, test


def trend_of(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Pass rate per (provider, model) across past evals of a set, oldest first (complete ones)."""
    rows = []
    for result in sorted(results, key=lambda r: str(r.get("started_at") or "")):
        for s in result.get("summary") or []:
            if s.get("pass_rate") is None:
                continue
            rows.append(
                {
                    "eval_id": result["eval_id"],
                    "started_at": result.get("started_at"),
                    "complete": bool(result.get("complete")),
                    "target": f"{s['provider']}/{s['model']}",
                    "provider": s["provider"],
                    "model": s["model"],
                    "pass_rate": s["pass_rate"],
                    "ci_low": s["ci_low"],
                    "ci_high": s["ci_high"],
                }
            )
    return rows


def label_agreement(rows: Sequence[Mapping[str, Any]], verdicts: Mapping[str, str]) -> dict[str, Any]:
    """The eval's verdicts against people's labels of the same runs (``verdicts``: run id → pass or
    fail): ``labelled`` runs, ``agree``, and ``disagree`` (goal, target, run, checks' verdict,
    person's). A run whose checks decided nothing is left out."""
    labelled, agree, disagree = 0, 0, []
    for row in rows:
        person = verdicts.get(str(row.get("run_id")))
        if person not in ("pass", "fail") or row.get("passed") is None:
            continue
        labelled += 1
        checks = "pass" if row["passed"] else "fail"
        if checks == person:
            agree += 1
        else:
            disagree.append(
                {
                    "goal_id": row.get("goal_id"),
                    "target": row.get("target"),
                    "run_id": row.get("run_id"),
                    "checks": checks,
                    "person": person,
                }
            )
    return {"labelled": labelled, "agree": agree, "disagree": disagree}
