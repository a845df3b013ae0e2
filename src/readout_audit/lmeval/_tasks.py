"""lm-evaluation-harness tasks' requests, built by lm-eval's own task code."""

from __future__ import annotations

import difflib
import functools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from readout_audit._exceptions import InputError, ReadoutError
from readout_audit._util import INT_MAX, Seed, hub_hint, option_hint
from readout_audit.lmeval._doc import LMEvalDoc, choices_problem
from readout_audit.lmeval._folder import task_folder_files
from readout_audit.lmeval._hub import from_hub, hub_access
from readout_audit.model import TextCodec

INSTALL = "pip install 'readout-audit[lm-eval]'"
DEFAULT_FEWSHOT_SEED = 1234
"""lm-eval's own default seed of the few-shot sampler (``--fewshot_seed``)."""
SCORED_TYPES = ("multiple_choice", "loglikelihood")


class MissingExtraError(ReadoutError):
    """An optional dependency the command needs is not installed."""


def require_lm_eval() -> Any:
    """The ``lm_eval`` module, or an error saying how to install it."""
    try:
        import lm_eval
        from lm_eval.tasks import TaskManager  # noqa: F401  (the part this package uses)
    except ImportError:
        raise MissingExtraError(
            f"auditing lm-evaluation-harness tasks needs lm-eval: {INSTALL}"
        ) from None
    return lm_eval


