"""Every number a command stores is bounded where it is declared (issue 61, points 3, 7-10, 16).

Three checks close the class: every settings model a command builds bounds and types its
integers as its option does; every option of every command, fed hostile values, is refused in
one line before any model loads or accepted; and each reproduction of the issue, built here,
is refused naming its option with the user's files untouched.
"""

from __future__ import annotations

import json
import math
import shutil
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hostile import snapshot, user_files
from pydantic import BaseModel, Field, Strict

from readout_audit import RunSettings
from readout_audit._cli import main
from readout_audit._cli._fields import SETTINGS, settings_from, settings_options
from readout_audit._util import INT_MAX, THREADS_MAX
from readout_audit.kind import ModelChoice
from readout_audit.lift import CutSettings
from readout_audit.model import _gate

pytestmark = pytest.mark.cost(40)

HUGE = "9" * 400
HOSTILE = [HUGE, "-1", "0", "nan", "inf", "-inf", "1e308", "-1e308", "", "٣", "\x1b[2J"]
"""What every option is fed: 400 digits, the edges, non-finite and huge floats, nothing,
another script's digit and a terminal escape."""


def commands(
    group: click.Group = main, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every leaf command of the tree with the words that call it; a plug-in's command that
    another test module registered in this process (``audit toy``) is that test's to check."""
    ctx = click.Context(group, info_name="readout")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        elif getattr(command.callback, "__module__", "").startswith("readout_audit"):
            yield (*path, name), command


def models_of(command: click.Command) -> tuple[type[Any], ...]:
    return tuple(getattr(command.callback, SETTINGS, ()))


def flattened(model: type[Any]) -> Iterator[tuple[str, Any]]:
    """A model's fields, a nested settings model's (or one that may be None) in its place, as
    the options are; a nested one no command sets (``ModelChoice.served``) is a model itself."""
    for name, info in model.__pydantic_fields__.items():
        args = typing.get_args(info.annotation)
        kept = [a for a in args if a is not type(None)]
        inner = kept[0] if type(None) in args and len(kept) == 1 else info.annotation
        skipped = (info.json_schema_extra or {}).get("option", {}).get("skip")
        if isinstance(inner, type) and hasattr(inner, "__pydantic_fields__") and not skipped:
            yield from flattened(inner)
        else:
            yield name, info


def integer_parts(annotation: Any, metadata: list[Any]) -> Iterator[list[Any]]:
    """The constraints of every integer an annotation holds (a tuple's elements included)."""
    if annotation is int:
        yield metadata
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        found = [m for e in extra for m in getattr(e, "metadata", [e])]
        yield from integer_parts(base, found)
    for arg in typing.get_args(annotation):
        if typing.get_origin(annotation) is not typing.Annotated and arg is not type(None):
            yield from integer_parts(arg, metadata if arg is int else [])


ALL_MODELS = sorted(
    {model for _, command in commands() for model in models_of(command)}, key=lambda m: m.__name__
)


def test_every_command_with_generated_options_names_its_settings_models():
    names = {model.__name__ for model in ALL_MODELS}
    assert {"RunSettings", "ModelChoice", "CutRun", "SftRun", "RecoverRun"} <= names, names


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: m.__name__)
def test_every_integer_of_every_settings_model_is_bounded_and_strict(model):
    """Skipped fields too: a notebook sets them, and the manifest stores them. A mapping's
    values (``--panel DATASET=N``) are read from text by the model, so only bounded."""
    for name, info in flattened(model):
        for metadata in integer_parts(info.annotation, list(info.metadata)):
            highs = [getattr(m, "le", None) for m in metadata] + [
                getattr(m, "lt", None) for m in metadata
            ]
            assert any(h is not None and h <= INT_MAX + 1 for h in highs), (model, name)
            strict = any(isinstance(m, Strict) and m.strict for m in metadata)
            assert strict or typing.get_origin(_unwrap(info.annotation)) is dict, (model, name)


def option_values(option: click.Option) -> list[Any]:
    """Hostile values for one option, its own range's edges among them."""
    kind = getattr(option.type, "each", None) or option.type
    values: list[Any] = [10**400, -1, 0, math.nan, math.inf, 1e308]
    values += [True] if isinstance(kind, click.IntRange) else []
    low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    values += [v for v in (high, low) if v is not None]
    values += [high + 1] if isinstance(high, int) else []
    return values


def cli_text(value: Any) -> str:
    return str(value)


def option_refuses(option: click.Option, ctx: click.Context, value: Any) -> bool:
    try:
        option.type_cast_value(ctx, cli_text(value))
    except click.BadParameter:
        return True
    return False


BOUND_ERRORS = ("less than", "greater than", "valid integer", "finite number", "valid number")
"""What pydantic says of a value out of a field's bounds or type (not a check across fields)."""


