"""Typed settings built from a command's options: a bad value is one error naming its option."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util import validation_problem

M = TypeVar("M", bound=BaseModel)


def build_settings(model: type[M], **fields: Any) -> M:
    """``model`` of ``fields``, or an ``InputError`` naming the first field wrong as an option.

    The field is named as its option is spelled (``learning-rate``).
    """
    try:
        return model.model_validate(fields)
    except ValidationError as error:
        field, message = validation_problem(error)
        option = (field or "").rpartition(".")[2].replace("_", "-")
        raise InputError(message, field=option or None) from None
