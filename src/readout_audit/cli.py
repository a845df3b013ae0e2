"""What a plug-in kind's ``readout audit NAME`` command is built with, as the built-in ones are.

``model_options`` adds every shared model option (``--model``, ``--device``, ``--batch-size``,
served-model options...), ``user_errors`` turns bad input into a one-line error and Ctrl-C into
exit status 130, and ``run_with_model`` checks ``--out``, loads the model (served ones through
the conformance gate), runs the audit and prints its report.
"""

from readout_audit._cli._common import model_options, user_errors
from readout_audit._cli._score import run_with_model

__all__ = ["model_options", "run_with_model", "user_errors"]
