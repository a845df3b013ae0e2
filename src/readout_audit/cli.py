"""What a plug-in kind's ``readout audit NAME`` command is built with, as the built-in ones are.

``model_options`` adds every shared model option (``--model``, ``--device``, ``--batch-size``,
served-model options...), ``user_errors`` turns bad input into a one-line error and Ctrl-C into
exit status 130, and ``run_command`` runs a :class:`~readout_audit.kind.Stage` through
:func:`~readout_audit.kind.run_stage` (``--out`` checked, the stage's preflight with the
tokenizer alone, the model opened, served ones through the conformance gate) with the typed
:class:`~readout_audit.kind.RunSettings` the options name, and prints the run's report.
``register_commands`` adds a plug-in's own top-level commands (``readout NAME``), as the
built-in modules add theirs.
"""

from readout_audit._cli import model_options, register_commands, run_command, user_errors

__all__ = ["model_options", "register_commands", "run_command", "user_errors"]
