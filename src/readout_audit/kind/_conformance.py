"""``readout conformance`` as a stage: each endpoint's checks kept as they end, the verdict last.

OUT/endpoints.jsonl                 one endpoint's checks a line, appended as each endpoint ends
OUT/endpoints.jsonl.manifest.json   the check's identity: served model, endpoints, reference
                                    (its files' hashes), weights type, tolerance, probe limit
OUT/endpoint-N/requests.sqlite      the endpoint's ledger: a rerun replays the answers it has
OUT/conformance.json                the verdict every audit's gate reads, written once all
                                    endpoints are checked (whole or not at all)

A second writer is refused (the stage's lock), so is a rerun of another configuration (its
manifest); a rerun after an interruption, even a kill, checks only the endpoints not yet kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import INT_MAX, THREADS_MAX, option_hint, write_json_atomic
from readout_audit.kind._claim import check_out
from readout_audit.log import Manifest, StageFile, check_unlocked, stage_manifest_path
from readout_audit.model import (
    CONFORMANCE_FILE,
    EMBEDDED_SPEC,
    Conformance,
    EndpointConformance,
    ScoringModel,
    ServedModel,
    ServedSettings,
    check_endpoint,
    conformance_models,
    is_served,
    parse_model_spec,
    tolerance_for,
)
from readout_audit.serve import LEDGER_FILE

CONFORMANCE_KIND = "conformance"
"""The stage's manifest ``kind``."""
ENDPOINTS_FILE = "endpoints.jsonl"
"""The stage's records: one :class:`EndpointConformance` per endpoint checked."""


def write_conformance(
    served: Sequence[ServedModel],
    local: ScoringModel,
    out: str | Path,
    *,
    quantisation: str | None,
    tolerance: float | None = None,
    progress: Callable[[str], None] | None = None,
    limit: int | None = None,
) -> Conformance:
    """Check every endpoint (one ``ServedModel`` each) against the local reference, into ``out``.

    Each endpoint's requests go through its own ledger (``OUT/endpoint-N/requests.sqlite``),
    so a rerun never resends a request of unknown outcome. ``limit`` reads only the first
    ``limit`` probe prompts, and the verdict records it.
    """
    out = Path(out)
    _refuse_unmanifested(out)
    bound = tolerance if tolerance is not None else tolerance_for(quantisation)
    urls = [model.spec.base_urls[0] for model in served]
    config = {
        "model": served[0].spec.model,
        "endpoints": urls,
        "quantisation": quantisation,
        "tolerance": bound,
        "limit": limit,
    }
    manifest = Manifest.create(CONFORMANCE_KIND, local.info, config)
    with StageFile(
        out / ENDPOINTS_FILE,
        manifest,
        EndpointConformance,
        key=lambda checked: checked.endpoint,
        key_field="endpoint",
        what="conformance checks",
    ) as stage:
        for index, (model, url) in enumerate(zip(served, urls, strict=True)):
            if url in stage.done:
                continue
            if progress is not None:
                progress(f"checking {url}")
            ledger = out / f"endpoint-{index + 1}" / LEDGER_FILE
            ledger.parent.mkdir(exist_ok=True)
            with model.ledger(ledger):
                stage.append(check_endpoint(model, local, bound, progress, limit))
        conformance = Conformance(
            model=served[0].spec.model,
            reference=local.info.spec,
            reference_sha256=[f.sha256 for f in local.info.files],
            quantisation=quantisation,
            tolerance=bound,
            endpoints=[stage.done[url] for url in urls],
            limit=limit,
        )
        write_json_atomic(out / CONFORMANCE_FILE, conformance.model_dump(mode="json"))
        stage.finish()
    return conformance


def _refuse_unmanifested(out: Path) -> None:
    """A verdict written without the stage's manifest (an older version's) is not added to."""
    if (out / CONFORMANCE_FILE).exists() and not stage_manifest_path(out / ENDPOINTS_FILE).exists():
        raise RunDirectoryError(
            f"{out / CONFORMANCE_FILE} was written without its manifest (by an older version); "
            "it is still read as it is, but choose another output directory to check again"
        )


class ConformanceRun(BaseModel):
    """What ``readout conformance`` checks: a served model against the same weights run here."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    spec: str = Field(json_schema_extra=option_hint("--model", dest="model_spec"))
    """openai:<base-url>[,...]#<model>."""
    reference: str = EMBEDDED_SPEC
    """Local spec of the same weights (its tokenizer is also the served model's)."""
    out: Path = Field(json_schema_extra=option_hint(path="dir"))
    """Directory for conformance.json and the request ledger."""
    quantisation: str | None = None
    """Weights type of the served file (Q4_1, Q8_0, F16, ...); default: read from a GGUF
    reference, else unquantised."""
    tolerance: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Largest accepted |served − local| log-prob (default: by quantisation)."""
    threads: int | None = Field(default=None, ge=1, le=THREADS_MAX, strict=True)
    """CPU threads for the local reference (default: torch's, one per core; at most this
    machine's cores)."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N probe prompts (raw prompts first, then chat prompts)."""

    @field_validator("reference")
    @classmethod
    def _local(cls, value: str) -> str:
        """The reference runs here: a served spec (its URL never echoed) or any other is refused."""
        if is_served(value):
            raise ValueError(
                "is a served model, but the reference is the same weights run here: "
                f"{EMBEDDED_SPEC}, hf:<hub-id-or-dir>[@revision] or gguf:<path>"
            )
        try:
            parse_model_spec(value)
        except InputError as error:
            raise ValueError(error.message) from None
        return value


def check_served(
    run: ConformanceRun,
    settings: ServedSettings,
    *,
    local: ScoringModel | None = None,
    tokenizer: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Conformance:
    """``readout conformance`` as one call, written to ``OUT/conformance.json``.

    Every endpoint of ``run.spec`` is checked against the local model ``run.reference`` names
    (``local`` if already loaded); the spec is checked, and ``out`` found unlocked, before the
    reference loads. The weights type defaults to the reference's GGUF file's, the served
    model's tokenizer to the reference.
    """
    check_out(run.out)
    served, local, quantisation = conformance_models(
        run.spec,
        run.reference,
        settings=settings,
        local=local,
        tokenizer=tokenizer,
        quantisation=run.quantisation,
        threads=run.threads,
        before_loading=lambda: check_unlocked(run.out / ENDPOINTS_FILE),
    )
    return write_conformance(
        served,
        local,
        run.out,
        quantisation=quantisation,
        tolerance=run.tolerance,
        progress=progress,
        limit=run.limit,
    )
