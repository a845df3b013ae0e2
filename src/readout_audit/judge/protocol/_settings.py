"""Typed settings from loose values: a bad value is an input error naming its field."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util import validation_problem

S = TypeVar("S", bound=BaseModel)


def make_settings(model: type[S], **values: Any) -> S:
    """``model`` built from ``values``; the first problem raised as an error naming its field.

    Field names are given as options are spelled (``per_dataset`` as ``per-dataset``).
    """
    try:
        return model.model_validate(values)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(
            message, field=None if field is None else field.replace("_", "-")
        ) from None
