"""Options generated from typed settings: type, bounds, default, help and errors from the field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import click
import pytest
from click.testing import CliRunner
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from readout_audit._cli._fields import option_keywords, settings_from, settings_options
from readout_audit._util import INT_MAX, OneOf, Seed, option_hint
from readout_audit.model import ServedSettings
from readout_audit.serve import CostCap


class Inner(BaseModel):
    """A nested settings model: its fields become options beside the outer model's."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    rank: int = Field(default=4, ge=1, le=64, strict=True)
    """The ``rank`` of the thing."""
    names: tuple[str, ...] = ("a", "b")
    """Comma-separated names."""

    @field_validator("names")
    @classmethod
    def _distinct(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(names)) != len(names):
            raise ValueError("a name is given twice")
        return names


class Outer(BaseModel):
    """Every kind of field a command's settings hold."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    source: str = Field(json_schema_extra=option_hint("--items", dest="items_source"))
    """Where the items are."""
    out: Path = Field(json_schema_extra=option_hint(path="dir"))
    share: float = Field(default=0.5, gt=0, lt=1)
    """A share."""
    mode: Literal["fast", "slow"] = "fast"
    check: bool = False
    reader: bool | None = None
    extend: bool = True
    forms: tuple[str, ...] = Field(default=(), json_schema_extra=option_hint(repeat=True))
    seed: Seed = 0
    limit: int | None = Field(default=None, gt=0, le=INT_MAX, strict=True)
    hidden: str = Field(default="x", json_schema_extra=option_hint(skip=True))
    inner: Inner = Field(default_factory=Inner)


def _parse(*args: str, **fixed: Any) -> tuple[int, str, Outer | None]:
    """Run a command taking ``Outer``'s options; its exit code, output and parsed settings."""
    seen: list[Outer] = []

    @click.command()
    @settings_options(Outer)
    def command(**given: Any) -> None:
        seen.append(settings_from(Outer, given, **fixed))

    result = CliRunner().invoke(command, list(args))
    return result.exit_code, result.output, seen[0] if seen else None


def test_the_defaults_are_the_fields_and_the_values_typed(tmp_path: Path) -> None:
    code, output, settings = _parse("--items", "x.jsonl", "--out", str(tmp_path))
    assert code == 0, output
    assert settings == Outer(source="x.jsonl", out=tmp_path)
    code, output, settings = _parse(
        "--items", "s", "--out", "o", "--share", "0.25", "--mode", "slow", "--check",
        "--no-reader", "--no-extend", "--forms", " yes", "--forms", "Yes", "--seed", "7",
        "--limit", "3", "--rank", "9", "--names", "p, q",
    )  # fmt: skip
    assert code == 0, output
    assert settings == Outer(
        source="s", out=Path("o"), share=0.25, mode="slow", check=True, reader=False,
        extend=False, forms=(" yes", "Yes"), seed=7, limit=3, inner=Inner(rank=9, names=("p", "q")),
    )  # fmt: skip


def test_bounds_and_choices_are_refused_by_the_option_before_the_command_runs() -> None:
    for bad in (
        ("--share", "1"),
        ("--share", "0"),
        ("--share", "nan"),
        ("--limit", "0"),
        ("--seed", "-1"),
        ("--seed", str(1 << 63)),
        ("--rank", "0"),
        ("--mode", "medium"),
    ):
        code, output, settings = _parse("--items", "s", "--out", "o", *bad)
        assert code == 2 and settings is None, bad
        assert bad[0] in output, output
    code, output, _ = _parse("--out", "o")
    assert code == 2 and "--items" in output


def test_a_value_the_model_refuses_is_a_usage_error_naming_its_option() -> None:
    code, output, settings = _parse("--items", "s", "--out", "o", "--names", "a,a")
    assert code == 2 and settings is None
    assert "--names" in output and "a name is given twice" in output


def test_help_is_the_fields_docstring_with_its_default_and_skipped_fields_have_no_option() -> None:
    @click.command()
    @settings_options(Outer)
    def command(**given: Any) -> None: ...

    text = " ".join(CliRunner().invoke(command, ["--help"]).output.split())
    assert "--items TEXT Where the items are." in text
    assert "The rank of the thing. [default: 4; 1<=x<=64]" in text  # reST literal shown plain
    assert "Comma-separated names. [default: a,b]" in text
    assert "--reader / --no-reader" in text and "--extend / --no-extend" in text
    assert "--out DIRECTORY" in text
    assert "--hidden" not in text
    code, _, settings = _parse("--items", "s", "--out", "o", hidden="fixed")
    assert code == 0 and settings is not None and settings.hidden == "fixed"


