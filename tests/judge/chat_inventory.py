"""The chat judge's test inventory: FINAL3 with llama-cpp-python's response format, 2 sources."""

from __future__ import annotations

from pathlib import Path

from readout_audit.judge import (
    PAPER_SEED,
    Inventory,
    build_inventory,
    load_drop_json,
    load_gsm8k_jsonl,
    parse_configuration,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
SERVED_NAME = "smollm2"
"""The alias the test server serves the embedded GGUF file under (tests/conftest.py)."""
CHAT = parse_configuration(
    f"chat3=FINAL3@openai:http://127.0.0.1:8080/v1#{SERVED_NAME}", PAPER_SEED, "json_object"
)


def chat_inventory(*, drop: bool = True) -> Inventory:
    """One GSM8K and (``drop``) one DROP confirmation source: 16 requests each, interleaved."""
    banks = [load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")]
    if drop:
        banks.append(load_drop_json(FIXTURES / "drop_rows.jsonl"))
    return build_inventory(banks, [CHAT], seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=0)
