"""``readout audit``: the protocols of the seed papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._audit_group import audit_group
from readout_audit._cli._common import greedy_tokens, model_options, refuse_unused, user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._registry import register_commands
from readout_audit._cli._score import run_command
from readout_audit._cli._types import GivenPath, IdSets, SpecType
from readout_audit._cli._warn import warn
from readout_audit.model import is_served
from readout_audit.options import OptionsSettings
from readout_audit.ptrue import PTrueSettings
from readout_audit.yesno import PARSE_TOKENS, YesNoSettings

out_option = click.option(
    "--out",
    required=True,
    type=GivenPath(file_okay=False, path_type=Path),
    help="Run directory (resumed if it exists with the same configuration).",
)


@click.command("options")
@settings_options(OptionsSettings, types_={"spec": SpecType(), "items": click.STRING})
@out_option
@model_options
@user_errors
def options_command(out: Path, **options: Any) -> None:
    """Constrained-option audit: option mass, argmax, continuation, first tokens, ending, stem."""
    settings = settings_from(
        OptionsSettings,
        options,
        greedy_tokens=greedy_tokens(options),
        allow_download=options["allow_download"],
    )
    warn(*settings.spec.warnings)
    run_command(settings, out, options)


@click.command("ptrue")
@settings_options(PTrueSettings, types_={"items": click.STRING})
@out_option
@model_options
@user_errors
def ptrue_command(out: Path, **options: Any) -> None:
    """P(True) audit: lm-polygraph's PTrue and five other readouts, AUROC and PRR."""
    if options["greedy_tokens"] is not None:
        raise click.UsageError(
            "--greedy-tokens does not apply to audit ptrue: each readout reads one token at its "
            "position and --answers sets the answer step"
        )
    settings = settings_from(PTrueSettings, options, allow_download=options["allow_download"])
    warn(*settings.source_read.warnings)
    run_command(settings, out, options)


@click.command("yesno")
@settings_options(
    YesNoSettings, types_={"legacy_set": IdSets(), "items": GivenPath(path_type=Path)}
)
@out_option
@model_options
@user_errors
def yesno_command(out: Path, **options: Any) -> None:
    """Yes/no audit: Listing 1's sets, legacy ids and Algorithm 1, max-logit and string parse."""
    spec = options["model_spec"]
    if options["items"] is None:
        refuse_unused(("images",), "without --items: the demo questions have no images")
    if is_served(spec):
        refuse_unused(("images",), f"by a served model ({spec}), which reads text only")
    if not options["legacy"]:
        refuse_unused(("legacy_ids", "legacy_set"), "with --no-legacy")
    tokens = greedy_tokens(options, PARSE_TOKENS)
    settings = settings_from(YesNoSettings, options, greedy_tokens=tokens)
    run_command(settings, out, options)


@register_commands
def audit_commands(cli: click.Group) -> None:
    """``readout audit options``, ``ptrue`` and ``yesno``."""
    for command in (options_command, ptrue_command, yesno_command):
        audit_group.add_command(command)
