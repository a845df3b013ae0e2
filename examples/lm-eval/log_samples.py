"""Write a finished lm-eval run's samples (``--log_samples``) for the embedded model.

lm-eval's own ``simple_evaluate`` scores the example tasks with its HFLM wrapping the embedded
SmolLM2 model object (the same weights ``readout`` loads), and its ``EvaluationTracker`` writes
the results and ``samples_<task>_<date>.jsonl`` files, exactly as ``lm_eval --log_samples``
does. Run from the repository root:

    .venv/bin/python examples/lm-eval/log_samples.py --out examples/lm-eval/logged/results.json
"""

from __future__ import annotations

import argparse

from lm_eval import simple_evaluate
from lm_eval.loggers import EvaluationTracker
from lm_eval.models.huggingface import HFLM
from lm_eval.tasks import TaskManager

from readout_audit import load_model


def main() -> None:
    """Run lm-eval on the example tasks and save its results and samples."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="readout_mmlu")
    parser.add_argument("--include-path", default="examples/lm-eval")
    parser.add_argument("--num-fewshot", type=int, default=None)
    parser.add_argument(
        "--out",
        required=True,
        help="The results file (results_<date>.json); the samples files go beside it.",
    )
    args = parser.parse_args()
    model = load_model("smollm2-135m")
    hflm = HFLM(pretrained=model._model, tokenizer=model.codec._tok, batch_size=8)
    tracker = EvaluationTracker(output_path=args.out)
    results = simple_evaluate(
        model=hflm,
        tasks=args.tasks.split(","),
        task_manager=TaskManager(include_path=args.include_path),
        num_fewshot=args.num_fewshot,
        log_samples=True,
        evaluation_tracker=tracker,
    )
    assert results is not None
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])


if __name__ == "__main__":
    main()
