"""A served model opened behind its conformance verdict, for the CLI and library callers alike.

An audit of a served model reads its numbers off an endpoint that may tokenise, template or
align log-probs differently from the weights it claims: ``open_served`` refuses it unless a
conformance file (``readout conformance``) passes for every endpoint, or the caller allows a
nonconforming one; the verdicts, or the allowance, go into the model's manifest entry.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from readout_audit._exceptions import InputError, ReadoutError
from readout_audit.data import read_json
from readout_audit.model._codec import TextCodec
from readout_audit.model._conformance import Conformance
from readout_audit.model._served import ServedModel, ServedSettings, load_served
from readout_audit.model._served_spec import parse_served_spec


def read_conformance(path: str | Path) -> Conformance:
    """A conformance file, with a clear error when it is missing, not strict JSON or not one."""
    raw = read_json(path)
    try:
        return Conformance.model_validate(raw)
    except ValidationError as error:
        raise InputError(
            f"not a conformance file ({error})", source=str(path), field="conformance"
        ) from None


def open_served(
    spec: str,
    *,
    settings: ServedSettings,
    tokenizer: str | None = None,
    conformance: str | Path | None = None,
    allow_nonconforming: bool = False,
    allow_download: bool = False,
    preflight: Callable[[TextCodec], None] | None = None,
) -> ServedModel:
    """A served model with its local tokenizer, checked against its conformance verdict.

    ``tokenizer`` defaults to the reference the conformance file names. ``preflight(codec)``
    runs once the tokenizer is loaded, before the verdict is read.
    """
    parse_served_spec(spec)  # a malformed spec is named before anything else
    if tokenizer is None:
        if conformance is None:
            raise InputError(
                "a served model is scored through its local tokenizer: give --tokenizer SPEC "
                "(e.g. hf:<dir> or gguf:<file>) or --conformance FILE",
                field="tokenizer",
            )
        tokenizer = read_conformance(conformance).reference
    model = load_served(spec, tokenizer=tokenizer, settings=settings, allow_download=allow_download)
    if preflight is not None:
        preflight(model.codec)
    gate(model, None if conformance is None else Path(conformance), allow_nonconforming)
    return model


def gate(model: ServedModel, path: Path | None, allow: bool) -> None:
    """Refuse a served model without a passing conformance verdict unless allowed; record it."""
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
