"""Forecasts sampled by the real embedded model: seeded, pure sampling, resumable files."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch
from click.testing import CliRunner
from llama_state import clear_prefix_cache

from readout_audit import (
    CapabilityError,
    InputError,
    ReadoutError,
    RunDirectoryError,
    ServedSettings,
)
from readout_audit._cli import main
from readout_audit.lift import forecast_cut, predictor_prompt, write_forecasts
from readout_audit.lift._cut import sha256_text
from readout_audit.lift._predict import (
    forecast_seed,
    generated_text,
    prompt_ids,
    sampling_settings,
)
from readout_audit.model import GenerationRequest, Pending, load_served
from readout_audit.serve import Ledger

pytestmark = pytest.mark.cost(30)

NEW = 24


def test_the_same_seed_gives_the_same_forecast_and_another_seed_another(model, make_cut):
    cut = make_cut()
    first, again, other = (
        forecast_cut(model, cut, setting="s", seed=s, max_new_tokens=NEW) for s in (0, 0, 1)
    )
    assert first.z == again.z and first.raw == again.raw and first.seed == again.seed
    assert other.raw != first.raw
    assert first.seed == forecast_seed(0, cut.id)
    assert first.prompt_sha256 == sha256_text(predictor_prompt(cut))
    assert first.model == "smollm2-135m" and 0 < first.n_tokens <= NEW


def test_sampling_is_pure_softmax_sampling_at_temperature_one(model, torch_model, make_cut):
    """The backend's draws equal torch's multinomial over the full softmax, step by step,
    and some are far in the tail (rank 50 or worse), where any truncation would cut them."""
    cut = make_cut()
    ids = prompt_ids(model.codec, predictor_prompt(cut), chat=True)
    forecast = forecast_cut(model, cut, setting="s", max_new_tokens=12)
    tokens, ranks = list(ids), []
    with torch.random.fork_rng(), torch.inference_mode():
        torch.manual_seed(forecast.seed)
        for _ in range(12):
            probs = torch.softmax(torch_model(torch.tensor([tokens])).logits[0, -1].float(), -1)
            tokens.append(int(torch.multinomial(probs, 1)))
            ranks.append(int((probs > probs[tokens[-1]]).sum()))
    assert forecast.raw == generated_text(model.codec, tokens[len(ids) :])
    assert max(ranks) >= 50


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_rerun_skips_the_cuts_already_written(model, make_cut, tmp_path):
    out = tmp_path / "forecasts.jsonl"
    cuts = [make_cut(f"eq{i}") for i in (1, 2, 3)]
    first = write_forecasts(model, cuts[:2], out, setting="smollm2-t1", max_new_tokens=NEW)
    assert [f.cut_id for f in first] == ["2604.19885:eq1", "2604.19885:eq2"]
    written = lines(out)
    assert len(written) == 2
    again = write_forecasts(model, cuts, out, setting="smollm2-t1", max_new_tokens=NEW)
    assert len(lines(out)) == 3 and lines(out)[:2] == written
    assert again[:2] == first and again[2].cut_id == "2604.19885:eq3"
    assert written[0]["seed"] == forecast_seed(0, "2604.19885:eq1")
    manifest = json.loads((tmp_path / "forecasts.jsonl.manifest.json").read_text())
    assert manifest["kind"] == "lift-predict" and manifest["seeds"] == {"seed": 0}
    assert manifest["config"]["prompt"] == "chat"
    assert manifest["config"]["sampling"]["top_k"] == 0
    assert manifest["model"]["chat_template_sha256"] == model.codec.chat_template_sha256
    assert len(manifest["invocations"]) == 2

    with pytest.raises(RunDirectoryError, match=r"seeds.seed: 0 -> 1"):
        write_forecasts(model, cuts, out, setting="smollm2-t1", seed=1, max_new_tokens=NEW)
    with pytest.raises(RunDirectoryError, match=r"config.prompt: 'chat' -> 'plain'"):
        write_forecasts(model, cuts, out, setting="smollm2-t1", chat=False, max_new_tokens=NEW)
    changed = make_cut("eq2", target="x" * 200)  # asks for another length: another prompt
    with pytest.raises(InputError, match=r"item '2604.19885:eq2', field 'context': its prompt"):
        write_forecasts(model, [changed], out, setting="smollm2-t1", max_new_tokens=NEW)
    assert len(lines(out)) == 3


@pytest.mark.model  # loads the embedded model through the command
def test_predict_command_writes_plain_prompt_forecasts(make_cut, tmp_path):
    cuts = [make_cut("eq1"), make_cut("eq2")]
    (tmp_path / "cuts.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in cuts))
    out = tmp_path / "z.jsonl"
    args = ["lift", "predict", "--cuts", str(tmp_path / "cuts.jsonl"), "--out", str(out)]
    args += ["--max-new-tokens", "8", "--plain-prompt", "--no-progress"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"2 forecasts (smollm2-135m-t1) in {out}" in result.output
    assert [r["setting"] for r in lines(out)] == ["smollm2-135m-t1"] * 2
    manifest = json.loads((tmp_path / "z.jsonl.manifest.json").read_text())
    assert manifest["config"]["prompt"] == "plain"


def test_a_served_model_samples_the_same_forecast_for_the_same_seed(
    llama_server, served_spec, make_cut, tmp_path
):
    served = load_served(served_spec, tokenizer="smollm2-135m", settings=ServedSettings())
    cut = make_cut()

    def forecast(seed: int, ledger: str):
        clear_prefix_cache(llama_server)  # each sample starts from the same cache state
        with served.ledger(tmp_path / ledger):  # a new ledger: the same body is sent again
            return forecast_cut(served, cut, setting="s", seed=seed, max_new_tokens=16)

    with pytest.raises(ReadoutError, match="go through a ledger"):  # never sent unrecorded
        forecast_cut(served, cut, setting="s", seed=0, max_new_tokens=16)
    first, again, other = (forecast(s, f"{i}.sqlite") for i, s in enumerate((0, 0, 1)))
    assert first.raw == again.raw and first.raw != other.raw


def test_a_served_models_executor_generates_concurrently_through_the_ledger(
    llama_server, served_spec, make_cut, tmp_path
):
    served = load_served(
        served_spec, tokenizer="smollm2-135m", settings=ServedSettings(concurrency=2)
    )
    ids = prompt_ids(served.codec, predictor_prompt(make_cut()), chat=True)
    pending = [
        Pending((f"g{seed}",), GenerationRequest(ids, sampling_settings(seed, 8)))
        for seed in range(3)
    ]
    ledger = tmp_path / "ledger.sqlite"
    with served.bound_to(ledger):
        first = {job.key: tokens for job, tokens in served.executor(4).generate(pending)}
    assert sorted(first) == [("g0",), ("g1",), ("g2",)]
    # 8 sampled tokens each, re-encoded by the local tokenizer (a partial character can
    # re-encode as more tokens; an immediate end of sequence as none)
    assert any(first.values()) and all(len(tokens) <= 24 for tokens in first.values())
    with Ledger(ledger) as kept:
        rows = kept.entries()
    # one completion row per generation, each with its own seed, all completed
    assert sorted(json.loads(e.body)["seed"] for e in rows) == [0, 1, 2]
    assert {e.state for e in rows} == {"completed"}

    # a rerun reads every reply back from the ledger: the same tokens, nothing new sent
    with served.bound_to(ledger):
        again = {job.key: tokens for job, tokens in served.executor(4).generate(pending)}
    assert again == first
    with Ledger(ledger) as kept:
        assert [e.attempts for e in kept.entries()] == [e.attempts for e in rows]

    # a setting the server cannot honour is refused before anything is sent
    refused = Pending(
        ("min",), GenerationRequest(ids, replace(sampling_settings(0, 8), min_new_tokens=2))
    )
    with served.bound_to(ledger), pytest.raises(CapabilityError, match="no minimum of new tokens"):
        list(served.executor(4).generate([*pending, refused]))
    with Ledger(ledger) as kept:
        assert len(kept.entries()) == 3
