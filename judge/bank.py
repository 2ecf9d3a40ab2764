"""tasks.yaml -> typed Task objects.

Every error names the file, the task and the field, and suggests the closest known
name for a misspelt one.  Argument specs and check settings are parsed by the modules
that own them (``specs``, ``checks``); this module only knows the shape of a task.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, cast

import yaml

from .limits import Limits
from .memo import memo_hidden_paths

BANK_ENV = "JUDGE_BANK"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 7x faster
# A bank is parsed before anyone can look at it: bounded however it is written (an
# alias bomb expands each alias again wherever the tree is walked).
MAX_BANK_BYTES = 8 << 20
MAX_NODES = 500_000  # of the whole file, every alias expanded
MAX_DEPTH = 64
# What a learner may have of each task (the wheel ships these and tasks.yaml, see
# hatch_build.py); everything else in a bank (reference/, tasks/<id>/known/, the memo)
# is the grader's only.
PUBLIC_TASK_FILES = ("statement.md", "starter.py", "hints.md")
TASK_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DIFFICULTIES = ("easy", "medium", "hard")
# A check's `visibility`: who sees its result on Gradescope, and when (Gradescope's own
# words), from least to most withheld
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


class BankError(Exception):
    """A bank that cannot be used; the message names the file, task and field."""

    def __init__(
        self, file: str | Path, message: str, task: str | None = None, field: str | None = None
    ):
        self.file, self.task, self.field, self.detail = str(file), task, field, message
        where = self.file
        if task:
            where += f": task '{task}'"
        if field:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")


class PublicBankOnly(BankError):
    """A bank without its reference solutions (the wheel a learner installs carries only
    the public part): it can show, list and hint its tasks, never grade them."""

    def __init__(self, root: Path):
        shipped = Path(root).resolve() == (Path(__file__).resolve().parent / "_bank")
        holder = "this install holds" if shipped else f"{root} holds"
        super().__init__(root / "reference", "no reference solutions")
        self.args = (
            f"{holder} the public bank only (statements, starters, hints; no "
            "reference solutions), so it cannot grade: grade against the course's "
            "server with JUDGE_SERVER=URL or check(..., server=URL), or pass --bank "
            "DIR with the full bank (tasks.yaml, tasks/ and reference/)",
        )


class UnknownTask(Exception):
    def __init__(self, task_id: str, known: list[str]):
        self.task_id = task_id
        self.closest = difflib.get_close_matches(task_id, known, n=3, cutoff=0.4)
        hint = f" Did you mean: {', '.join(self.closest)}?" if self.closest else ""
        super().__init__(f"unknown task '{task_id}'.{hint} ('judge list' shows all tasks)")


class FieldReader:
    """Reads one mapping of tasks.yaml; knows where it is, so errors can say so."""

    def __init__(self, data: Any, file: Path, task: str | None, path: str):
        self.file, self.task, self.path = file, task, path
        if not isinstance(data, dict):
            self.fail(f"expected a mapping, got {_kind(data)}")
        self.data = data

    def fail(self, message: str, key: str | None = None) -> NoReturn:
        raise BankError(self.file, message, self.task, self._at(key))

    def _at(self, key: str | None) -> str | None:
        if key is None:
            return self.path or None
        return f"{self.path}.{key}" if self.path else key

    def child(self, key: str, data: Any = None) -> "FieldReader":
        return FieldReader(
            self.data.get(key) if data is None else data,
            self.file,
            self.task,
            cast(str, self._at(key)),  # a key given: a path
        )

    def reader_at(self, path: str, data: Any) -> "FieldReader":
        return FieldReader(data, self.file, self.task, path)

    def only(self, allowed: tuple[str, ...] | list[str]) -> None:
        for key in self.data:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = (
                    f" (did you mean '{close[0]}'?)"
                    if close
                    else f" (known fields: {', '.join(allowed)})"
                )
                self.fail(f"unknown field '{key}'{hint}", str(key))

    def get(self, key: str, types: type | tuple, default: Any = ..., *, what: str = ""):
        if key not in self.data:
            if default is ...:
                self.fail("is required", key)
            return default
        value = self.data[key]
        if isinstance(value, bool) and bool not in _as_tuple(types):
            self.fail(f"expected {what or _names(types)}, got a boolean", key)
        if not isinstance(value, types):
            self.fail(f"expected {what or _names(types)}, got {_kind(value)} {value!r}", key)
        return value

    def number(
        self, key: str, default: Any = ..., *, low: float | None = None, high: float | None = None
    ) -> float:
        value = self.get(key, (int, float), default, what="a number")
        if value is not None and low is not None and value < low:
            self.fail(f"must be at least {low}, got {value}", key)
        if value is not None and high is not None and value > high:
            self.fail(f"must be at most {high}, got {value}", key)
        return value


def _as_tuple(types) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _names(types) -> str:
    names = {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "list": "a list",
        "dict": "a mapping",
        "bool": "true or false",
        "NoneType": "nothing",
    }
    return " or ".join(names.get(t.__name__, t.__name__) for t in _as_tuple(types))


def _kind(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "nothing",
    }.get(type(value), type(value).__name__)


# ---------------------------------------------------------------- the typed model


@dataclass(frozen=True)
class Example:
    args: dict[str, Any]  # name -> value tree (see literals.py)
    expect: Any  # value tree, or ... when the statement gives none
    note: str = ""


@dataclass
class Task:
    id: str
    title: str
    step: int
    step_title: str
    difficulty: str
    tags: list[str]
    entrypoint: str
    args: dict[str, Any]  # name -> specs.Spec, in signature order
    dims: dict[str, Any]  # name -> specs.Dim
    result: Any  # compare.ResultSpec
    tolerance: Any  # compare.Tolerance
    examples: list[Any]  # literals.Example
    checks: list[Any]  # checks.CheckSpec subclasses
    scripts: dict[str, list[dict[str, Any]]]
    limits: Limits
    seed: int
    devices: int | None = None  # `devices: N`: the workers start with N devices
    mesh: Any = None  # specs.MeshSpec the sharded arguments are placed on
    bank: "Bank" = field(repr=False, default=None)  # type: ignore[assignment]  # set by its Bank
    # check id -> its `visibility`, for every check
    visibility: dict[str, str] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        return f"{self.entrypoint}({', '.join(self.args)})"

    @property
    def folder(self) -> Path:
        return self.bank.root / "tasks" / self.id

    @property
    def reference_path(self) -> Path:
        return self.bank.root / "reference" / f"{self.id}.py"

    @property
    def starter_path(self) -> Path:
        return self.folder / "starter.py"

    @property
    def statement_path(self) -> Path:
        return self.folder / "statement.md"

    def known_submissions(self) -> list[Path]:
        """Submissions shipped with the task, each labelled with the verdict it must get."""
        folder = self.folder / "known"
        return (
            sorted(p for p in folder.iterdir() if p.suffix in (".py", ".ipynb"))
            if folder.is_dir()
            else []
        )


class Bank:
    """A bank's tasks, each parsed when it is first asked for (`judge run` parses its
    one task; ``tasks`` parses them all, in the file's order)."""

    def __init__(self, root: Path, course: str, steps: dict[int, str]):
        self.root, self.course, self.steps = root, course, steps
        self._entries: dict[str, tuple[int, Any]] = {}  # id -> (index, raw entry)
        self._parsed: dict[str, Task] = {}

    @property
    def file(self) -> Path:
        return self.root / "tasks.yaml"

    @property
    def tasks(self) -> dict[str, Task]:
        return {task_id: self.get(task_id) for task_id in self._entries}

    def get(self, task_id: str) -> Task:
        if task_id not in self._parsed:
            index, raw = self._entry(task_id)
            self._parsed[task_id] = parse_task(raw, self.file, index, self)
        return self._parsed[task_id]

    def worker_settings(self, task_id: str) -> tuple[Limits, int | None]:
        """The limits and device count a learner's worker for that task starts with,
        read without parsing the rest of the task (its worker can start sooner)."""
        if task_id in self._parsed:
            task = self._parsed[task_id]
            return task.limits, task.devices
        _, raw = self._entry(task_id)
        return worker_fields(FieldReader(raw, self.file, task_id, ""))

    def _entry(self, task_id: str) -> tuple[int, Any]:
        if task_id not in self._entries:
            raise UnknownTask(task_id, list(self._entries))
        return self._entries[task_id]

    @property
    def has_references(self) -> bool:
        return (self.root / "reference").is_dir()

    def require_references(self) -> "Bank":
        """This bank, when it can grade; PublicBankOnly (saying where grading is found)
        for the public part of a bank alone."""
        if not self.has_references:
            raise PublicBankOnly(self.root)
        return self

    def hidden_paths(self) -> list[str]:
        """Folders a sandboxed learner must not see: the bank's references and tasks,
        and the memo of the references' answers."""
        return [str(self.root / "reference"), str(self.root / "tasks")] + memo_hidden_paths()


