"""Model backends: token log-probabilities, continuations, greedy text and hidden states."""

from readout_audit.model._backend import (
    DEFAULT_BATCH_SIZE,
    Capabilities,
    ModelFile,
    ModelInfo,
    PositionRequest,
    PositionScores,
    ScoringModel,
    Unembedding,
)
from readout_audit.model._codec import TextCodec
from readout_audit.model._conformance import CONFORMANCE_FILE, Conformance
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._embedded import EMBEDDED_SPEC, embedded_gguf_path
from readout_audit.model._executor import (
    Executor,
    GenerationRequest,
    LocalExecutor,
    Pending,
    batches,
)
from readout_audit.model._gate import (
    check_served,
    open_model,
    open_served,
    read_conformance,
    write_conformance,
)
from readout_audit.model._generation import GenerationSettings
from readout_audit.model._gguf import gguf_quantisation
from readout_audit.model._load import ModelSpec, load_codec, load_model, parse_model_spec
from readout_audit.model._prefix import PREFIX_SHARING, shares_prefixes
from readout_audit.model._served import ServedModel, ServedSettings, load_served
from readout_audit.model._served_executor import ServedExecutor, UnsettledError
from readout_audit.model._wrap import wrap_model

__all__ = [
    "CONFORMANCE_FILE",
    "DEFAULT_BATCH_SIZE",
    "PREFIX_SHARING",
    "Executor",
    "GenerationRequest",
    "LocalExecutor",
    "Pending",
    "ServedExecutor",
    "UnsettledError",
    "batches",
    "Capabilities",
    "Conformance",
    "EMBEDDED_SPEC",
    "GenerationSettings",
    "ModelFile",
    "ModelInfo",
    "ModelSpec",
    "PositionRequest",
    "PositionScores",
    "Unembedding",
    "ScoringModel",
    "TextCodec",
    "TokenDistribution",
    "check_served",
    "embedded_gguf_path",
    "gguf_quantisation",
    "load_model",
    "open_model",
    "open_served",
    "parse_model_spec",
    "shares_prefixes",
    "read_conformance",
    "wrap_model",
    "write_conformance",
    "ServedModel",
    "ServedSettings",
    "load_served",
    "load_codec",
]
