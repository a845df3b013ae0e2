r"""The predictor stage (seed 001): a cut's prompt, its seeded sample, and the forecast Z.

The equation prompt is the reference's (paper appendix C, ``make_predictor_prompt`` of its
code), word for word; the prose prompt is our wording, the paper does not print its own. A
prompt is one user turn, rendered through the model's chat template when it has one, else
sent as plain text. Sampling is pure: temperature 1, no top-k, top-p or min-p truncation, as
the paper's API calls were.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, Seed, option_hint, terminal_safe
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift._forecasts import Forecast, forecast_key
from readout_audit.log import (
    Manifest,
    StageFile,
    check_output_path,
    check_unlocked,
    stage_manifest_path,
)
from readout_audit.model import GenerationSettings, ScoringModel, TextCodec
from readout_audit.progress import ProgressMode, reporter

EQUATION_PROMPT = (
    "You are given recent context from a technical paper and the beginning of a LaTeX display "
    "equation.\n"
    "Continue the equation from exactly where it stops, in about {target_chars} characters or "
    "fewer.\n"
    "Write only the continuation. Do not write explanatory prose. Do not write {closing}.\n\n"
    "Recent paper context:\n{context}\n\n"
    "Equation prefix:\n{opening}\n{prefix}"
)
"""The paper's predictor prompt for an equation cut."""

PROSE_PROMPT = (
    "You are given recent context from a technical paper, written in LaTeX.\n"
    "Continue the paper from exactly where it stops, in about {target_chars} characters or "
    "fewer.\n"
    "Write only the continuation, as LaTeX source. Do not comment on the paper or the task.\n\n"
    "Recent paper context:\n{context}"
)
"""Our predictor prompt for a prose cut (the paper asks for about 1,800 characters)."""

PROSE_TARGET_CHARS = 1800
PREDICT_KIND = "lift-predict"
"""The kind of a forecast file's stage manifest."""


def target_chars(cut: Cut) -> int:
    """The length the prompt asks for: |Y| rounded up to tens (equations), 1,800 (prose)."""
    if cut.kind == "prose":
        return PROSE_TARGET_CHARS
    return math.ceil(len(cut.target) / 10) * 10


def predictor_prompt(cut: Cut) -> str:
    """The predictor's prompt text for a cut (the target itself never enters it)."""
    if cut.kind == "prose":
        return PROSE_PROMPT.format(target_chars=target_chars(cut), context=cut.context)
    return EQUATION_PROMPT.format(
        target_chars=target_chars(cut),
        closing=cut.closing,
        context=cut.context,
        opening=cut.opening,
        prefix=cut.prefix,
    )


def prompt_ids(
    codec: TextCodec,
    prompt: str,
    *,
    chat: bool,
    template_kwargs: Mapping[str, Any] | None = None,
) -> list[int]:
    """Token ids of the prompt: one user turn through the chat template, or plain text."""
    if chat:
        text = codec.render_chat([{"role": "user", "content": prompt}], template_kwargs or {})
        return codec.encode(text)
    return [*codec.prefix_ids, *codec.encode(prompt)]


def forecast_seed(seed: int, cut_id: str) -> int:
    """A cut's sampling seed: the first 31 bits of SHA-256 of ``"<seed>:<cut id>"``.

    31 bits are a valid seed for torch and for every server (llama.cpp reads 2^32-1 as
    "random"), and the value depends on nothing but the run's seed and the cut.
    """
    digest = hashlib.sha256(f"{seed}:{cut_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def default_max_new_tokens(cut: Cut) -> int:
    """Room for the asked length at two characters a token, plus 16 tokens."""
    return math.ceil(target_chars(cut) / 2) + 16


def sampling_settings(seed: int, max_new_tokens: int) -> GenerationSettings:
    """Pure sampling at temperature 1: no top-k (0), top-p or repetition penalty."""
    return GenerationSettings(
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        max_new_tokens=max_new_tokens,
        seed=seed,
    )


def generated_text(codec: TextCodec, ids: Sequence[int]) -> str:
    """The text of generated ids up to the first end-of-turn token (which is left out)."""
    stops = set(codec.stop_ids)
    if codec.eos_token_id is not None:
        stops.add(codec.eos_token_id)
    end = next((i for i, t in enumerate(ids) if t in stops), len(ids))
    return codec.decode(ids[:end])


_FENCE = re.compile(r"\A\s*```[^\n`]*\n(?P<body>.*?)\n?```\s*\Z", re.DOTALL)
_THINKING = re.compile(r"\A\s*<think>.*?(</think>\s*|\Z)", re.DOTALL)


def clean_forecast(raw: str, closing: str = "") -> str:
    r"""Z from a predictor's raw text, as the scorer will read it.

    In order: a leading ``<think>…</think>`` block and the whitespace after it are dropped (all
    of the text when it never closes); a code fence around the whole text is unwrapped; the
    first ``closing`` delimiter (``\end{align}``) and everything after it are cut, and the
    whitespace before it. Leading whitespace is kept: where the continuation starts (a space,
    a new line) is part of Z.
    """
    text = _THINKING.sub("", raw, count=1)
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group("body")
    if closing and closing in text:
        text = text[: text.index(closing)].rstrip()
    return text


def thinking_tokens(codec: TextCodec, raw: str) -> int:
    """Tokens of the leading ``<think>…</think>`` block of a predictor's text (0 without one)."""
    found = _THINKING.match(raw)
    return len(codec.encode(found.group(0))) if found else 0


def default_setting(spec: str) -> str:
    """A setting name from a model spec: its last name part, lower-cased, plus ``-t1``."""
    name = spec.rsplit("#", 1)[-1].rstrip("/").rsplit("/", 1)[-1].removesuffix(".gguf")
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.split(":")[-1].lower()).strip("-.")
    return f"{slug or 'model'}-t1"