def model_refusal(model: type[Any], dest: str, value: Any, parsed: dict[str, Any]) -> str:
    """Why the model refuses the parsed options with ``dest`` set to ``value`` ('': it takes it)."""
    try:
        settings_from(model, {**parsed, dest: value})
    except click.UsageError as error:
        return error.message
    return ""


NUMBER_TYPES = (click.IntRange, click.FloatRange)


@pytest.mark.parametrize(
    ("words", "command"), [c for c in commands() if models_of(c[1])], ids=lambda c: str(c)
)
def test_a_value_the_option_refuses_the_model_refuses_too(words, command, tmp_path):
    """Each numeric field's hostile values (bound + 1, -1, 0, 10^400, True, NaN, inf, 1e308):
    a value the option refuses the model refuses, and a value the model refuses for its bounds
    or type the option refuses, except where a command's own type is deliberately tighter at
    the bottom (recover's --n-perm, --n-boot, --probe-rows: a notebook may take fewer). A list
    of floats is checked whole by its model (a prior's count), so only integer lists are fed."""
    ctx = command.make_context("x", baseline(words, tmp_path), resilient_parsing=True)
    parsed = dict(ctx.params)
    for model in models_of(command):
        for name, info in flattened(model):
            options = [p for p in command.params if p.name == _dest(info, name)]
            if not options or not isinstance(options[0], click.Option):
                continue
            option = options[0]
            kind = getattr(option.type, "each", None) or option.type
            listed = getattr(option.type, "each", None) is not None
            if not isinstance(kind, NUMBER_TYPES) or (listed and option.type.kind is not int):
                continue
            for value in option_values(option):
                by_option = option_refuses(option, ctx, value)
                why = model_refusal(model, option.name, _as_field(option, value), parsed)
                tighter = option.name in ("n_perm", "n_boot", "probe_rows") and not why
                assert not by_option or why or tighter, (words, option.name, value)
                assert by_option or not any(e in why for e in BOUND_ERRORS), (words, value, why)


def _unwrap(annotation: Any) -> Any:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args[0] if typing.get_origin(annotation) is not dict and len(args) == 1 else annotation


def _dest(info: Any, name: str) -> str:
    extra = info.json_schema_extra or {}
    return extra.get("option", {}).get("dest") or name


def _as_field(option: click.Option, value: Any) -> Any:
    """The value as the model receives it: a tuple for a comma-separated list."""
    return (value,) if getattr(option.type, "each", None) is not None else value


class ModelLoad(Exception):
    """Raised where a model (or a served model's tokenizer) would load: the value was accepted."""


@pytest.fixture
def no_model(monkeypatch):
    """Loading any model is the sentinel (overriding the session model the suite hands out)."""

    def reached(*args: Any, **kwargs: Any) -> None:
        raise ModelLoad

    monkeypatch.setattr(_gate, "load_model", reached)
    monkeypatch.setattr(_gate, "load_served", reached)


ITEMS = '{"id": "q", "prompt": "2+2=", "options": [" 4", " 5"], "target": " 4"}\n'


def fixtures(tmp: Path) -> dict[str, Path]:
    """The small files a minimal invocation reads; none of them valid beyond what parsing needs."""
    tmp.mkdir(parents=True, exist_ok=True)
    items = tmp / "items.jsonl"
    items.write_text(ITEMS)
    empty = tmp / "empty.jsonl"
    empty.write_text("")
    run = tmp / "run"
    run.mkdir(exist_ok=True)
    return {"items": items, "empty": empty, "run": run}


def baseline(words: tuple[str, ...], tmp: Path) -> list[str]:
    """A minimal valid invocation of a command, ``--out`` a folder that does not exist yet.

    Commands that read a run read an empty folder: they refuse it in one line after parsing,
    which is all the walk needs (a value that passed parsing was accepted).
    """
    f = fixtures(tmp / "in")
    out, run, items, empty = str(tmp / "out"), str(f["run"]), str(f["items"]), str(f["empty"])
    served = "openai:http://127.0.0.1:9/v1#m"
    minimal: dict[tuple[str, ...], list[str]] = {
        ("audit", "lm-eval"): ["--samples", run, "--out", out],
        ("audit", "options"): ["--items", items, "--out", out],
        ("audit", "ptrue"): ["--items", items, "--out", out],
        ("audit", "recover"): [*GENERATED, "--out", out],
        ("audit", "yesno"): ["--out", out],
        ("compare",): [run, run],
        ("conformance",): ["--model", served, "--out", out],
        ("demo",): [],
        ("export",): [run],
        ("judge", "analyze"): [run, "--out", out],
        ("judge", "build"): ["--configuration", "a=FINAL3@smollm2-135m", "--out", out],
        ("judge", "propose"): ["--out", out],
        ("judge", "report"): [run],
        ("judge", "run"): [empty, "--out", out, "--phase", "preflight"],
        ("judge", "search"): [out, "--programme", "screen", "--configuration", "a=FINAL3@x"],
        ("ledger",): [run],
        ("lift", "cut"): [run, "--out", str(tmp / "cuts.jsonl")],
        ("lift", "example"): [run],
        ("lift", "predict"): ["--cuts", empty, "--out", str(tmp / "f.jsonl")],
        ("lift", "report"): [run],
        ("lift", "score"): ["--cuts", empty, "--out", out],
        ("lift", "sft"): ["--cuts", empty, "--out", out],
        ("lift", "toy"): [],
        ("report",): [run],
        ("score",): ["--items", items, "--out", out],
        ("table",): [run],
    }
    return minimal[words]


