"""Items and loaders: JSONL input, multiple-choice, QA and logic sets, generated and demo sets."""

from readout_audit.data._anli import ANLI_HUB_ID, load_anli_hf, load_anli_jsonl
from readout_audit.data._controlled_logic import (
    CONTROLLED_SPLITS,
    NONCE_VOCABULARY,
    generate_controlled_logic,
)
from readout_audit.data._demo import demo_items, demo_items_path
from readout_audit.data._hub import hub_rows
from readout_audit.data._item import Item, Message
from readout_audit.data._jsonl import load_items, parse_item, parse_items, read_json, read_lines
from readout_audit.data._logic import (
    LABELS,
    LogicItem,
    LogicLabel,
    load_folio_jsonl,
    load_logic_llm,
    load_proofwriter_jsonl,
)
from readout_audit.data._mc import MMLU_HUB_ID, MCItem, load_mc_items, load_mmlu_csv, load_mmlu_hf
from readout_audit.data._paper_logic import generate_paper_logic
from readout_audit.data._polygraph import LIBRARY_SHOTS, polygraph_mmlu_items
from readout_audit.data._qa import Correctness, QAItem, is_correct, load_qa_items
from readout_audit.data._race import RACE_HUB_ID, RACE_REVISION, load_race
from readout_audit.data._sources import (
    QASource,
    load_logic_file,
    load_logic_source,
    load_mc_source,
    load_qa_source,
    load_yesno_source,
    named_source,
    read_qa_source,
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
    "Correctness",
    "Item",
    "LABELS",
    "LIBRARY_SHOTS",
    "LogicItem",
    "LogicLabel",
    "MCItem",
    "MMLU_HUB_ID",
    "Message",
    "NONCE_VOCABULARY",
    "QAItem",
    "QASource",
    "RACE_HUB_ID",
    "RACE_REVISION",
    "YesNoItem",
    "demo_items",
    "demo_items_path",
    "demo_yesno_items",
    "demo_yesno_path",
    "generate_controlled_logic",
    "generate_paper_logic",
    "hub_rows",
    "is_correct",
    "load_anli_hf",
    "load_anli_jsonl",
    "load_folio_jsonl",
    "load_items",
    "load_logic_file",
    "load_logic_llm",
    "load_logic_source",
    "load_mc_items",
    "load_mc_source",
    "load_mmlu_csv",
    "load_mmlu_hf",
    "load_pope",
    "load_proofwriter_jsonl",
    "load_qa_items",
    "load_qa_source",
    "load_race",
    "load_yesno_items",
    "load_yesno_source",
    "named_source",
    "parse_item",
    "parse_items",
    "polygraph_mmlu_items",
    "read_json",
    "read_lines",
    "read_qa_source",
]
