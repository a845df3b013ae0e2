"""Where a kind's commands come from: hooks its module registers, built-in kind or plug-in alike.

A hook takes the ``readout`` group and adds commands to it (the shape of simonw/llm's
``register_commands``). The built-in kinds' command modules are this package's own, found
without installed metadata; a plug-in's are its ``readout_audit.commands`` entry points (or its
``READOUT_AUDIT_PLUGINS`` module), so the group lists no kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib import metadata
from types import ModuleType

import click

from readout_audit._cli._warn import warn
from readout_audit._plugins import plugin_modules
from readout_audit.log import broken_plugins, load_plugin, load_plugins

CommandHook = Callable[[click.Group], None]
COMMAND_POINTS = "readout_audit.commands"
"""The entry-point group naming a plug-in's command modules (its kind: ``readout_audit.kinds``)."""
BUILT_IN = ("_audit", "_judge", "_lift", "_lmeval", "_recover", "_score")
"""The modules of this package holding the built-in kinds' commands."""

_HOOKS: list[CommandHook] = []


def register_commands(hook: CommandHook) -> CommandHook:
    """Register ``hook(cli)``, which adds commands to the ``readout`` group (a decorator).

    A plug-in module (``READOUT_AUDIT_PLUGINS`` or the ``readout_audit.kinds`` entry points)
    calls it when imported, as each built-in command module does.
    """
    _HOOKS.append(hook)
    return hook


LAZY: dict[str, tuple[str, str, str]] = {
    "audit": (
        "_audit_group",
        "audit_group",
        "Run an audit protocol of the seed papers on a model.",
    ),
    "compare": (
        "_report",
        "compare_command",
        "Compare two runs of one kind over the same items: check changes, paired differences.",
    ),
    "conformance": (
        "_conformance",
        "conformance_command",
        "Compare a served model with a local forward of the same weights on fixed prompts.",
    ),
    "demo": (
        "_score",
        "demo_command",
        "Score the built-in demo items, which show each readout failure, and print a summary.",
    ),
    "export": (
        "_export",
        "export_command",
        "Write a run's records as one table: a row per record, a column per field.",
    ),
    "judge": (
        "_judge",
        "judge_group",
        "LLM-judge robustness: presentation and cue experiments as frozen protocols.",
    ),
    "ledger": (
        "_ledger",
        "ledger_command",
        "Requests of a run to served endpoints: counts per state, spend, unknown and failed calls.",
    ),
    "lift": (
        "_lift",
        "lift_group",
        "Likelihood lift of forecasts of hidden TeX continuations (cut, predict, score, report).",
    ),
    "report": (
        "_report",
        "report_command",
        "Report a run directory (any audit kind) or any other stage from its files alone.",
    ),
    "score": (
        "_score",
        "score_command",
        "Score every item's declared options at its scored position.",
    ),
    "table": (
        "_export",
        "table_command",
        "One row per run: kind, model, items, records, state, verdicts and headline numbers.",
    ),
}
"""The built-in top-level commands: module, attribute and first help line of each. ``readout
NAME`` imports NAME's module alone, and ``readout --help`` none (tests/test_cli_lazy.py keeps
the lines equal to the commands' own help)."""


def _command_module(name: str) -> ModuleType:
    """A command module of this package (``_score``), imported once."""
    return importlib.import_module(f"{__package__}.{name}")


class PluginGroup(click.Group):
    """The ``readout`` group: built-in commands imported when named, plug-ins' added by hooks.

    ``readout audit`` gathers every kind's audit command, built-in and plug-in alike; a plug-in
    that cannot be loaded is named in one warning line and the other kinds still work.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._applied: set[int] = set()
        self._plugins_loaded = self._warned = False

    def _load_plugins(self) -> None:
        """Import the plug-ins' command modules once (their hooks register themselves).

        Those ``READOUT_AUDIT_PLUGINS`` names are loaded with the kinds (a module may be both).
        """
        if not self._plugins_loaded:
            self._plugins_loaded = True
            for entry in metadata.entry_points(group=COMMAND_POINTS):
                load_plugin(f"commands entry point {entry.name!r} ({entry.value})", entry.load)
            if plugin_modules():
                load_plugins()

    def _warn_broken(self) -> None:
        """Name, once, each plug-in that cannot be loaded (the kinds loaded first).

        ``readout audit`` and a plug-in's command read every kind; a built-in command reads
        its own, and ``--help`` none.
        """
        if not self._warned:
            self._warned = True
            warn(*broken_plugins())

    def _apply_hooks(self) -> None:
        """Apply the hooks registered so far, each once."""
        for hook in list(_HOOKS):
            if id(hook) not in self._applied:
                self._applied.add(id(hook))
                hook(self)

    def _load_everything(self) -> None:
        """Every built-in command module and every plug-in, their hooks applied."""
        for name in BUILT_IN:
            _command_module(name)
        self._load_plugins()
        self._apply_hooks()
        self._warn_broken()

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugins()
        self._apply_hooks()
        return sorted({*LAZY, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY and cmd_name != "audit":
            module, attribute, _ = LAZY[cmd_name]
            found: click.Command = getattr(
                importlib.import_module(f"{__package__}.{module}"), attribute
            )
            self.add_command(found, cmd_name)
            return found
        self._load_everything()  # ``audit`` gathers every kind's; another name may be a plug-in's
        if cmd_name == "audit":
            module, attribute, _ = LAZY[cmd_name]
            audit = getattr(_command_module(module), attribute)
            self.add_command(audit, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, the built-ins' lines from :data:`LAZY` (nothing of theirs imported)."""
        names = self.list_commands(ctx)  # the plug-ins' commands loaded, no kind
        limit = formatter.width - 6 - max(map(len, names), default=0)
        rows: list[tuple[str, str]] = []
        for name in names:
            if name in LAZY:
                line = click.Command(name, help=LAZY[name][2])  # click's own shortening
                rows.append((name, line.get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