GENERATED = ["--generate", "controlled-logic", "--n", "4", "--train-n", "8"]
"""Recover's smallest generated items."""


def one_line_refusal(result: Any) -> None:
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1, result.output
    assert "Traceback" not in result.output and "\x1b" not in result.output, result.output


@pytest.mark.usefixtures("no_model")
def test_every_option_of_every_command_refuses_hostile_values_in_one_line(tmp_path, monkeypatch):
    """Refused: exit 2, one ``Error:`` line, no traceback, nothing written. Accepted: the model
    load is reached, the command ends cleanly, or it refuses its (minimal) input in one line
    after parsing. A flag takes no value and is not fed."""
    runner = CliRunner()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)  # a relative path given as a value lands here, never in the repo
    walked, problems = 0, []
    for words, command in commands():
        for option in command.params:
            if not isinstance(option, click.Option) or option.is_flag or option.name == "help":
                continue
            for value in HOSTILE:
                work, walked = tmp_path / "work", walked + 1
                args = [*words, *baseline(words, work), option.opts[0], value]
                before = snapshot(tmp_path)
                result = runner.invoke(main, args)
                where = (" ".join(words), option.opts[0], value)
                if not isinstance(result.exception, SystemExit | ModelLoad | None):
                    problems.append((*where, repr(result.exception)))
                elif result.exit_code == 2 and snapshot(tmp_path) != before:
                    problems.append((*where, "wrote files"))
                elif result.exit_code in (1, 2) and not isinstance(result.exception, ModelLoad):
                    try:
                        one_line_refusal(result)
                    except AssertionError:
                        problems.append((*where, result.output))
                shutil.rmtree(work)
                for made in cwd.iterdir():  # a value taken as a relative path
                    shutil.rmtree(made) if made.is_dir() else made.unlink()
    assert not problems, "\n".join(map(repr, problems))
    assert walked > 4000  # the walk found the tree: some 450 options, each fed every value


# -- the reproductions, each built here -------------------------------------------------


def refused_naming(args: list[str], option: str, folder: Path) -> str:
    """Run ``args``: one ``Error:`` line naming ``option``, exit 2, ``folder`` byte-identical."""
    before = snapshot(folder)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    one_line_refusal(result)
    error = next(line for line in result.output.splitlines() if line.startswith("Error"))
    assert option in error, error
    assert snapshot(folder) == before
    assert not list(folder.rglob("manifest.json")) or all(
        json.loads(p.read_text()) for p in folder.rglob("manifest.json")
    )
    return error


