"""Options of served models (``--model openai:...``) and the conformance gate before an audit."""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from readout_audit._cli._types import BoundedInt, FiniteFloat, GivenPath
from readout_audit._util import INT_MAX
from readout_audit.model import ServedSettings, Server
from readout_audit.serve import MAX_CONCURRENCY, CostCap

F = TypeVar("F", bound=Callable[..., Any])


SERVED_ONLY = (
    "api_key_env",
    "tokenizer",
    "server",
    "echo",
    "chat_api",
    "concurrency",
    "starts_per_s",
    "request_timeout",
    "max_spend_tokens",
    "max_spend_usd",
    "usd_per_mtok_prompt",
    "usd_per_mtok_completion",
    "conformance_path",
    "allow_nonconforming",
)
"""The options of ``served_options`` and ``gate_options``: a local model reads none of them."""


def served_options(command: F) -> F:
    """Endpoint pools, pacing, cost cap and key of a served model (refused for local models)."""
    options = [
        click.option(
            "--api-key-env",
            metavar="NAME",
            help="Served models: environment variable holding the API key (never stored).",
        ),
        click.option(
            "--tokenizer",
            metavar="SPEC",
            help="Served models: the local tokenizer (a local model spec); default: the "
            "conformance file's reference.",
        ),
        click.option(
            "--server",
            type=click.Choice(typing.get_args(Server)),
            default="auto",
            show_default=True,
            help="Served models: which server answers (auto: from GET /models' owned_by); "
            "decides the tokenize endpoint.",
        ),
        click.option(
            "--echo/--no-echo",
            default=None,
            help="Served models: whether the endpoint echoes prompt log-probs (default: every "
            "known server does; a plain OpenAI-compatible API does not).",
        ),
        click.option(
            "--chat-api",
            is_flag=True,
            help="Served models: score through /chat/completions only (an API without "
            "/completions); contexts with an answer stem or a raw prompt are not scored.",
        ),
        click.option(
            "--concurrency",
            default=4,
            show_default=True,
            type=BoundedInt(1, max=MAX_CONCURRENCY),
            help="Served models: requests in flight per endpoint.",
        ),
        click.option(
            "--starts-per-s",
            type=FiniteFloat(min=0, min_open=True),
            help="Served models: request starts per second per endpoint (default unpaced).",
        ),
        click.option(
            "--request-timeout",
            default=120.0,
            show_default=True,
            type=FiniteFloat(min=0, min_open=True),
            help="Served models: seconds a request may take, connect to the answer's last "
            "byte; a sent request past it counts as unknown (never resent).",
        ),
        click.option(
            "--max-spend-tokens",
            type=BoundedInt(1, max=INT_MAX),
            help="Served models: cap on prompt + completion tokens, reserved before sending.",
        ),
        click.option(
            "--max-spend-usd",
            type=FiniteFloat(min=0, min_open=True),
            help="Served models: cap on money (prices: --usd-per-mtok-prompt/-completion).",
        ),
        click.option("--usd-per-mtok-prompt", default=0.0, type=FiniteFloat(min=0)),
        click.option("--usd-per-mtok-completion", default=0.0, type=FiniteFloat(min=0)),
    ]
    return with_options(command, options)


def with_options(command: F, options: Sequence[Callable[[Any], Any]]) -> F:
    """``command`` with click options applied so that they list in the given order."""
    for option in reversed(options):
        command = option(command)
    return command


def gate_options(command: F) -> F:
    """``--conformance FILE`` and ``--allow-nonconforming`` for audits of a served model."""
    command = click.option(
        "--allow-nonconforming",
        is_flag=True,
        help="Served models: run even without a passing conformance verdict (recorded).",
    )(command)
    return click.option(
        "--conformance",
        "conformance_path",
        type=GivenPath(dir_okay=False, path_type=Path),
        help="Served models: conformance.json written by `readout conformance`.",
    )(command)


def served_settings(options: Mapping[str, Any]) -> ServedSettings:
    """The served-model settings from the CLI options (no cost cap unless tokens or money is)."""
    capped = options["max_spend_tokens"] is not None or options["max_spend_usd"] is not None
    cap = CostCap(
        max_tokens=options["max_spend_tokens"],
        max_usd=options["max_spend_usd"],
        usd_per_mtok_prompt=options["usd_per_mtok_prompt"],
        usd_per_mtok_completion=options["usd_per_mtok_completion"],
    )
    return ServedSettings(
        concurrency=options["concurrency"],
        starts_per_s=options["starts_per_s"],
        timeout_s=options["request_timeout"],
        cap=cap if capped else None,
        api_key_env=options["api_key_env"],
        server=options["server"],
        echo=options["echo"],
        chat=options["chat_api"],
    )
