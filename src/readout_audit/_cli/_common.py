"""Options and error handling shared by the subcommands.

``RunSettings`` lives in :mod:`readout_audit.kind` (a notebook's run gets the same checks); it
is named here for the commands that import it from this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from readout_audit._cli._fields import (
    option_keywords,
    settings_from,
    settings_options,
    with_options,
)
from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._served import served_options
from readout_audit._cli._types import BoundedInt, template_kwargs_option
from readout_audit._exceptions import ReadoutError
from readout_audit._util import INT_MAX, terminal_safe
from readout_audit.kind import DEVICE_HELP, ModelChoice, RunSettings
from readout_audit.model import EMBEDDED_SPEC, ServedSettings, is_served
from readout_audit.progress import progress_mode
from readout_audit.readout import DEFAULT_GREEDY_TOKENS
from readout_audit.serve import redact_url

__all__ = [
    "MODEL_OPTIONS",
    "RUN_OPTIONS",
    "RunSettings",
    "force_option",
    "greedy_tokens",
    "local_model_options",
    "model_options",
    "refuse_other_kind",
    "refuse_unused",
    "run_options",
    "user_errors",
]

F = TypeVar("F", bound=Callable[..., Any])


force_option = click.option(
    "--force",
    is_flag=True,
    help="Overwrite an existing output file (never one inside a run directory, nor an input).",
)
"""``--force`` for the commands that write a file the user names."""


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


def user_errors(command: F) -> F:
    """Turn readout-audit's own errors into a one-line CLI error instead of a traceback.

    Ctrl-C exits with status 130 and a one-line hint that rerunning the command resumes. A
    file the system refuses (a full disk, a read-only mount) is named in one line too; the
    checks before the model loads catch what they can foresee.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ReadoutError as error:  # may quote an item or a server: shown as plain text
            raise click.ClickException(terminal_safe(str(error))) from error
        except OSError as error:
            where = f"{error.filename}: " if error.filename is not None else ""
            message = f"{where}{error.strerror or error}"
            raise click.ClickException(terminal_safe(message)) from error
        except KeyboardInterrupt:
            click.echo(
                "\ninterrupted: every finished record is on disk; rerun the same command to resume",
                err=True,
            )
            raise click.exceptions.Exit(INTERRUPTED) from None

    return wrapper  # type: ignore[return-value]


def refuse_unused(names: Collection[str], why: str) -> None:
    """Refuse the options among ``names`` given on the command line: ``why`` says who ignores them.

    An option the run would not read can only be a mistake (a wrong model, a misplaced flag),
    so it stops the command before anything loads instead of being dropped without a word.
    """
    context = click.get_current_context()
    given = [
        "/".join([*param.opts, *param.secondary_opts])
        for param in context.command.params
        if param.name in names
        and context.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
    ]
    if given:
        verb = "is" if len(given) == 1 else "are"
        # ``why`` may name a model spec: a URL in it is shown without its credentials
        raise click.UsageError(redact_url(f"{', '.join(given)} {verb} not read {why}"))


def refuse_other_kind(
    spec: str, who: str, served_only: Collection[str], local_only: Collection[str]
) -> None:
    """Before anything loads, refuse the options the kind of model ``spec`` names would not read.

    ``served_only`` are refused for a local model, ``local_only`` for a served one; ``who`` is
    the model's role in the message (a model, a judge).
    """
    if is_served(spec):
        refuse_unused(local_only, f"by a served {who} ({spec}), only by a local one")
    else:
        refuse_unused(served_only, f"by a local {who} ({spec}), only by a served one")


SERVED_ONLY = option_keywords(ServedSettings) | option_keywords(ModelChoice, "served")
"""The model options only a served model reads."""
LOCAL_ONLY = option_keywords(ModelChoice, "local")
"""The model options only a local model reads."""


def _model_options_used(command: F) -> F:
    """``command``, first refusing the served-only options for a local model and the reverse."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        refuse_other_kind(kwargs["model_spec"], "model", SERVED_ONLY, LOCAL_ONLY)
        return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


MODEL_OPTIONS = settings_options(ModelChoice)
"""Which model, how to load it and a served one's gate (its own options: ``served_options``)."""

RUN_OPTIONS = [
    template_kwargs_option,
    settings_options(RunSettings),
    click.option(
        "--greedy-tokens",
        default=None,
        type=BoundedInt(0, max=INT_MAX),
        help="Length of the greedy continuation read at each scored position "
        "(default 16; the yes/no audit's string parse reads 6, as in its paper).",
    ),
    plain_option,
    click.option(
        "--verbose",
        is_flag=True,
        help="Print every table and check of the report, and end with the manifest (model "
        "files, commands, configuration, versions).",
    ),
    click.option(
        "--progress/--no-progress",
        default=None,
        help="Progress on stderr: a bar on a terminal, a plain line at least every 10 s "
        "otherwise (default); --no-progress for none.",
    ),
]
"""How the run reads, shows and keeps its records."""


def model_options(command: F) -> F:
    """The options every model-running subcommand takes."""
    options = [MODEL_OPTIONS, served_options, *RUN_OPTIONS]
    return with_options(_model_options_used(command), options)


def local_model_options(role: str) -> Callable[[F], F]:
    """``--model`` (a local one; ``role`` says which) and ``--device``: a proposer, a scorer.

    For commands that open one local model outside a run's shared model options.
    """
    options = [
        click.option("--model", "model_spec", default=EMBEDDED_SPEC, show_default=True, help=role),
        click.option("--device", default="auto", show_default=True, help=DEVICE_HELP),
    ]
    return lambda command: with_options(command, options)


def greedy_tokens(options: Mapping[str, Any], default: int = DEFAULT_GREEDY_TOKENS) -> int:
    """``--greedy-tokens``, or the command's own default when not given."""
    given: int | None = options["greedy_tokens"]
    return default if given is None else given


def run_options(options: Mapping[str, Any]) -> RunSettings:
    """The settings every kind's run takes from the shared model options, typed."""
    return settings_from(
        RunSettings,
        options,
        template_kwargs=options["template_kwargs"],
        progress=progress_mode(options["progress"]),
    )
