"""A judge request, its two presentations, its wire body and the two hashes that identify it.

The structured request is ``{"instruction", "state", "question", "criteria"}`` in insertion
order; the ``sorted`` presentation sorts every dictionary's keys recursively and keeps every
list (the option enumeration, the messages) in order. The wire body is the OpenAI chat body every
judge receives; its user message is the compact JSON of the request without its instruction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal

from readout_audit.judge.protocol._cells import Presentation
from readout_audit.judge.protocol._contracts import Contract

MAX_TOKENS = 16
"""Room for ``{"verdict":"no_answer"}`` in any tokenizer the project meets."""
TOP_LOGPROBS = 20

ResponseFormat = Literal["json_schema", "json_object", "none"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = ("json_schema", "json_object", "none")
"""How a body asks for structured output: ``json_schema`` (OpenAI, vLLM, SGLang: a strict
schema), ``json_object`` (llama-cpp-python, which refuses ``json_schema``: the same schema under
``{"type": "json_object", "schema": ...}``), ``none`` (no ``response_format``; the label is read
from the reply's text)."""


def key_sorted(value: Any) -> Any:
    """``value`` with every dictionary's keys sorted, recursively; lists keep their order."""
    if isinstance(value, Mapping):
        return {key: key_sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [key_sorted(item) for item in value]
    return value


def presented(value: Any, presentation: Presentation) -> Any:
    """``value`` as the presentation orders it: unchanged (insertion) or key-sorted."""
    return key_sorted(value) if presentation == "sorted" else value


def compact_json(value: Any, *, sort_keys: bool = False) -> str:
    """Compact UTF-8 JSON text, as the wire carries it (``serve.HttpCall.body_bytes``)."""
    return json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=sort_keys
    )


def structured_request(
    contract: Contract, state: Mapping[str, str | list[str]], presentation: Presentation
) -> dict[str, Any]:
    """The typed request: instruction, state fields, a choice named verdict, criterion bindings.

    ``state`` gives every one of the contract's state fields (extra keys are ignored); they are
    inserted in the contract's order.
    """
    request = {
        "instruction": contract.instruction,
        "state": {name: state[name] for name in contract.state_fields},
        "question": {
            "name": "verdict",
            "type": "choice",
            "choices": [
                {"name": label, "description": contract.descriptions[label]}
                for label in contract.labels
            ],
        },
        "criteria": dict(contract.criteria),
    }
    return presented(request, presentation)  # type: ignore[no-any-return]


def _labels(request: Mapping[str, Any]) -> list[str]:
    return [choice["name"] for choice in request["question"]["choices"]]


def verdict_schema(labels: list[str]) -> dict[str, Any]:
    """The JSON schema of ``{"verdict": <label>}``, the labels in enumeration order."""
    return {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": labels}},
        "required": ["verdict"],
        "additionalProperties": False,
    }


def response_format(form: ResponseFormat, labels: list[str]) -> dict[str, Any] | None:
    """The body's ``response_format`` in ``form`` (None for ``none``: the field is left out)."""
    if form == "json_schema":
        schema = {"name": "verdict", "strict": True, "schema": verdict_schema(labels)}
        return {"type": "json_schema", "json_schema": schema}
    if form == "json_object":
        return {"type": "json_object", "schema": verdict_schema(labels)}
    return None


def wire_body(
    request: Mapping[str, Any],
    model: str,
    presentation: Presentation,
    form: ResponseFormat = "json_schema",
) -> dict[str, Any]:
    """The chat body sent to the judge ``model`` for a request built in ``presentation`` order.

    The system message is the instruction; the user message is the compact JSON of the
    request's other fields in the request's own key order. The response format (``form``)
    asks for ``{"verdict": <label>}`` with the labels in enumeration order.
    """
    content = {key: value for key, value in request.items() if key != "instruction"}
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {"role": "system", "content": request["instruction"]},
            {"role": "user", "content": compact_json(content)},
        ],
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
        "logprobs": True,
        "top_logprobs": TOP_LOGPROBS,
    }
    structured = response_format(form, _labels(request))
    if structured is not None:
        body["response_format"] = structured
    return presented(body, presentation)  # type: ignore[no-any-return]


def wire_bytes(body: Mapping[str, Any]) -> bytes:
    """The body's bytes as sent: compact UTF-8 JSON in the body's own key order."""
    return compact_json(body).encode()


def wire_sha256(body: Mapping[str, Any]) -> str:
    """SHA-256 of the wire bytes: differs between presentations of one request."""
    return hashlib.sha256(wire_bytes(body)).hexdigest()


def content_sha256(body: Mapping[str, Any]) -> str:
    """SHA-256 of the body with every key sorted, its user JSON parsed: equal across presentations.

    The user message's embedded JSON is replaced by its decoded value, then the whole body is
    written compactly with sorted keys, so only key order (never a value or a list's order) is
    factored out.
    """
    messages = [
        {**message, "content": json.loads(message["content"])}
        if message["role"] == "user"
        else message
        for message in body["messages"]
    ]
    normalised = {**body, "messages": messages}
    return hashlib.sha256(compact_json(normalised, sort_keys=True).encode()).hexdigest()
