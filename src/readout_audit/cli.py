"""What a plug-in kind's commands are built with, as the built-in ones are.

``settings_options(Model)`` adds an option per field of the kind's settings model (its type,
bounds, default and docstring; ``option_hint`` and ``OneOf`` say what a type cannot) and
``settings_from(Model, given)`` builds the model back; ``model_options`` adds every shared model
option (``--model``, ``--device``, ``--batch-size``, served-model options...), ``user_errors``
turns bad input into a one-line error and Ctrl-C into exit status 130, and ``run_command`` runs
the kind's settings (a :class:`~readout_audit.kind.KindSettings`) through
:func:`~readout_audit.kind.run_stage` and prints the run's report. ``register_commands``
registers a hook that adds the commands: to ``audit_group`` (``readout audit NAME``) or to the
``readout`` group, as the built-in command modules add theirs.
"""

from readout_audit._cli import (
    audit_group,
    model_options,
    register_commands,
    run_command,
    settings_from,
    settings_options,
    user_errors,
)
from readout_audit._util import OneOf, option_hint

__all__ = [
    "OneOf",
    "audit_group",
    "model_options",
    "option_hint",
    "register_commands",
    "run_command",
    "settings_from",
    "settings_options",
    "user_errors",
]
