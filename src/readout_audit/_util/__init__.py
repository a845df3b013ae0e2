"""Machinery shared across packages: JSON lines, atomic files, terminal-safe text."""

from readout_audit._util._choices import OneOf
from readout_audit._util._hub_access import hub_hint
from readout_audit._util._input import (
    MAX_NODES,
    BoundsError,
    check_regular,
    parse_bounded,
    read_input_bytes,
    read_input_text,
)
from readout_audit._util._jsonl import (
    JsonlAppender,
    JsonLines,
    decode_json,
    dumps_line,
    iter_values,
    loads_line,
    loads_strict,
    read_lines,
    split_lines,
    umask_mode,
    write_bytes_atomic,
    write_json_atomic,
    write_lines_atomic,
    write_text_atomic,
)
from readout_audit._util._lock import (
    LOCK,
    RunLock,
    lock_holder,
    lock_path,
    make_folders,
    refuse_if_written,
    remove_empty,
)
from readout_audit._util._models import field_path, read_models, validate_line, validation_problem
from readout_audit._util._option_hint import (
    HINT_KEY,
    INT_MAX,
    SEED_MAX,
    THREADS_MAX,
    OptionHint,
    Seed,
    option_hint,
)
from readout_audit._util._settings import CheckedSettings
from readout_audit._util._text import terminal_safe

__all__ = [
    "BoundsError",
    "CheckedSettings",
    "HINT_KEY",
    "INT_MAX",
    "JsonLines",
    "JsonlAppender",
    "LOCK",
    "MAX_NODES",
    "OneOf",
    "OptionHint",
    "RunLock",
    "SEED_MAX",
    "Seed",
    "THREADS_MAX",
    "check_regular",
    "decode_json",
    "dumps_line",
    "field_path",
    "hub_hint",
    "iter_values",
    "loads_line",
    "loads_strict",
    "lock_holder",
    "lock_path",
    "make_folders",
    "remove_empty",
    "option_hint",
    "parse_bounded",
    "read_input_bytes",
    "read_input_text",
    "read_lines",
    "read_models",
    "refuse_if_written",
    "split_lines",
    "terminal_safe",
    "umask_mode",
    "validate_line",
    "validation_problem",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_lines_atomic",
    "write_text_atomic",
]
