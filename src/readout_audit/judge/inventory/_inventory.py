"""The planned requests of an inventory: every phase, configuration, source, cell, presentation.

The whole inventory is ordered by SHA-256 of the compact UTF-8 JSON ``[seed, "interleave",
request_id]``, so cue cells, presentations, controls, repeats and configurations are mixed in
one stream with no source or configuration blocked together.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._candidates import canonical_number, cell_candidate, target_label
from readout_audit.judge.inventory._select import SelectedSource
from readout_audit.judge.protocol import (
    CONFIRMATION_CELLS,
    CONTRACTS,
    FIXTURE,
    PREFLIGHT_CELLS,
    PRESENTATIONS,
    RESPONSE_FORMATS,
    Contract,
    Phase,
    PlannedRequest,
    Presentation,
    ResponseFormat,
    compact_json,
    content_sha256,
    structured_request,
    wire_body,
    wire_sha256,
)
from readout_audit.model import is_served, parse_model_spec, parse_served_spec
from readout_audit.serve import redact_url

PAPER_SEED = 20261007154
"""The paper's interleaving seed; its three bootstrap seeds are this plus 0, 1 and 2."""
PHASE_CELLS: dict[Phase, tuple[str, ...]] = {
    "preflight": PREFLIGHT_CELLS,
    "confirmation": CONFIRMATION_CELLS,
}
_NO_WRONG_VALUE = frozenset({"bare_correct", "no_answer"})
"""Cells whose candidate carries no wrong value Y, hence no distance."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def judge_model_name(spec: str) -> str:
    """The ``model`` a judge's wire body names: a served spec's model name, else the spec."""
    if is_served(spec):
        return parse_served_spec(spec).model
    return str(parse_model_spec(spec))


class Configuration(BaseModel):
    """A judge and its contract under one name, with the seed of its bootstrap test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """Letters, digits, ``_ . -``: a request id's second part."""
    contract: str
    judge: str
    """The judge's model spec (``smollm2-135m``, ``openai:<url>#<name>``, ...)."""
    model: str
    """The name its wire bodies carry (:func:`judge_model_name`)."""
    bootstrap_seed: int = Field(ge=0)
    response_format: ResponseFormat = "json_schema"
    """How its wire bodies ask for structured output (``RESPONSE_FORMATS`` of
    ``judge.protocol._present``)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The default response format is left out, so manifests built before it are unchanged."""
        data: dict[str, Any] = handler(self)
        if self.response_format == "json_schema":
            data.pop("response_format", None)
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if _NAME.fullmatch(value) is None:
            raise ValueError(f"{value!r} must be letters, digits, '_', '.' or '-'")
        return value

    @field_validator("contract")
    @classmethod
    def _contract(cls, value: str) -> str:
        if value not in CONTRACTS:
            raise ValueError(f"{value!r} is not a contract; expected one of {sorted(CONTRACTS)}")
        return value

    @property
    def grading(self) -> Contract:
        """The configuration's contract."""
        return CONTRACTS[self.contract]


def parse_configuration(
    text: str, bootstrap_seed: int, response_format: str = "json_schema"
) -> Configuration:
    """``NAME=CONTRACT@JUDGESPEC`` (the spec may hold ``@`` itself: ``hf:org/m@rev``)."""
    name, eq, rest = text.partition("=")
    contract, at, judge = rest.partition("@")
    if not eq or not at or not name or not judge:
        raise InputError(
            f"expected NAME=CONTRACT@JUDGESPEC, got {redact_url(text)!r}", field="configuration"
        )
    if response_format not in RESPONSE_FORMATS:
        raise InputError(
            f"{name}: {response_format!r} is not a response format; expected one of "
            f"{list(RESPONSE_FORMATS)}",
            field="response-format",
        )
    try:
        model = judge_model_name(judge)
    except InputError as error:  # the judge spec's own fault, named as the option holding it
        raise InputError(f"{name}: {error.message}", field="configuration") from None
    try:
        return Configuration(
            name=name,
            contract=contract,
            judge=judge,
            model=model,
            bootstrap_seed=bootstrap_seed,
            response_format=response_format,
        )
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(
            f"{redact_url(text)!r}: {first['msg']}", field=f"configuration.{first['loc'][0]}"
        ) from None


def interleave_key(seed: int, request_id: str) -> str:
    """A request's place in the inventory: SHA-256 of ``[seed, "interleave", request_id]``."""
    return hashlib.sha256(compact_json([seed, "interleave", request_id]).encode()).hexdigest()


def stream_key(seed: int, request: PlannedRequest) -> tuple[int, str]:
    """A request's place in its stream: opening fixtures, then the interleave, then closing ones.

    Only the repeat panel has fixtures (``fixture.open.*`` and ``fixture.close.*`` cells); every
    other inventory is in plain interleaved order.
    """
    rank = {f"{FIXTURE}.open": 0, f"{FIXTURE}.close": 2}.get(request.cell.rpartition(".")[0], 1)
    return rank, interleave_key(seed, request.request_id)


def plan_request(
    phase: Phase,
    configuration: Configuration,
    selected: SelectedSource,
    cell: str,
    presentation: Presentation,
    candidate: str | None = None,
    target: str | None = None,
) -> PlannedRequest:
    """One planned request: its candidate, structured request, wire and content hashes.

    The candidate is the named cell's (:func:`cell_candidate`) unless one is given (a cue
    search's bridge in its scaffold), and so is its target label (:func:`target_label`; a
    study whose reference changes gives its own).
    """
    source, contract = selected.source, configuration.grading
    if candidate is None:
        candidate = cell_candidate(cell, selected.x, selected.y, selected.letters)
    state: dict[str, str | list[str]] = {
        "question": source.question,
        "trusted_reference": [canonical_number(value) for value in source.references],
        "trusted_evidence": source.evidence,
        "model_reply": candidate,
        "candidate_answer": candidate,
    }
    request = structured_request(contract, state, presentation)
    body = wire_body(request, configuration.model, presentation, configuration.response_format)
    return PlannedRequest(
        request_id=f"{phase}:{configuration.name}:{source.id}:{cell}:{presentation}",
        phase=phase,
        configuration=configuration.name,
        contract=contract.name,
        source_id=source.id,
        dataset=source.dataset,
        cluster=source.cluster,
        distance=None if cell in _NO_WRONG_VALUE else selected.distance,
        cell=cell,
        presentation=presentation,
        target_label=target or target_label(contract, cell),
        candidate=candidate,
        request=request,
        wire_sha256=wire_sha256(body),
        content_sha256=content_sha256(body),
    )


def plan_inventory(
    selected: Sequence[SelectedSource], configurations: Sequence[Configuration], seed: int
) -> list[PlannedRequest]:
    """Every planned request of every configuration, in interleaved order."""
    names = [c.name for c in configurations]
    if len(set(names)) != len(names):
        raise InputError(f"configuration names repeat: {names}", field="configuration")
    requests = [
        plan_request(chosen.phase, configuration, chosen, cell, presentation)
        for configuration in configurations
        for chosen in selected
        for cell in PHASE_CELLS[chosen.phase]
        for presentation in PRESENTATIONS
    ]
    return sorted(requests, key=lambda r: interleave_key(seed, r.request_id))
