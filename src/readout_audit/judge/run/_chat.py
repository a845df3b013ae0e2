"""A chat judge: planned requests sent to OpenAI-compatible endpoints through the ledger.

Each request is a POST to ``/chat/completions`` of its wire body exactly as planned (its bytes
must hash to the request's ``wire_sha256``), tagged with its request id, so identical-body
repeats and configurations sharing a model are separate ledger rows, each attempted once.
Everything goes through ``serve.RequestRunner`` and its ledger: pools, pacing, cost cap,
retries; a call sent with no known outcome is never sent again by itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory import Configuration
from readout_audit.judge.protocol import (
    CONTRACTS,
    JudgeRecord,
    PlannedRequest,
    compact_json,
    planned_record,
    wire_body,
)
from readout_audit.judge.run._verdict import read_chat_verdict, reply_choice
from readout_audit.model import byte_bound
from readout_audit.progress import ProgressMode
from readout_audit.serve import (
    CallResult,
    CostCap,
    Endpoint,
    HttpCall,
    Ledger,
    RequestRunner,
    RetryPolicy,
)

CHAT_PATH = "/chat/completions"


def judge_call(request: PlannedRequest, configuration: Configuration) -> HttpCall:
    """The call of one planned request: its wire body as built, tagged with its request id.

    The body is rebuilt from the structured request and the configuration; the bytes to be
    sent must hash to the request's ``wire_sha256``, else it is refused (a changed inventory
    or another configuration). The prompt bound is the whole body's bytes, which covers any
    chat template and a schema a server adds to the prompt.
    """
    item_id, source = request.request_id, f"configuration {configuration.name!r}"
    if request.configuration != configuration.name:
        raise InputError(
            f"belongs to configuration {request.configuration!r}",
            source=source,
            item_id=item_id,
            field="configuration",
        )
    body = wire_body(
        request.request, configuration.model, request.presentation, configuration.response_format
    )
    bound = byte_bound(compact_json(body))
    call = HttpCall(CHAT_PATH, body, bound, body["max_tokens"], tag=request.request_id)
    if hashlib.sha256(call.body_bytes).hexdigest() != request.wire_sha256:
        raise InputError(
            "the body to be sent does not hash to the planned wire_sha256: not sent",
            source=source,
            item_id=item_id,
            field="wire_sha256",
        )
    return call


def chat_record(request: PlannedRequest, result: CallResult) -> JudgeRecord:
    """A request's record from how its call ended; a completed reply is read for its verdict.

    ``metadata``: the call's ledger key, its state and endpoint, and for a reply the model the
    server says answered and the reply's ``finish_reason``. A call the cost cap kept back is
    ``failed`` (call state ``capped``): like a failed call, a later run may send it.
    """
    metadata = {"call_key": result.key, "call_state": result.state, "endpoint": result.endpoint}
    if result.state == "unknown":
        return planned_record(request, "unknown", error=result.error, metadata=metadata)
    if result.state != "completed" or result.response is None:
        return planned_record(request, "failed", error=result.error, metadata=metadata)
    reply = result.response
    choice = reply_choice(reply) or {}
    metadata |= {"served_model": reply.get("model"), "finish_reason": choice.get("finish_reason")}
    read = read_chat_verdict(reply, CONTRACTS[request.contract].labels)
    return planned_record(
        request,
        "completed" if read.verdict is not None else "unparsed",
        verdict=read.verdict,
        label_probs=read.label_probs,
        error=read.error,
        metadata=metadata,
    )


def run_chat_judge(
    requests: Sequence[PlannedRequest],
    configurations: Configuration | Sequence[Configuration],
    endpoints: Sequence[Endpoint],
    ledger: Ledger,
    *,
    cap: CostCap | None = None,
    retry: RetryPolicy = RetryPolicy(),  # noqa: B008 (frozen, so one shared default is safe)
    progress: ProgressMode = "off",
    on_record: Callable[[JudgeRecord], None] | None = None,
) -> list[JudgeRecord]:
    """Send the requests of one judge's configurations (each id once, as the ledger allows).

    The configurations' requests are mixed in one stream, in the order of ``requests`` (the
    inventory's interleaved order), and their records are returned in that order;
    ``on_record`` receives each one as its request settles (a run directory appends it). A
    rerun over the same ledger reads completed replies back and sends only what never
    completed; an unknown call stays unknown until ``readout ledger RUN --release-unknown``.
    """
    seen: set[str] = set()
    for request in requests:
        if request.request_id in seen:
            raise InputError("is given twice", item_id=request.request_id, field="request_id")
        seen.add(request.request_id)
    chosen = [configurations] if isinstance(configurations, Configuration) else configurations
    by_name = {c.name: c for c in chosen}
    missing = sorted({r.configuration for r in requests} - set(by_name))
    if missing:
        raise InputError(f"requests of configuration(s) {missing} given no configuration")
    calls = [judge_call(request, by_name[request.configuration]) for request in requests]
    runner = RequestRunner(
        endpoints,
        ledger,
        cap=cap,
        retry=retry,
        progress=progress,
        label="judge " + ",".join(by_name),
    )
    planned = {call.key: request for call, request in zip(calls, requests, strict=True)}
    records: dict[str, JudgeRecord] = {}

    def settled(result: CallResult) -> None:
        records[result.key] = chat_record(planned[result.key], result)
        if on_record is not None:
            on_record(records[result.key])

    runner.run(calls, on_result=settled)
    return [records[call.key] for call in calls]
