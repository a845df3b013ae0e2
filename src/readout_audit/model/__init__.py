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
    check_model,
)
from readout_audit.model._codec import TextCodec
from readout_audit.model._conformance import (
    CONFORMANCE_FILE,
    FLOAT32_BUDGET,
    Conformance,
    EndpointConformance,
    check_endpoint,
    float32_budget,
    tolerance_for,
)
from readout_audit.model._device import DTYPES, Device, Dtype, resolve_device
from readout_audit.model._dialects import Server
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._embedded import EMBEDDED_SPEC, embedded_gguf_path
from readout_audit.model._executor import (
    Executor,
    GenerationRequest,
    LocalExecutor,
    Pending,
    RoutedExecutor,
    batches,
    leading_context,
    ordered_jobs,
)
from readout_audit.model._gate import (
    conformance_models,
    open_model,
    open_served,
    read_conformance,
)
from readout_audit.model._generation import GenerationSettings
from readout_audit.model._gguf import gguf_quantisation
from readout_audit.model._load import ModelSpec, load_codec, load_model, parse_model_spec
from readout_audit.model._prefix import PREFIX_SHARING, PrefixSharing, shares_prefixes
from readout_audit.model._served import ServedModel, ServedSettings, api_headers, load_served
from readout_audit.model._served_calls import byte_bound
from readout_audit.model._served_executor import ServedExecutor, UnsettledError
from readout_audit.model._served_spec import is_served, parse_served_spec
from readout_audit.model._vision import VisionCodec
from readout_audit.model._wrap import wrap_model

__all__ = [
    "CONFORMANCE_FILE",
    "Capabilities",
    "Conformance",
    "DEFAULT_BATCH_SIZE",
    "DTYPES",
    "Device",
    "Dtype",
    "EMBEDDED_SPEC",
    "EndpointConformance",
    "Executor",
    "FLOAT32_BUDGET",
    "GenerationRequest",
    "GenerationSettings",
    "LocalExecutor",
    "ModelFile",
    "ModelInfo",
    "ModelSpec",
    "PREFIX_SHARING",
    "Pending",
    "PositionRequest",
    "PositionScores",
    "PrefixSharing",
    "RoutedExecutor",
    "ScoringModel",
    "ServedExecutor",
    "ServedModel",
    "ServedSettings",
    "Server",
    "TextCodec",
    "TokenDistribution",
    "Unembedding",
    "UnsettledError",
    "VisionCodec",
    "api_headers",
    "batches",
    "byte_bound",
    "check_endpoint",
    "check_model",
    "conformance_models",
    "embedded_gguf_path",
    "float32_budget",
    "gguf_quantisation",
    "is_served",
    "leading_context",
    "load_codec",
    "load_model",
    "load_served",
    "open_model",
    "open_served",
    "ordered_jobs",
    "parse_model_spec",
    "parse_served_spec",
    "read_conformance",
    "resolve_device",
    "shares_prefixes",
    "tolerance_for",
    "wrap_model",
]
