"""The option actions every subcommand shares."""

from __future__ import annotations

import argparse

import pytest

from agent_core.cli.common import ProviderEntries


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", action=ProviderEntries, dest="provider")
    parser.add_argument("--model", action=ProviderEntries, dest="model")
    parser.add_argument("--base-url", action=ProviderEntries, dest="base_url")
    return parser


def test_options_after_a_provider_belong_to_it() -> None:
    args = _parser().parse_args(
        ["--provider", "local", "--model", "a", "--model", "b", "--provider", "openai-chat", "--base-url", "http://x"]
    )
    assert args.entries == [
        {"provider": "local", "model": "a"},
        {"provider": "local", "model": "b"},  # a second --model: a second entry of the same provider
        {"provider": "openai-chat", "base_url": "http://x"},
    ]


def test_an_option_before_any_provider_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args(["--model", "a", "--provider", "local"])
    assert stopped.value.code == 2
    assert "--model must follow the --provider it belongs to" in capsys.readouterr().err