def _check_window(model: ScoringModel, cut: Cut, n_prompt: int, n_new: int) -> None:
    window = model.codec.context_window
    if window is not None and n_prompt + n_new > window:
        raise InputError(
            f"the prompt ({n_prompt} tokens) and {n_new} new tokens exceed the model's window "
            f"of {window}",
            item_id=cut.id,
            field="context",
        )


def forecast_cut(
    model: ScoringModel,
    cut: Cut,
    *,
    setting: str,
    seed: int = 0,
    chat: bool = True,
    template_kwargs: Mapping[str, Any] | None = None,
    max_new_tokens: int | None = None,
) -> Forecast:
    """Sample one forecast of a cut's target (``seed`` is the run's; the cut's is derived)."""
    prompt = predictor_prompt(cut)
    ids = prompt_ids(model.codec, prompt, chat=chat, template_kwargs=template_kwargs)
    n_new = max_new_tokens or default_max_new_tokens(cut)
    _check_window(model, cut, len(ids), n_new)
    cut_seed = forecast_seed(seed, cut.id)
    started = time.perf_counter()
    generated = model.generate(ids, sampling_settings(cut_seed, n_new))
    seconds = time.perf_counter() - started
    raw = generated_text(model.codec, generated)
    return Forecast(
        cut_id=cut.id,
        setting=setting,
        z=clean_forecast(raw, cut.closing),
        raw=raw,
        prompt_sha256=sha256_text(prompt),
        seed=cut_seed,
        n_tokens=len(generated),
        reasoning_tokens=thinking_tokens(model.codec, raw),
        model=model.info.spec,
        seconds=round(seconds, 3),
    )


def forecast_ledger(out: Path) -> Path:
    """Where a served forecaster's requests are kept: ``OUT.ledger.sqlite`` beside ``OUT``."""
    return out.with_name(out.name + ".ledger.sqlite")


