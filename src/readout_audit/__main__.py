"""``python -m readout_audit``: the ``readout`` command."""

from readout_audit._cli import main

main()
