"""Options and error handling shared by the subcommands."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from readout_audit._cli._limit_plain import plain_option
from readout_audit._cli._served import SERVED_ONLY, gate_options, served_options, with_options
from readout_audit._exceptions import InputError, ReadoutError, RunDirectoryError
from readout_audit._util._jsonl import decode_json
from readout_audit._util._lock import hold, release_held
from readout_audit._util._text import terminal_safe
from readout_audit.log._outputs import read_only_files, unwritable
from readout_audit.log._run import existing_manifest
from readout_audit.model import PREFIX_SHARING
from readout_audit.model._device import DTYPES
from readout_audit.model._embedded import EMBEDDED_SPEC
from readout_audit.model._served_spec import is_served
from readout_audit.progress import ProgressMode, progress_mode
from readout_audit.readout._position import DEFAULT_GREEDY_TOKENS
from readout_audit.serve import redact_url

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
        finally:
            release_held()  # what ``check_out`` held and no run directory took over

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


LOCAL_ONLY = (
    "device",
    "dtype",
    "device_map",
    "trust_remote_code",
    "threads",
    "cache_budget",
    "prefix_sharing",
)
"""The model options only a local model reads."""


def _model_options_used(command: F) -> F:
    """``command``, first refusing the served-only options for a local model and the reverse."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        spec = kwargs["model_spec"]
        if is_served(spec):
            refuse_unused(LOCAL_ONLY, f"by a served model ({spec}), only by a local one")
        else:
            refuse_unused(SERVED_ONLY, f"by a local model ({spec}), only by a served one")
        return command(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def parse_template_kwargs(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; VALUE is read as JSON when it parses (false, 3, "x"), else as text.

    A KEY given twice, NaN, Infinity, out-of-range numbers and keys repeated inside a value are
    refused: the last would win silently, or the manifest would store null for the number, so
    the same command could never resume its run.
    """
    parsed: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(
                f"expected KEY=VALUE, got {pair!r}", param_hint="--template-kwarg"
            )
        if key in parsed:
            raise click.BadParameter(f"{key} is given twice", param_hint="--template-kwarg")
        try:
            parsed[key] = decode_json(value)
        except json.JSONDecodeError:
            parsed[key] = value
        except ValueError as error:  # NaN, Infinity, 1e999, a key repeated in an object
            raise click.BadParameter(f"{key}: {error}", param_hint="--template-kwarg") from None
    return parsed


def model_options(command: F) -> F:
    """The options every model-running subcommand takes."""
    options = [
        click.option(
            "--model",
            "model_spec",
            default=EMBEDDED_SPEC,
            show_default=True,
            help="smollm2-135m, hf:<hub-id-or-dir>[@revision], gguf:<path>, or a served model: "
            "openai:<base-url>[,<base-url>...]#<model-name> (or openai:<file of URLs>#<name>).",
        ),
        click.option(
            "--allow-download",
            is_flag=True,
            help="Let hf: specs download from the Hugging Face Hub.",
        ),
        click.option(
            "--device",
            default="auto",
            show_default=True,
            help="auto (cuda if available, else mps, else cpu), cpu, cuda, cuda:N or mps.",
        ),
        click.option(
            "--dtype",
            type=click.Choice(list(DTYPES)),
            default="auto",
            show_default=True,
            help="Weights' dtype; auto is bfloat16 on a GPU and float32 on the CPU.",
        ),
        click.option(
            "--device-map",
            type=click.Choice(["auto"]),
            default=None,
            help="auto: spread a model too large for one GPU over the available devices "
            "(accelerate's placement, recorded in the manifest).",
        ),
        click.option(
            "--trust-remote-code",
            is_flag=True,
            help="Run a hf: checkpoint's own modelling code (off by default; recorded).",
        ),
        click.option(
            "--template-kwarg",
            "template_kwarg",
            multiple=True,
            metavar="KEY=VALUE",
            help="Chat-template argument, e.g. enable_thinking=false (repeatable).",
        ),
        click.option("--top-k", default=10, show_default=True, type=click.IntRange(1)),
        click.option(
            "--greedy-tokens",
            default=None,
            type=click.IntRange(0),
            help="Length of the greedy continuation read at each scored position "
            "(default 16; the yes/no audit's string parse reads 6, as in its paper).",
        ),
        click.option(
            "--batch-size",
            default=32,
            show_default=True,
            type=click.IntRange(1),
            help="Scored positions per model call (one padded forward, one batched decode).",
        ),
        plain_option,
        click.option(
            "--verbose",
            is_flag=True,
            help="Print every table and check of the report, and end with the manifest (model "
            "files, commands, configuration, versions).",
        ),
        click.option(
            "--threads",
            type=click.IntRange(1),
            default=None,
            help="CPU threads for the model (default: torch's, one per core); fewer can be "
            "faster on a busy machine.",
        ),
        click.option(
            "--cache-budget",
            type=click.IntRange(1),
            default=None,
            metavar="MB",
            help="Largest key-value cache of one forward (default 1024 MB); a batch over it is "
            "scored in chunks, with the same numbers.",
        ),
        click.option(
            "--prefix-sharing",
            type=click.Choice(PREFIX_SHARING),
            default="auto",
            show_default=True,
            help="Encode the token prefixes a batch shares (a few-shot block, a ladder's "
            "question) once; auto: on the CPU, where it saves time, not on a GPU, where it costs.",
        ),
        click.option(
            "--overwrite",
            is_flag=True,
            help="Delete the run already in --out (whatever its configuration) and start it "
            "again; without it, a run of the same configuration is resumed.",
        ),
        click.option(
            "--progress/--no-progress",
            default=None,
            help="Progress on stderr: a bar on a terminal, a plain line at least every 10 s "
            "otherwise (default); --no-progress for none.",
        ),
    ]
    return gate_options(served_options(with_options(_model_options_used(command), options)))


def greedy_tokens(options: Mapping[str, Any], default: int = DEFAULT_GREEDY_TOKENS) -> int:
    """``--greedy-tokens``, or the command's own default when not given."""
    given: int | None = options["greedy_tokens"]
    return default if given is None else given


@dataclass(frozen=True)
class RunSettings:
    """What every audit takes from the shared model options, parsed and typed."""

    top_k: int
    template_kwargs: dict[str, Any]
    batch_size: int
    progress: ProgressMode
    overwrite: bool = False

    def kwargs(self) -> dict[str, Any]:
        """The audits' keyword arguments of the same names."""
        return {
            "top_k": self.top_k,
            "template_kwargs": self.template_kwargs,
            "batch_size": self.batch_size,
            "progress": self.progress,
            "overwrite": self.overwrite,
        }


def run_options(options: Mapping[str, Any]) -> RunSettings:
    """The settings every audit takes from the shared model options."""
    return RunSettings(
        top_k=options["top_k"],
        template_kwargs=parse_template_kwargs(options["template_kwarg"]),
        batch_size=options["batch_size"],
        progress=progress_mode(options["progress"]),
        overwrite=options["overwrite"],
    )


def check_out(out: Path, kind: str | None = None) -> None:
    """Before the model loads: ``--out`` is a writable directory, unlocked, of the same kind.

    An existing directory's lock is taken here and kept until the run directory takes it over
    (or the command ends), so a second writer is refused before it loads a model too.
    """
    if out.exists() and not out.is_dir():
        raise InputError("is a file, not a run directory", source=str(out), field="out")
    problem = unwritable(out)
    if problem is not None:
        raise InputError(problem, source=str(out), field="out")
    if out.is_dir():
        read_only = read_only_files(out)
        if read_only:
            names = ", ".join(path.name for path in read_only)
            raise InputError(f"holds files that cannot be written: {names}", source=str(out))
        found = existing_manifest(out)  # a manifest.json that is no run's is refused
        if kind is not None and found is not None and found.kind != kind:
            raise RunDirectoryError(
                f"{out} holds a {found.kind} run and this command writes {kind} runs; "
                "choose another --out"
            )
        hold(out)  # kept through the model's loading: a second writer is refused now