# ---------------------------------------------------------------- locating and loading


def default_root() -> Path:
    here = Path(__file__).resolve().parent
    shipped = here / "_bank"  # a wheel carries the public bank here (hatch_build.py)
    if (shipped / "tasks.yaml").is_file():
        return shipped
    return here.parent  # a source checkout or an editable install


def installed_with_the_package(root: Path) -> bool:
    """Is ``root`` the bank a plain `pip install` put inside site-packages (where the
    next install replaces it), rather than a folder the author owns?"""
    import site
    import sysconfig

    root = Path(root).resolve()
    shipped = Path(__file__).resolve().parent / "_bank"
    places = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    places.update(getattr(site, "getsitepackages", lambda: [])())
    places.add(site.getusersitepackages())
    return root == shipped or any(root.is_relative_to(Path(p).resolve()) for p in places if p)


def resolve_root(option: str | None) -> Path:
    chosen = option or os.environ.get(BANK_ENV) or None
    return Path(chosen).expanduser().resolve() if chosen else default_root()


def load_bank(root: str | Path | None = None, *, lazy: bool = False) -> Bank:
    """The bank at ``root``; every task parsed now (a malformed one is refused here),
    or, ``lazy``, each when it is first asked for."""
    root = resolve_root(str(root) if root else None)
    file = root / "tasks.yaml"
    if not file.is_file():
        raise BankError(file, "not found: a bank folder holds tasks.yaml, tasks/ and reference/")
    data = read_yaml(file)
    top = FieldReader(data, file, None, "")
    top.only(("course", "steps", "tasks"))
    course = top.get("course", str, "")
    steps_raw = top.get("steps", dict, {})
    steps = {}
    for k, v in steps_raw.items():
        if not isinstance(k, int) or not isinstance(v, str):
            top.fail("maps a step number to its title", f"steps.{k}")
        steps[k] = v
    raw_tasks = top.get("tasks", (list, type(None))) or []  # `tasks:` alone: none yet
    bank = Bank(root=root, course=course, steps=steps)
    for i, raw in enumerate(raw_tasks):
        # a str past the next line (parse_task refuses any other id)
        task_id: Any = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(task_id, str):
            parse_task(raw, file, i, bank)  # refused, saying which entry and why
        if task_id in bank._entries:
            raise BankError(file, "is defined twice", task_id, "id")
        bank._entries[task_id] = (i, raw)
        if not lazy:
            bank.get(task_id)
    return bank


