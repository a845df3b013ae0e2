"""Options of served models (``--model openai:...``) and the conformance gate before an audit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from readout_audit._cli._types import FiniteFloat
from readout_audit._exceptions import InputError, ReadoutError
from readout_audit.data._jsonl import read_json
from readout_audit.model._conformance import Conformance
from readout_audit.model._served import ServedModel, ServedSettings
from readout_audit.serve import CostCap

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
            type=click.Choice(
                ["auto", "vllm", "sglang", "llama.cpp", "llama-cpp-python", "openai"]
            ),
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
        *pool_options("Served models"),
        click.option(
            "--max-spend-tokens",
            type=click.IntRange(1),
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


def pool_options(subject: str) -> list[Callable[[Any], Any]]:
    """An endpoint pool's options: requests in flight, starts per second, the unknown timeout."""
    return [
        click.option(
            "--concurrency",
            default=4,
            show_default=True,
            type=click.IntRange(1),
            help=f"{subject}: requests in flight per endpoint.",
        ),
        click.option(
            "--starts-per-s",
            type=FiniteFloat(min=0, min_open=True),
            help=f"{subject}: request starts per second per endpoint (default unpaced).",
        ),
        click.option(
            "--request-timeout",
            default=120.0,
            show_default=True,
            type=FiniteFloat(min=0, min_open=True),
            help=f"{subject}: seconds before a sent request's outcome counts as unknown "
            "(never resent).",
        ),
    ]


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
        type=click.Path(dir_okay=False, path_type=Path),
        help="Served models: conformance.json written by `readout conformance`.",
    )(command)


def served_settings(options: dict[str, Any]) -> ServedSettings:
    """The served-model settings from the CLI options."""
    cap = None
    if options["max_spend_tokens"] is not None or options["max_spend_usd"] is not None:
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
        cap=cap,
        api_key_env=options["api_key_env"],
        server=options["server"],
        echo=options["echo"],
        chat=options["chat_api"],
    )


def read_conformance(path: Path) -> Conformance:
    """A conformance file, with a clear error when it is missing, not strict JSON or not one."""
    raw = read_json(path)
    try:
        return Conformance.model_validate(raw)
    except ValidationError as error:
        raise InputError(
            f"not a conformance file ({error})", source=str(path), field="conformance"
        ) from None


def served_tokenizer(options: dict[str, Any]) -> str:
    """``--tokenizer``, or the reference named in ``--conformance``."""
    if options["tokenizer"]:
        return str(options["tokenizer"])
    if options.get("conformance_path") is not None:
        return read_conformance(options["conformance_path"]).reference
    raise InputError(
        "a served model is scored through its local tokenizer: give --tokenizer SPEC "
        "(e.g. hf:<dir> or gguf:<file>) or --conformance FILE",
        field="tokenizer",
    )


def gate(model: ServedModel, options: dict[str, Any]) -> None:
    """Refuse a served model without a passing conformance verdict unless allowed; record it."""
    allow, path = options["allow_nonconforming"], options["conformance_path"]
    record: dict[str, Any] = {"allow_nonconforming": allow}
    if path is None and not allow:
        raise InputError(
            "audits of a served model need its conformance verdict: run `readout conformance "
            "--model SPEC --reference LOCAL --out DIR`, then pass --conformance "
            "DIR/conformance.json (or --allow-nonconforming)",
            field="conformance",
        )
    if path is not None:
        conformance = read_conformance(path)
        checked = {e.endpoint: e for e in conformance.endpoints}
        missing = [u for u in model.spec.base_urls if u not in checked]
        if conformance.model != model.spec.model or missing:
            raise InputError(
                f"checks {conformance.model!r} at {sorted(checked)}, not {model.spec.model!r} at "
                f"{missing or list(model.spec.base_urls)}",
                source=str(path),
                field="conformance",
            )
        failing = [
            (url, c)
            for url in model.spec.base_urls
            for c in checked[url].checks
            if c.verdict == "fail"
        ]
        forms = {c.name.removeprefix("echo_alignment_") for _, c in failing}
        if failing and not allow and all(c.name.startswith("echo_alignment_") for _, c in failing):
            model.refused_forms = forms  # only those prompts' echoed readouts are refused
            failing = []
        if failing and not allow:
            raise ReadoutError(
                "the endpoint does not conform: "
                + "; ".join(f"{url}: {c.name} ({c.detail})" for url, c in failing)
                + ". Pass --allow-nonconforming to run anyway (recorded in the manifest)."
            )
        record["conformance"] = {u: conformance.verdicts()[u] for u in model.spec.base_urls}
        record["refused_forms"] = sorted(model.refused_forms)
    assert model.info.served is not None
    model.info.served.update(record)
