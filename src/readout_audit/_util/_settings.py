"""Settings a notebook builds by hand: a refused value is one ``InputError`` naming its field.

A settings model validated inside another (or by ``model_validate``) keeps pydantic's located
errors; built directly, it raises the project's error, as a command's bad option does.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from readout_audit._exceptions import InputError
from readout_audit._util._models import validation_problem


class CheckedSettings(BaseModel):
    """Frozen, closed, finite settings whose refusals name the field.

    With ``option_spelling`` the field is named as its option is spelled (``n-boot``).
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
    )
    option_spelling: ClassVar[bool] = False
    what: ClassVar[str | None] = None
    """What the error's ``source`` names (``cost cap``), if anything."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            field, message = validation_problem(error)
            if field and self.option_spelling:
                field = field.replace("_", "-")
            raise InputError(message, source=self.what, field=field) from None

    # pydantic's own mark of an ``__init__`` its validation need not call
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