class TaskOptions(BaseModel):
    """lm-eval's own prompt options, with its defaults (each option also spelled as lm-eval's).

    A logged run's audit reads only ``tasks`` and ``limit``, to pick its samples; building
    tasks takes :class:`TaskSettings`, which names at least one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    tasks: tuple[str, ...] = ()
    """lm-eval task, group or tag names, comma-separated."""

    @field_validator("tasks")
    @classmethod
    def _no_blank_name(cls, tasks: tuple[str, ...]) -> tuple[str, ...]:
        """A blank name names no task (the CLI drops the empty parts of its comma list)."""
        if any(not name.strip() for name in tasks):
            raise ValueError(f"a task name is blank in {list(tasks)!r}")
        return tasks

    include_path: Path | None = None
    """A folder of task YAML files (lm-eval's --include_path)."""
    num_fewshot: int | None = Field(default=None, ge=0, le=INT_MAX, strict=True)
    """lm-eval's --num_fewshot."""
    apply_chat_template: bool = False
    """lm-eval's --apply_chat_template."""
    fewshot_as_multiturn: bool = False
    """lm-eval's --fewshot_as_multiturn."""
    system_instruction: str | None = None
    """lm-eval's --system_instruction."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N documents of each task (lm-eval's --limit)."""
    fewshot_seed: Seed = DEFAULT_FEWSHOT_SEED
    """Seed of the few-shot sampler (lm-eval's --fewshot_seed)."""
    allow_download: bool = Field(default=False, json_schema_extra=option_hint(skip=True))
    """Let lm-eval's tasks download their data sets from the Hugging Face Hub."""

    def config(self) -> dict[str, Any]:
        """The settings as the run manifest records them."""
        return self.model_dump(mode="json")


class TaskSettings(TaskOptions):
    """The lm-eval tasks to build (at least one named) and lm-eval's prompt options."""

    @model_validator(mode="after")
    def _named(self) -> TaskSettings:
        if not self.tasks:
            raise ValueError("name at least one lm-eval task, group or tag in tasks")
        return self

    def check(self) -> list[Path]:
        """Refuse contradictory settings and unusable task files before anything loads.

        Returns the files of ``include_path`` that lm-eval reads (see :func:`task_folder_files`).
        """
        if self.fewshot_as_multiturn and not self.apply_chat_template:
            raise InputError(
                "--fewshot-as-multiturn needs --apply-chat-template (as in lm-eval)",
                field="fewshot_as_multiturn",
            )
        if self.include_path is None:
            return []
        if not self.include_path.is_dir():
            raise InputError("not a folder of task YAML files", source=str(self.include_path))
        return task_folder_files(self.include_path)


def chat_renderer(
    codec: TextCodec, template_kwargs: Mapping[str, Any] | None = None
) -> Callable[..., str]:
    """lm-eval's ``apply_chat_template`` on this model's template (``chat_template_args``).

    Like lm-eval's HFLM, a template that refuses a system turn is applied again without it.
    """
    import jinja2

    kwargs = dict(template_kwargs or {})

    def render(history: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True) -> str:
        try:
            return codec.render_chat(history, kwargs, generation_prompt=add_generation_prompt)
        except jinja2.exceptions.TemplateError:
            kept = [m for m in history if m.get("role") != "system"]
            return codec.render_chat(kept, kwargs, generation_prompt=add_generation_prompt)

    return render


@functools.lru_cache(maxsize=1)
def _default_manager() -> Any:
    """lm-eval's index of its own task YAMLs: built once per process (seconds: ~14,000 files)."""
    from lm_eval.tasks import TaskManager

    return TaskManager()


def _managers(include_path: Path | None) -> Iterator[tuple[Any, bool]]:
    """Task managers to try in turn, each with whether another follows it.

    The local folder alone (no scan of lm-eval's ~14,000 task files), then the local folder
    beside lm-eval's own tasks; without a local folder, lm-eval's own alone.
    """
    from lm_eval.tasks import TaskManager

    if include_path:
        yield TaskManager(include_path=str(include_path), include_defaults=False), True
        yield TaskManager(include_path=str(include_path)), False
    else:
        yield _default_manager(), False


def _loaded(settings: TaskSettings) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """lm-eval's tasks by name, the group each belongs to, and the YAML file of each.

    Tasks found in ``include_path`` alone are loaded without indexing lm-eval's own tasks; a
    local task that names one of them (a group over built-in tasks) falls back to both.
    """
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    missing: list[str] = []
    known: list[str] = []
    for manager, more in _managers(settings.include_path):
        known = list(manager.all_tasks)
        missing = [name for name in settings.tasks if not manager.match_tasks([name])]
        if missing:
            continue
        try:
            loaded = manager.load(list(settings.tasks))
        except (KeyError, ValueError):
            if more:
                continue
            raise
        groups = {c: group for group, children in loaded["group_map"].items() for c in children}
        entries = {name: manager.task_index.get(name) for name in loaded["tasks"]}
        files = {n: str(e.yaml_path) for n, e in entries.items() if e and e.yaml_path}
        return loaded["tasks"], groups, files
    close = difflib.get_close_matches(missing[0], known, n=3)
    raise InputError(
        f"lm-eval knows no task, group or tag {missing[0]!r}"
        + (f"; did you mean {' or '.join(map(repr, close))}?" if close else "")
        + ("" if settings.include_path else " (a local task YAML needs --include-path)"),
        field="tasks",
    )


def task_documents(
    settings: TaskSettings,
    codec: TextCodec | None,
    template_kwargs: Mapping[str, Any] | None = None,
) -> list[LMEvalDoc]:
    """Every scored document of the tasks, with lm-eval's own contexts and continuations.

    As ``lm_eval.simple_evaluate`` prepares them: ``num_fewshot`` overrides a task's default
    unless the task fixes 0, the few-shot sampler is seeded with ``fewshot_seed``, and the chat
    template (``codec``'s) renders the turns when ``apply_chat_template`` is set.
    """
    settings.check()
    require_lm_eval()
    if settings.apply_chat_template and (codec is None or codec.chat_template is None):
        raise InputError(
            "--apply-chat-template needs a model with a chat template", field="apply_chat_template"
        )
    with hub_access(settings.allow_download):
        try:
            tasks, groups, files = _loaded(settings)
            docs: list[LMEvalDoc] = []
            for name, task in tasks.items():
                chat = chat_renderer(codec, template_kwargs) if codec is not None else None
                built = _documents(name, task, groups.get(name), settings, chat)
                docs += [_checked(doc, files.get(name)) for doc in built]
        except (InputError, MissingExtraError):
            raise
        except Exception as error:  # lm-eval and datasets raise many kinds for a bad task
            _refuse_first_gold(error)
            hint = f" ({hub_hint(settings.allow_download)})" if from_hub(error) else ""
            shown = ", ".join(repr(name) for name in settings.tasks)
            raise InputError(
                f"lm-eval could not build {shown}{hint}: {' '.join(str(error).split())}",
                source=None if settings.include_path is None else str(settings.include_path),
                field="tasks",
            ) from None
    return docs


def _checked(doc: LMEvalDoc, source: str | None) -> LMEvalDoc:
    """The document, if its choices can be read as distinct options (see ``choices_problem``)."""
    choice = doc.output_type == "multiple_choice"
    problem = choices_problem(doc.choices if choice else doc.continuations)
    if problem is not None:
        field = "doc_to_choice" if choice else "doc_to_target"
        raise InputError(problem, source=source, item_id=doc.item_id, field=field)
    return doc


def _documents(
    name: str,
    task: Any,
    group: str | None,
    settings: TaskSettings,
    chat: Callable[..., str] | None,
) -> list[LMEvalDoc]:
    output_type = task.get_config("output_type")
    if output_type not in SCORED_TYPES:
        raise InputError(
            f"task {name!r} is a {output_type} task; only {' and '.join(SCORED_TYPES)} tasks "
            "read a score at a position",
            field="tasks",
        )
    if settings.num_fewshot is not None:
        if task.get_config("num_fewshot") != 0:
            task.set_config(key="num_fewshot", value=settings.num_fewshot)
    elif task.get_config("num_fewshot") is None:
        task.set_config(key="num_fewshot", value=0)
    task.set_fewshot_seed(seed=settings.fewshot_seed)
    try:
        task.build_all_requests(
            limit=settings.limit,
            rank=0,
            world_size=1,
            system_instruction=settings.system_instruction,
            apply_chat_template=settings.apply_chat_template,
            fewshot_as_multiturn=settings.fewshot_as_multiturn,
            chat_template=chat if settings.apply_chat_template else None,
        )
    except IndexError:  # lm-eval indexes a few-shot example's choices by its gold
        if output_type == "multiple_choice":
            _refuse_gold(name, task)
        raise
    by_doc: dict[int, list[Any]] = {}
    for instance in task.instances:
        by_doc.setdefault(instance.doc_id, []).append(instance)
    # a document whose doc_to_choice is empty gets no requests from lm-eval
    return [
        _document(name, group, task, doc_id, doc, by_doc.get(doc_id, []), output_type)
        for doc_id, doc in task.doc_iterator(rank=0, limit=settings.limit, world_size=1)
    ]


def _document(
    name: str,
    group: str | None,
    task: Any,
    doc_id: int,
    doc: Any,
    instances: list[Any],
    output_type: str,
) -> LMEvalDoc:
    pairs = [tuple(i.args[:2]) for i in sorted(instances, key=lambda i: i.idx)]
    if output_type == "loglikelihood":
        ((context, continuation),) = pairs
        return LMEvalDoc(
            task=name,
            group=group,
            doc_id=doc_id,
            output_type="loglikelihood",
            context=context,
            continuations=(continuation,),
            choices=(continuation,),
            gold=(0,),
        )
    choices = tuple(str(c) for c in task.doc_to_choice(doc))
    pairs = pairs[: len(choices)]  # acc_mutual_info's unconditional requests are not a readout
    contexts = {context for context, _ in pairs}
    if len(contexts) > 1:
        raise InputError(
            f"task {name!r} varies the context per choice (multiple inputs); its readout is "
            "not one position",
            field="tasks",
        )
    return LMEvalDoc(
        task=name,
        group=group,
        doc_id=doc_id,
        context=pairs[0][0] if pairs else "",
        continuations=tuple(c for _, c in pairs),
        choices=choices,
        gold=_gold(f"{name}/{doc_id}", task.doc_to_target(doc), choices),
    )


def _gold(item_id: str, target: Any, choices: Sequence[str]) -> tuple[int, ...]:
    """lm-eval's gold indices of the document ``item_id``: an index, a list of them, or a text.

    One that names none of its choices is refused, naming the document (one without choices is
    refused by its own check, ``choices_problem``).
    """
    if not choices:
        return ()
    targets = target if isinstance(target, list) else [target]
    found = []
    for value in targets:
        index = choices.index(value) if isinstance(value, str) and value in choices else value
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(choices):
            raise InputError(
                f"the gold {repr(value)[:40]} names none of the document's {len(choices)} "
                "choices (an index from 0, or a choice's text)",
                item_id=item_id,
                field="doc_to_target",
            )
        found.append(index)
    return tuple(found)


def _refuse_first_gold(error: Exception) -> None:
    """Name the document when lm-eval's own check of a task's first one failed on its gold.

    lm-eval reads the first evaluation document as it builds a task and indexes its choices
    with its gold (``test_choice[test_target]``): an index past them is an ``IndexError`` there,
    refused here as the same document's gold would be later (:func:`_gold`).
    """
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    found = {} if trace is None else trace.tb_frame.f_locals
    if isinstance(error, IndexError) and {"self", "test_target", "test_choice"} <= found.keys():
        name = getattr(getattr(found["self"], "config", None), "task", None) or "task"
        _gold(f"{name}/0", found["test_target"], [str(c) for c in found["test_choice"]])


def _refuse_gold(name: str, task: Any) -> None:
    """Refuse the first document, few-shot examples first, whose gold names none of its choices."""
    for split, docs in (("few-shot ", task.fewshot_docs() or []), ("", task.eval_docs)):
        for doc_id, doc in enumerate(docs):
            choices = [str(c) for c in task.doc_to_choice(doc)]
            _gold(f"{name}/{split}{doc_id}", task.doc_to_target(doc), choices)
