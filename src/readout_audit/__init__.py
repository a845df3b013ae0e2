"""readout-audit: measure, repair and check scores read off a language model's probabilities."""

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version

from readout_audit._exceptions import (
    CapabilityError,
    InputError,
    ModelNotAvailableError,
    ReadoutError,
    RunDirectoryError,
)
from readout_audit.audit import (
    MASS_FLOOR,
    ScoreResult,
    audit_options,
    audit_ptrue,
    audit_yesno,
    score,
    score_item,
    summarise,
)
from readout_audit.data import Item, Message, demo_items, load_items, parse_items
from readout_audit.log import RECORD_SCHEMA_VERSION, Manifest, Run, ScoreRecord, read_run
from readout_audit.model import (
    EMBEDDED_SPEC,
    Capabilities,
    PositionRequest,
    PositionScores,
    ScoringModel,
    TokenDistribution,
    load_model,
)
from readout_audit.prompt import Rendering, ending_class, render
from readout_audit.readout import (
    PositionReadout,
    encode_in_context,
    option_mass,
    read_position,
)

try:
    __version__ = _version("readout-audit")
except _PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = [
    "Capabilities",
    "CapabilityError",
    "EMBEDDED_SPEC",
    "InputError",
    "Item",
    "MASS_FLOOR",
    "Manifest",
    "Message",
    "ModelNotAvailableError",
    "PositionReadout",
    "PositionRequest",
    "PositionScores",
    "RECORD_SCHEMA_VERSION",
    "ReadoutError",
    "Rendering",
    "Run",
    "RunDirectoryError",
    "ScoreRecord",
    "ScoreResult",
    "ScoringModel",
    "TokenDistribution",
    "__version__",
    "audit_options",
    "audit_ptrue",
    "audit_yesno",
    "demo_items",
    "encode_in_context",
    "ending_class",
    "load_items",
    "load_model",
    "option_mass",
    "parse_items",
    "read_position",
    "read_run",
    "render",
    "score",
    "score_item",
    "summarise",
]
