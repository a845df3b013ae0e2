"""lm-eval itself on the embedded model, offline: the documented ``--model_args`` load in its
HFLM and score as this package does; the README's ``wrap_model`` example runs as written."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from readout_audit import Item, ScoringModel, score_item
from readout_audit.lmeval import lm_eval_model_args
from readout_audit.model import embedded_gguf_path

pytestmark = [pytest.mark.model, pytest.mark.cost(60)]
ROOT = Path(__file__).resolve().parents[2]
CONTEXT, CONTINUATION = "The capital of France is", " Paris"


def test_the_documented_model_args_load_in_lm_evals_hflm(model: ScoringModel, float32_budget):
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    gguf = embedded_gguf_path()
    args = lm_eval_model_args()
    assert args == f"pretrained={gguf.parent},gguf_file={gguf.name}"
    assert "lm_eval_model_args()" in (ROOT / "README.md").read_text(encoding="utf-8")
    hflm = HFLM.create_from_arg_string(args, {"batch_size": 1, "device": "cpu"})
    request = Instance("loglikelihood", {}, (CONTEXT, CONTINUATION), 0)
    ((logged, _),) = hflm.loglikelihood([request], disable_tqdm=True)
    item = Item(id="q", prompt=CONTEXT, options=[CONTINUATION, " Lyon"])
    ours = score_item(model, item).option_logprobs[0]
    assert ours is not None and abs(logged - ours) <= float32_budget(8)


def test_the_readme_wrap_model_example_runs_offline(model: ScoringModel, float32_budget):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "wrap_model(" in b]
    scope: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), scope)  # the README's own example
    record = scope["record"]
    expected = score_item(
        model, Item(id="q", prompt=CONTEXT, options=[CONTINUATION, " Lyon"])
    ).option_logprobs
    got = record.option_logprobs  # type: ignore[attr-defined]
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) <= float32_budget(8)
    assert math.isfinite(record.option_mass)  # type: ignore[attr-defined]
