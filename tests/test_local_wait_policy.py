"""How llama.cpp's threads wait for each other (``engine.wait_policy``): libgomp's default short
spin, unless another model process already shares the cores; the operator's setting wins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.providers.local.engine import other_model_processes, wait_policy


@pytest.mark.parametrize(
    ("env", "threads", "cpus", "others", "added"),
    [
        ({}, 2, 2, [], {}),  # alone on the cores: libgomp's default (a short spin) is ~20 % faster
        ({}, 2, 2, [4242], {"OMP_WAIT_POLICY": "PASSIVE"}),  # a second model: spinning starves both
        ({}, 1, 2, [4242], {}),  # a spare core: nobody is starved
        ({"OMP_WAIT_POLICY": "ACTIVE"}, 2, 2, [4242], {}),  # the operator's choice
        ({"GOMP_SPINCOUNT": "0"}, 2, 2, [], {}),
    ],
)
def test_the_wait_is_passive_only_beside_another_model(
    env: dict[str, str], threads: int, cpus: int, others: list[int], added: dict[str, str]
) -> None:
    assert wait_policy(env, threads, cpus, others) == added


def _process(proc: Path, pid: int, maps: str) -> None:
    (proc / str(pid)).mkdir()
    (proc / str(pid) / "maps").write_text(maps, encoding="utf-8")


def test_other_model_processes_are_the_ones_with_a_gguf_mapped(tmp_path: Path) -> None:
    _process(tmp_path, 101, "7f00-7f10 r--s 00000000 08:01 77 /home/u/.cache/agent-workbench/model.gguf\n")
    _process(tmp_path, 102, "7f00-7f10 r-xp 00000000 08:01 12 /usr/lib/libc.so.6\n")
    _process(tmp_path, os.getpid(), "7f00-7f10 r--s 00000000 08:01 77 /models/mine.gguf\n")  # this process
    (tmp_path / "self").mkdir()  # not a process number
    (tmp_path / "103").mkdir()  # gone, or another user's: no readable maps
    assert other_model_processes(tmp_path) == [101]


def test_no_proc_folder_means_no_other_model(tmp_path: Path) -> None:
    assert other_model_processes(tmp_path / "absent") == []
