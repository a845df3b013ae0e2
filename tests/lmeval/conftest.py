"""Task YAMLs over small local datasets, written for the tests, and lm-eval run on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROWS = [
    ("What is frozen water called?", ["ice", "steam", "fog", "dew"], 0),
    ("Which planet is closest to the Sun?", ["Venus", "Mercury", "Earth", "Mars"], 1),
    ("What do bees make?", ["silk", "milk", "honey", "wool"], 2),
    ("What is 2 + 2?", ["3", "5", "6", "4"], 3),
    ("Which animal barks?", ["dog", "cat", "cow", "owl"], 0),
    ("What colour is grass?", ["blue", "green", "red", "white"], 1),
]
LETTERS = "\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nC. {{choices[2]}}\\nD. {{choices[3]}}"
ASK = f'doc_to_text: "{{{{question}}}}{LETTERS}\\nAnswer:"\n'

COMMON = """dataset_path: json
dataset_kwargs:
  data_files:
    dev: {dev}
    test: {test}
test_split: test
fewshot_split: dev
"""
MC = "output_type: multiple_choice\ndoc_to_target: answer\nmetric_list:\n"
MC += "  - metric: acc\n  - metric: acc_norm\n  - metric: exact_match\n"
"""What the multiple-choice tasks share (the loglikelihood and generation ones differ)."""
TASKS = {
    # plain multiple choice, letters after "Answer:"
    "tp_plain": f"{MC}{ASK}doc_to_choice: [A, B, C, D]\n",
    # few-shot from the dev split with lm-eval's first_n sampler
    "tp_fewshot": f"{MC}{ASK}doc_to_choice: [A, B, C, D]\nnum_fewshot: 2\n"
    "fewshot_config:\n  sampler: first_n\n",
    # full-text choices that share their first token (" the")
    "tp_shared": MC + 'doc_to_text: "{{question}}\\nAnswer:"\n'
    "doc_to_choice: \"{{choices | map('regex_replace', '^', 'the ') | list}}\"\n",
    # a context that ends in a space, with no delimiter: lm-eval moves the space
    "tp_space": MC + 'doc_to_text: "{{question}} Answer: "\ntarget_delimiter: ""\n'
    'doc_to_choice: "{{choices}}"\n',
    # one continuation, lm-eval's acc: is it the greedy one?
    "tp_loglik": 'doc_to_text: "{{question}} Answer:"\noutput_type: loglikelihood\n'
    'doc_to_target: " {{choices[answer]}}"\nmetric_list:\n  - metric: acc\n'
    "  - metric: perplexity\n",
    # not a readout at a position
    "tp_generate": 'doc_to_text: "{{question}}"\ndoc_to_target: answer\n'
    "output_type: generate_until\n"
    "generation_kwargs:\n  until: ['\\n']\n",
}


@pytest.fixture(scope="session")
def task_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of task YAMLs over JSON-lines files (lm-eval's ``json`` builder, no hub)."""
    root = tmp_path_factory.mktemp("lm_eval_tasks")
    for split, rows in (("dev", ROWS[:2]), ("test", ROWS[2:])):
        with open(root / f"{split}.jsonl", "w", encoding="utf-8") as out:
            for question, choices, answer in rows:
                out.write(json.dumps({"question": question, "choices": choices, "answer": answer}))
                out.write("\n")
    common = COMMON.format(dev=root / "dev.jsonl", test=root / "test.jsonl")
    for name, body in TASKS.items():
        (root / f"{name}.yaml").write_text(f"task: {name}\n{common}{body}", encoding="utf-8")
    # a hub dataset, which the tests never download
    (root / "tp_hub.yaml").write_text(
        "task: tp_hub\ndataset_path: readout-audit-tests/not-on-this-machine\ntest_split: test\n"
        "output_type: multiple_choice\ndoc_to_text: '{{question}}'\n"
        "doc_to_choice: '{{choices}}'\ndoc_to_target: answer\n",
        encoding="utf-8",
    )
    members = "".join(f"  - {name}\n" for name in TASKS if name != "tp_generate")
    (root / "tp_all.yaml").write_text(f"group: tp_all\ntask:\n{members}", encoding="utf-8")
    return root