class Sources(BaseModel):
    """Two models of one command may not both declare a field of one name."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    allow_download: bool = False
    """Let the datasets download."""
    generate: Annotated[str, OneOf(lambda: ["alpha", "beta"])] | None = None
    """A registry's name."""


class Judge(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_download: bool = False
    rank: int = Field(default=4, ge=1, le=64, strict=True)


def test_two_models_declaring_one_option_are_refused_when_the_command_is_built() -> None:
    def command(**given: Any) -> None: ...

    with pytest.raises(TypeError, match="--allow-download, keyword allow_download declared by two"):
        settings_options(Sources)(settings_options(Judge)(command))


def test_a_skipped_field_is_never_filled_from_another_models_option() -> None:
    seen: list[Judge] = []

    @click.command()
    @settings_options(Sources)
    @settings_options(Judge, skip=("allow_download",))
    def command(**given: Any) -> None:
        seen.append(settings_from(Judge, given))
        seen.append(settings_from(Judge, given, allow_download=given["allow_download"]))

    result = CliRunner().invoke(command, ["--allow-download", "--rank", "8"])
    assert result.exit_code == 0, result.output
    assert [(j.allow_download, j.rank) for j in seen] == [(False, 8), (True, 8)]


def test_a_registrys_names_are_the_fields_choices_in_a_notebook_and_on_the_command_line() -> None:
    assert Sources(generate="beta").generate == "beta"
    with pytest.raises(ValidationError, match="'gamma' is none of alpha, beta"):
        Sources(generate="gamma")

    @click.command()
    @settings_options(Sources)
    def command(**given: Any) -> None:
        settings_from(Sources, given)

    result = CliRunner().invoke(command, ["--generate", "gamma"])
    assert result.exit_code == 2 and "'gamma' is not one of 'alpha', 'beta'" in result.output


def test_no_two_options_of_any_command_share_a_name_or_a_keyword() -> None:
    from readout_audit._cli import main
    from readout_audit._cli._fields import refuse_shared_names

    def walk(command: click.Command) -> None:
        refuse_shared_names(command.params)
        if isinstance(command, click.Group):
            context = click.Context(command)
            for name in command.list_commands(context):
                found = command.get_command(context, name)
                assert found is not None
                walk(found)

    walk(main)


class Capped(BaseModel):
    """A model holding an optional nested one, as ``ServedSettings`` holds its ``CostCap``."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    device: str = Field(default="cpu", json_schema_extra=option_hint(read_by="local"))
    inner: Inner | None = Field(default=None, json_schema_extra=option_hint(read_by="served"))

    @field_validator("inner")
    @classmethod
    def _ranked(cls, inner: Inner | None) -> Inner | None:
        return inner if inner is not None and inner.rank != 4 else None


def test_an_optional_nested_model_flattens_and_names_its_readers() -> None:
    seen: list[Capped] = []

    @click.command()
    @settings_options(Capped)
    def command(**given: Any) -> None:
        seen.append(settings_from(Capped, given))

    assert [p.name for p in command.params] == ["device", "rank", "names"]
    assert CliRunner().invoke(command, []).exit_code == 0
    assert CliRunner().invoke(command, ["--rank", "9"]).exit_code == 0
    assert seen == [Capped(), Capped(inner=Inner(rank=9))]
    refused = CliRunner().invoke(command, ["--names", "a,a"])
    assert refused.exit_code == 2 and "--names: " in refused.output  # inside the optional model
    assert option_keywords(Capped, "served") == {"rank", "names"}
    assert option_keywords(Capped, "local") == {"device"}
    assert option_keywords(Capped) == {"device", "rank", "names"}


def test_the_served_settings_are_the_served_options_and_cap_nothing_without_a_limit() -> None:
    @click.command()
    @settings_options(ServedSettings)
    def command(**given: Any) -> None:
        click.echo(repr(settings_from(ServedSettings, given).cap))

    names = [p.name for p in command.params]
    assert {"request_timeout", "chat_api", "max_spend_tokens", "max_spend_usd"} <= set(names)
    assert "top_logprobs" not in names and "headers" not in names
    assert CliRunner().invoke(command, ["--usd-per-mtok-prompt", "2"]).output == "None\n"
    capped = CliRunner().invoke(command, ["--max-spend-tokens", "5"]).output
    assert capped.startswith("CostCap(max_tokens=5")
    assert ServedSettings().cap is None and ServedSettings(cap=CostCap()).cap is None