def write_forecasts(
    model: ScoringModel,
    cuts: Sequence[Cut],
    out: str | Path,
    *,
    setting: str | None = None,
    seed: int = 0,
    chat: bool | None = None,
    template_kwargs: Mapping[str, Any] | None = None,
    max_new_tokens: int | None = None,
    progress: ProgressMode = "off",
) -> list[Forecast]:
    """Write a forecast of every cut to ``out`` (JSON lines), resuming a file already begun.

    ``chat`` renders the prompt as a user turn through the chat template (default: when the
    tokenizer has one); ``max_new_tokens`` None gives each cut :func:`default_max_new_tokens`.
    A rerun skips cuts already written, after checking the sidecar manifest matches and each
    such cut's prompt is unchanged. A served forecaster's requests are kept in
    :func:`forecast_ledger`. Returns the cuts' forecasts in the order of ``cuts``.
    """
    out = Path(out)
    setting = setting or default_setting(model.info.spec)
    Forecast(cut_id="", setting=setting, z="")  # a bad setting name fails before any work
    use_chat = model.codec.chat_template is not None if chat is None else chat
    if use_chat and model.codec.chat_template is None:
        raise InputError(f"{model.codec.name} has no chat template; render plain", field="chat")
    seen: set[str] = set()
    for cut in cuts:
        if cut.id in seen:
            raise InputError("appears twice among the cuts", item_id=cut.id, field="id")
        seen.add(cut.id)
    config = {
        "stage": "predict",
        "setting": setting,
        "prompt": "chat" if use_chat else "plain",
        "template_kwargs": dict(template_kwargs or {}),
        "sampling": {
            k: v
            for k, v in sampling_settings(0, 0).as_dict().items()
            if k not in ("seed", "max_new_tokens")
        },
        "max_new_tokens": max_new_tokens,
    }
    manifest = Manifest.create(PREDICT_KIND, model.info, config, seeds={"seed": seed})
    with (
        StageFile(
            out, manifest, Forecast, forecast_key, key_field="cut_id", what="forecasts"
        ) as file,
        model.bound_to(forecast_ledger(out)),
    ):
        done = {cut_id: f for (cut_id, name), f in file.done.items() if name == setting}
        for cut in cuts:
            if cut.id in done and done[cut.id].prompt_sha256 != sha256_text(predictor_prompt(cut)):
                raise InputError(
                    f"its prompt differs from the one its forecast in {out} was made from",
                    item_id=cut.id,
                    field="context",
                )
        todo = [cut for cut in cuts if cut.id not in done]
        with reporter(progress, len(todo), label="predicting", unit="forecasts to write") as bar:
            for cut in todo:
                done[cut.id] = forecast_cut(
                    model,
                    cut,
                    setting=setting,
                    seed=seed,
                    chat=use_chat,
                    template_kwargs=template_kwargs,
                    max_new_tokens=max_new_tokens,
                )
                file.append(done[cut.id])
                bar.advance()
        file.finish()
        return [done[cut.id] for cut in cuts]


class PredictRun(BaseModel):
    """What one prediction stage reads and writes, and how it samples (the model chosen apart)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    cuts: Path = Field(json_schema_extra=option_hint(path="file"))
    """The cut file (JSON lines) written by readout lift cut."""
    out: Path
    """The forecast file (JSON lines), resumed if it exists with the same settings; its
    manifest is written beside it as <out>.manifest.json."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N cuts of the cut file."""
    setting: str | None = None
    """Name of this predictor setting in the records (default: the model's name + -t1)."""
    seed: Seed = 0
    """Run seed; each cut's sampling seed is derived from it and the cut id by SHA-256."""
    max_new_tokens: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Generation bound per cut (default: half the asked characters plus 16)."""
    plain_prompt: bool = False
    """Send the prompt as plain text even when the model has a chat template."""
    template_kwargs: dict[str, JsonValue] = Field(
        default_factory=dict, json_schema_extra=option_hint(skip=True)
    )
    """Chat-template arguments, e.g. ``{"enable_thinking": False}``."""
    progress: ProgressMode = Field(default="off", json_schema_extra=option_hint(skip=True))
    """``off``: nothing on stderr; else a bar or a line at least every 10 s."""


class ModelOpening(Protocol):
    """How to open the model a stage reads (the CLI's model choice)."""

    def open(self, preflight: Callable[[TextCodec], None] | None = None) -> ScoringModel: ...


def predict_cut_file(run: PredictRun, model: ModelOpening) -> list[Forecast]:
    """Check the forecast file (unlocked, not an input), open the model, write every forecast."""
    check_output_path(
        run.out, option="out", inputs=[run.cuts], force=True, own=(run.out, PREDICT_KIND)
    )
    cuts = read_cuts(run.cuts)[: run.limit]
    check_unlocked(run.out)  # a second writer stops here, before the model loads
    return write_forecasts(
        model.open(),
        cuts,
        run.out,
        setting=run.setting,
        seed=run.seed,
        chat=False if run.plain_prompt else None,
        template_kwargs=run.template_kwargs,
        max_new_tokens=run.max_new_tokens,
        progress=run.progress,
    )


def predict_summary(forecasts: Sequence[Forecast], out: Path) -> tuple[str | None, str]:
    """A warning when forecasts are empty (or None), and where the forecasts are, terminal-safe."""
    empty = sum(not f.z for f in forecasts)
    warning = None
    if empty:
        warning = (
            f"{empty} of {len(forecasts)} forecasts are empty (a reasoning model may spend "
            "--max-new-tokens before it answers); they score as the bare scaffold"
        )
    setting = forecasts[0].setting if forecasts else "none"
    where = f"{len(forecasts)} forecasts ({setting}) in {out}; manifest {stage_manifest_path(out)}"
    return warning, terminal_safe(where)
