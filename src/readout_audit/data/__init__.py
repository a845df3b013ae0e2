"""Items and loaders: JSONL input, multiple-choice, QA and logic sets, generated and demo sets."""

from readout_audit.data._anli import ANLI_HUB_ID, load_anli_hf, load_anli_jsonl
from readout_audit.data._controlled_logic import (
    CONTROLLED_SPLITS,
    NONCE_VOCABULARY,
    generate_controlled_logic,
)
from readout_audit.data._demo import demo_items, demo_items_path
from readout_audit.data._item import Item, Message
from readout_audit.data._jsonl import load_items, parse_item, parse_items, read_json
from readout_audit.data._logic import (
    LogicItem,
    load_folio_jsonl,
    load_logic_llm,
    load_proofwriter_jsonl,
)
from readout_audit.data._mc import MMLU_HUB_ID, MCItem, load_mc_items, load_mmlu_csv, load_mmlu_hf
from readout_audit.data._paper_logic import generate_paper_logic
from readout_audit.data._polygraph import polygraph_mmlu_items
from readout_audit.data._qa import QAItem, is_correct, load_qa_items
from readout_audit.data._race import RACE_HUB_ID, RACE_REVISION, load_race
from readout_audit.data._sources import (
    load_logic_file,
    load_logic_source,
    load_mc_source,
    load_qa_source,
    load_yesno_source,
    named_source,
)
from readout_audit.data._yesno import (
    YesNoItem,
    demo_yesno_items,
    demo_yesno_path,
    load_pope,
    load_yesno_items,
)

__all__ = [
    "ANLI_HUB_ID",
    "CONTROLLED_SPLITS",
    "Item",
    "LogicItem",
    "MCItem",
    "MMLU_HUB_ID",
    "Message",
    "NONCE_VOCABULARY",
    "QAItem",
    "RACE_HUB_ID",
    "RACE_REVISION",
    "YesNoItem",
    "demo_items",
    "demo_items_path",
    "demo_yesno_items",
    "demo_yesno_path",
    "generate_controlled_logic",
    "generate_paper_logic",
    "is_correct",
    "load_anli_hf",
    "load_anli_jsonl",
    "load_folio_jsonl",
    "load_items",
    "load_logic_llm",
    "load_mc_items",
    "load_mmlu_csv",
    "load_mmlu_hf",
    "load_pope",
    "load_proofwriter_jsonl",
    "load_qa_items",
    "load_race",
    "load_yesno_items",
    "parse_item",
    "parse_items",
    "read_json",
    "polygraph_mmlu_items",
    "load_logic_file",
    "load_logic_source",
    "load_mc_source",
    "load_qa_source",
    "load_yesno_source",
    "named_source",
]