def read_yaml(file: Path) -> Any:
    """tasks.yaml as Python data, refused (naming the task and field) when it is larger
    than a bank can be once its aliases are expanded, or nested too deeply."""
    try:
        if file.stat().st_size > MAX_BANK_BYTES:
            raise BankError(file, f"is larger than {MAX_BANK_BYTES >> 20} MB")
        loader = _YAML_LOADER(file.read_text(encoding="utf-8"))
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_size(file, node)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise BankError(file, f"is not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BankError(file, f"cannot be read: {exc}") from None


def _children(node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_size(file: Path, root) -> None:
    """Expanded size and depth of the node graph, in time linear in its distinct nodes
    (an alias is the same node object, counted once per place it appears)."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            on_path.discard(key)
            continue
        if key in size:
            continue
        if key in on_path:
            raise BankError(file, "holds an alias that contains itself (a recursive anchor)")
        on_path.add(key)
        stack.append((node, True))
        stack += [(k, False) for k in _children(node) if id(k) not in size]
    if size[id(root)] <= MAX_NODES and depth[id(root)] <= MAX_DEPTH:
        return
    task, field = _where(root, size, depth)
    if size[id(root)] > MAX_NODES:
        raise BankError(
            file,
            f"is {size[id(root)]:,} values once its aliases are expanded (at "
            f"most {MAX_NODES:,}): an alias repeated inside an alias?",
            task,
            field,
        )
    raise BankError(
        file, f"is nested {depth[id(root)]} levels deep (at most {MAX_DEPTH})", task, field
    )


def _where(root, size: dict, depth: dict) -> tuple[str | None, str | None]:
    """The task and field where the excess is: follow the largest (or deepest) child
    down while it alone is over the limit."""
    over = (
        (lambda n: size[id(n)] > MAX_NODES)
        if size[id(root)] > MAX_NODES
        else (lambda n: depth[id(n)] > MAX_DEPTH - 8)
    )
    path: list[str]
    path, task, node = [], None, root
    while True:
        step = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if over(v):
                    step = (str(k.value) if isinstance(k, yaml.ScalarNode) else "?", v)
                    break
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                if over(v):
                    step = (f"[{i}]", v)
                    break
        if step is None:
            break
        label, child = step
        if path == ["tasks"] and isinstance(child, yaml.MappingNode):
            task = next(
                (
                    v.value
                    for k, v in child.value
                    if isinstance(k, yaml.ScalarNode)
                    and k.value == "id"
                    and isinstance(v, yaml.ScalarNode)
                ),
                label,
            )
            path = []
        else:
            path.append(label)
        node = child
    field = ".".join(path).replace(".[", "[") or None
    return task, field


TASK_FIELDS = (
    "id",
    "title",
    "step",
    "step_title",
    "difficulty",
    "tags",
    "entrypoint",
    "args",
    "dims",
    "result",
    "tolerance",
    "examples",
    "checks",
    "scripts",
    "limits",
    "seed",
    "devices",
    "mesh",
    "host_syncs",
)
HOST_SYNCS = ("counted", "allowed")
MAX_DEVICES = 64


def worker_fields(r: FieldReader) -> tuple[Limits, int | None]:
    """A task's `limits` and `devices`: what its workers start with."""
    devices = r.get("devices", int, None)
    if devices is not None and not 1 <= devices <= MAX_DEVICES:
        r.fail(f"must be from 1 to {MAX_DEVICES}", "devices")
    return Limits.parse(r.child("limits") if "limits" in r.data else None), devices


def parse_task(raw: Any, file: Path, index: int, bank: Bank) -> Task:
    from . import checks, compare, literals, specs

    task_id = raw.get("id") if isinstance(raw, dict) else None
    label = task_id if isinstance(task_id, str) else f"#{index + 1}"
    r = FieldReader(raw, file, label, "")
    r.only(TASK_FIELDS)
    task_id = r.get("id", str)
    if not TASK_ID.match(task_id):
        r.fail("must be a Python identifier (letters, digits, underscores)", "id")
    step = r.get("step", int)
    step_title = r.get("step_title", str, bank.steps.get(step, ""))
    difficulty = r.get("difficulty", str, "medium")
    if difficulty not in DIFFICULTIES:
        r.fail(f"must be one of {', '.join(DIFFICULTIES)}", "difficulty")
    tags = r.get("tags", list, [])
    if not all(isinstance(t, str) for t in tags):
        r.fail("must be a list of strings", "tags")
    entrypoint = r.get("entrypoint", str, task_id)
    dims = specs.parse_dims(r.child("dims", r.data.get("dims", {})))
    args_r = r.child("args")
    args = {name: specs.parse_spec(args_r.child(name), dims) for name in args_r.data}
    limits, devices = worker_fields(r)
    mesh = specs.MeshSpec.parse(r.child("mesh"), devices) if "mesh" in r.data else None
    dims = specs.place_on_mesh(args, dims, mesh, lambda name: args_r.child(name) if name else r)
    result = compare.ResultSpec.parse(r.child("result", r.data.get("result", {})))
    tolerance = compare.Tolerance.parse(r.child("tolerance", r.data.get("tolerance", {})))
    scripts_r = r.child("scripts", r.data.get("scripts", {}))
    scripts = {
        name: [
            specs.place_call(args, call, lambda m, n=name: scripts_r.fail(m, n))
            for call in literals.parse_calls(scripts_r, name, list(args))
        ]
        for name in scripts_r.data
    }
    examples = []
    for i, e in enumerate(r.get("examples", list, [])):
        er = r.reader_at(f"examples[{i}]", e)
        ex = literals.parse_example(er, list(args))
        examples.append(
            dataclasses.replace(
                ex, args=specs.place_call(args, ex.args, lambda m, er=er: er.fail(m, "args"))
            )
        )
    check_list = r.get("checks", list)
    visibility: dict[str, str]
    parsed, visibility = [], {}
    for i, c in enumerate(check_list):
        cr = r.reader_at(f"checks[{i}]", c)
        rest, shown = check_visibility(cr)
        parsed.append(checks.parse_check(cr.reader_at(cr.path, rest), scripts))
        visibility.setdefault(parsed[-1].id, shown)
    # host syncs count for every task (a JAX lesson done on the host has not been done),
    # unless the task declares its own sync check or says they are allowed
    host_syncs = r.get("host_syncs", str, "counted")
    if host_syncs not in HOST_SYNCS:
        r.fail(f"must be one of {', '.join(HOST_SYNCS)}", "host_syncs")
    if host_syncs == "counted" and not any(c.kind == "sync" for c in parsed):
        from .checks.scripted import DEFAULT_SYNC

        default = checks.parse_check(r.reader_at("host_syncs", dict(DEFAULT_SYNC)), scripts)
        default.needs_teeth = False  # a default, not a check the task's author declared
        parsed.append(default)
    ids = [c.id for c in parsed]
    for i, cid in enumerate(ids):
        if ids.index(cid) != i:
            r.fail(f"check id '{cid}' is used twice", f"checks[{i}].id")
    return Task(
        id=task_id,
        title=r.get("title", str),
        step=step,
        step_title=step_title,
        difficulty=difficulty,
        tags=tags,
        entrypoint=entrypoint,
        args=args,
        dims=dims,
        result=result,
        tolerance=tolerance,
        examples=examples,
        checks=parsed,
        scripts=scripts,
        limits=limits,
        seed=r.get("seed", int, 20260),
        devices=devices,
        mesh=mesh,
        bank=bank,
        visibility=visibility,
    )


def check_visibility(r: FieldReader) -> tuple[dict, str]:
    """A check's `visibility` and the rest of its fields, for its kind to parse.  Read
    here rather than by each kind: it is how a result is shown, the same for all."""
    shown = r.get("visibility", str, "visible", what=f"one of {', '.join(VISIBILITIES)}")
    if shown not in VISIBILITIES:
        close = difflib.get_close_matches(shown, VISIBILITIES, n=1)
        r.fail(
            f"must be one of {', '.join(VISIBILITIES)}, got '{shown}'"
            + (f" (did you mean '{close[0]}'?)" if close else ""),
            "visibility",
        )
    for key in r.data:  # the kinds' own did-you-mean does not know this field
        if key != "visibility" and difflib.get_close_matches(str(key), ["visibility"], cutoff=0.8):
            r.fail(f"unknown field '{key}' (did you mean 'visibility'?)", str(key))
    return {k: v for k, v in r.data.items() if k != "visibility"}, shown