@pytest.fixture
def mine(tmp_path):
    """A folder of the user's own files and a tiny items file among them."""
    folder = user_files(tmp_path / "mine")
    (folder / "items.jsonl").write_text(ITEMS)
    return folder


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(
    ("words", "option", "value"),
    [
        (["score", "--items", "{items}", "--out", "{out}"], "--top-k", HUGE),
        (["lift", "cut", "{tex}", "--out", "{out}.jsonl"], "--per-paper", HUGE),
        (["lift", "cut", "{tex}", "--out", "{out}.jsonl"], "--max-target", HUGE),
        (["lift", "sft", "--cuts", "{items}", "--out", "{out}"], "--checkpoint-every", HUGE),
    ],
)
def test_point_3_a_stored_integer_past_int64_is_refused(mine, words, option, value):
    tex = Path(__file__).parent / "fixtures" / "tex"
    fill = {"items": str(mine / "items.jsonl"), "out": str(mine / "new"), "tex": str(tex)}
    args = [w.format(**fill) for w in words]
    error = refused_naming([*args, option, value], option, mine)
    assert "2^63" in error or "<=1048576" in error  # top-k: at most 2^20, past any vocabulary
    assert not (mine / "new").exists()


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(
    ("words", "option", "value"),
    [
        (["lift", "score", "--cuts", "{items}", "--out", "{out}"], "--multipliers", f"1,{HUGE}"),
        (["audit", "yesno", "--out", "{out}"], "--legacy-ids", f"1,{HUGE}"),
        (["audit", "yesno", "--out", "{out}"], "--legacy-set", f"1,2:{HUGE}"),
        (["audit", "recover", "--out", "{out}"], "--layers", f"1,{HUGE}"),
        (["audit", "recover", "--out", "{out}"], "--probe-seeds", f"{HUGE},1"),
        (["audit", "recover", "--out", "{out}"], "--layers", "1,٣"),
    ],
)
def test_point_7_a_comma_list_is_range_checked_as_it_is_parsed(mine, words, option, value):
    fill = {"items": str(mine / "items.jsonl"), "out": str(mine / "new")}
    refused_naming([*[w.format(**fill) for w in words], option, value], option, mine)
    assert not (mine / "new").exists()


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize(
    ("words", "option", "value"),
    [
        (["score", "--items", "{items}", "--out", "{out}"], "--threads", str(THREADS_MAX + 1)),
        (["score", "--items", "{items}", "--out", "{out}"], "--threads", HUGE),
        (["conformance", "--model", "smollm2-135m", "--out", "{out}"], "--threads", HUGE),
        (["lift", "sft", "--cuts", "{items}", "--out", "{out}"], "--alpha", HUGE),
        (["lift", "sft", "--cuts", "{items}", "--out", "{out}"], "--alpha", "1e309"),
        (["lift", "sft", "--cuts", "{items}", "--out", "{out}"], "--rank", str(10**12)),
    ],
)
def test_point_8_numbers_knowable_before_loading_are_refused_before_it(mine, words, option, value):
    fill = {"items": str(mine / "items.jsonl"), "out": str(mine / "new")}
    refused_naming([*[w.format(**fill) for w in words], option, value], option, mine)
    assert not (mine / "new").exists()


@pytest.mark.usefixtures("no_model")
@pytest.mark.parametrize("grid", ["-1e308,1e308,1", "0,1e308,1e-300"])
def test_point_9_a_grid_whose_span_overflows_is_refused(mine, grid):
    args = ["audit", "recover", *GENERATED]
    error = refused_naming([*args, f"--grid={grid}", "--out", str(mine / "new")], "grid", mine)
    assert "finite span" in error


def test_point_10_a_judge_limit_past_int64_is_refused(mine):
    args = ["judge", "build", "--configuration", "a=FINAL3@smollm2-135m"]
    args += ["--out", str(mine / "new"), "--limit", HUGE]
    refused_naming(args, "--limit", mine)
    assert not (mine / "new").exists()


@pytest.mark.parametrize(
    "build",
    [
        lambda: RunSettings(top_k=True),
        lambda: RunSettings(top_k=10**400),
        lambda: RunSettings(batch_size=1.0),
        lambda: CutSettings(per_paper=10**400),
        lambda: ModelChoice(threads=10**400),
        lambda: ModelChoice(threads=THREADS_MAX + 1),
        lambda: ModelChoice(cache_budget_mb=INT_MAX),
    ],
)
def test_point_16_the_python_api_refuses_a_bool_or_an_unbounded_integer(build):
    with pytest.raises(ValueError, match=r"valid integer|less than or equal"):
        build()


def test_the_option_generator_refuses_an_unbounded_or_lax_integer_at_decoration():
    class Unbounded(BaseModel):
        count: int = Field(default=1, ge=1, strict=True)

    class Lax(BaseModel):
        count: int = Field(default=1, ge=1, le=9)

    class UnboundedList(BaseModel):
        counts: tuple[typing.Annotated[int, Field(ge=0, strict=True)], ...] = (1,)

    for model in (Unbounded, Lax, UnboundedList):
        with pytest.raises(TypeError, match="upper bound"):
            settings_options(model)
    with pytest.raises(TypeError, match="upper bound"):
        settings_options(Unbounded, types_={"count": click.IntRange(1)})


def test_a_bounded_list_element_is_checked_by_the_option_not_only_the_model():
    class Bounded(BaseModel):
        counts: tuple[typing.Annotated[int, Field(ge=0, le=9, strict=True)], ...] = (1,)

    @click.command()
    @settings_options(Bounded)
    def command(**given: Any) -> None:
        settings_from(Bounded, given)

    assert CliRunner().invoke(command, ["--counts", "1,9"]).exit_code == 0
    for bad in ("1,10", "-1", HUGE, "nan", "٣"):
        result = CliRunner().invoke(command, ["--counts", bad])
        assert result.exit_code == 2 and "--counts" in result.output, (bad, result.output)
