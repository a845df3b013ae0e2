"""What a plug-in kind's ``readout audit NAME`` command is built with, as the built-in ones are.

``model_options`` adds every shared model option (``--model``, ``--device``, ``--batch-size``,
served-model options...), ``user_errors`` turns bad input into a one-line error and Ctrl-C into
exit status 130, and ``run_with_model`` checks ``--out``, loads the model (served ones through
the conformance gate), runs the audit with the typed :class:`RunSettings` and prints its
report. ``register_commands`` adds a plug-in's own top-level commands (``readout NAME``), as
the built-in modules add theirs.
"""

from readout_audit._cli._common import RunSettings, model_options, user_errors
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_with_model

__all__ = ["RunSettings", "model_options", "register_commands", "run_with_model", "user_errors"]
