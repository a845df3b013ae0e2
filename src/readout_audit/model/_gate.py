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
from readout_audit.model._backend import ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.model._conformance import Conformance
from readout_audit.model._embedded import EMBEDDED_SPEC
from readout_audit.model._gguf import gguf_quantisation
from readout_audit.model._load import load_model, locate_files, parse_model_spec, set_threads
from readout_audit.model._served import ServedModel, ServedSettings, load_served
from readout_audit.model._served_spec import is_served, parse_served_spec


def reference_quantisation(reference: str) -> str | None:
    """The weights type of a local reference spec's GGUF file (None: not a GGUF file)."""
    _, gguf_file, weights = locate_files(parse_model_spec(reference), False)
    return gguf_quantisation(weights[0]) if gguf_file is not None else None


def conformance_models(
    model_spec: str,
    reference: str,
    *,
    settings: ServedSettings,
    local: ScoringModel | None = None,
    tokenizer: str | None = None,
    quantisation: str | None = None,
    threads: int | None = None,
    before_loading: Callable[[], None] | None = None,
) -> tuple[list[ServedModel], ScoringModel, str | None]:
    """What ``readout conformance`` compares: each endpoint, the local reference, its weights type.

    The spec is checked and each endpoint opened (with the reference's tokenizer unless
    ``tokenizer`` names another) before the reference loads (``local`` if already loaded),
    and ``before_loading`` runs just before that slow step. The weights type defaults to the
    reference's GGUF file's; ``threads`` sets torch's CPU threads (:func:`load_model`).
    """
    if not is_served(model_spec):
        raise InputError("conformance checks a served model: openai:<url>#<name>", field="model")
    spec = parse_served_spec(model_spec)
    served = [
        load_served(
            f"openai:{url}#{spec.model}", tokenizer=tokenizer or reference, settings=settings
        )
        for url in spec.base_urls
    ]
    if quantisation is None:
        quantisation = reference_quantisation(reference)
    if before_loading is not None:
        before_loading()
    if local is None:
        local = load_model(reference, threads=threads)
    return served, local, quantisation


def read_conformance(path: str | Path) -> Conformance:
    """A conformance file, with a clear error when it is missing, not strict JSON or not one."""
    raw = read_json(path)
    try:
        return Conformance.model_validate(raw)
    except ValidationError as error:
        raise InputError(
            f"not a conformance file ({error})", source=str(path), field="conformance"
        ) from None


def open_model(
    spec: str = EMBEDDED_SPEC,
    *,
    served: ServedSettings | None = None,
    tokenizer: str | None = None,
    conformance: str | Path | None = None,
    allow_nonconforming: bool = False,
    allow_download: bool = False,
    dtype: str = "auto",
    device: str = "auto",
    device_map: str | None = None,
    trust_remote_code: bool = False,
    threads: int | None = None,
    cache_budget_mb: int | None = None,
    prefix_sharing: str = "auto",
    preflight: Callable[[TextCodec], None] | None = None,
) -> ScoringModel:
    """Any model spec as a scoring model, as every command opens one.

    A local spec is loaded (:func:`load_model`: placement, remote code, ``preflight`` before
    the weights); a served one (``openai:URL#name``) is opened through its conformance gate
    (:func:`open_served`, with ``served`` settings). An option the other kind of model would
    not read is refused rather than ignored.
    """
    if is_served(spec):
        placement = {
            "dtype": dtype != "auto",
            "device": device != "auto",
            "device_map": device_map is not None,
            "trust_remote_code": trust_remote_code,
            "threads": threads is not None,
            "cache_budget_mb": cache_budget_mb is not None,
            "prefix_sharing": prefix_sharing != "auto",
        }
        given = [name for name, set_ in placement.items() if set_]
        if given:
            raise InputError(
                f"a served model is placed by its server: {', '.join(given)} does not apply",
                field=given[0],
            )
        return open_served(
            spec,
            settings=served or ServedSettings(),
            tokenizer=tokenizer,
            conformance=conformance,
            allow_nonconforming=allow_nonconforming,
            allow_download=allow_download,
            preflight=preflight,
        )
    served_only = {
        "served": served is not None,
        "tokenizer": tokenizer is not None,
        "conformance": conformance is not None,
        "allow_nonconforming": allow_nonconforming,
    }
    given = [name for name, set_ in served_only.items() if set_]
    if given:
        raise InputError(
            f"only a served model reads {', '.join(given)}; {spec!r} is a local model",
            field=given[0],
        )
    set_threads(threads)
    return load_model(
        spec,
        allow_download=allow_download,
        dtype=dtype,
        device=device,
        device_map=device_map,
        trust_remote_code=trust_remote_code,
        cache_budget_mb=cache_budget_mb,
        prefix_sharing=prefix_sharing,
        preflight=preflight,
    )


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
        record["tolerance"] = conformance.tolerance  # its weights type's |served − local| bound
        record["refused_forms"] = sorted(model.refused_forms)
    assert model.info.served is not None
    model.info.served.update(record)
