"""The bank loader: typed tasks from tasks.yaml, errors that name file, task and field."""

import shutil

import pytest

from judge.bank import BankError, UnknownTask, default_root, load_bank

from helpers import ROOT
from helpers.banks import MINIMAL, write_bank


def test_shipped_bank_loads_with_first_task():
    bank = load_bank()
    task = bank.get("cache_independent_count")
    assert task.step == 9 and task.signature == "cache_independent_count(x_a, x_b)"
    assert [c.kind for c in task.checks] == ["example", "property", "retrace", "sync"]
    retrace = task.checks[2]
    assert retrace.required is False and retrace.budget == "reference"
    assert task.reference_path.is_file() and task.starter_path.is_file()


def test_minimal_task_gets_defaults(tmp_path):
    bank = load_bank(write_bank(tmp_path, MINIMAL))
    task = bank.get("add_one")
    assert task.entrypoint == "add_one" and task.difficulty == "medium"
    assert task.limits.call_timeout_s == 10.0 and task.checks[0].required


def test_env_var_and_option_choose_the_bank(tmp_path, monkeypatch):
    write_bank(tmp_path, MINIMAL)
    monkeypatch.setenv("JUDGE_BANK", str(tmp_path))
    assert list(load_bank().tasks) == ["add_one"]
    monkeypatch.delenv("JUDGE_BANK")
    assert "cache_independent_count" in load_bank().tasks
    assert default_root() == ROOT


def test_unknown_task_names_closest():
    with pytest.raises(UnknownTask) as err:
        load_bank().get("cache_independant_count")
    assert "cache_independent_count" in str(err.value)


@pytest.mark.parametrize(
    "change, field, words",
    [
        (("title: Add one", "titel: Add one"), "titel", "did you mean 'title'"),
        (("step: 1", "step: one"), "step", "expected an integer"),
        (("dtype: float32", "dtype: float33"), "args.x", "unknown dtype 'float33'"),
        (("shape: [n]", "shape: [k]"), "args.x", "name from dims"),
        (("kind: property}", "kind: proprety}"), "checks[0]", "did you mean 'property'"),
        (("type: array", "type: arry"), "args.x", "did you mean 'array'"),
        (("n: [0, 4]", "n: [4, 0]"), "dims", "low <= high"),
    ],
)
def test_malformed_fields_name_file_task_and_field(tmp_path, change, field, words):
    bank = write_bank(tmp_path, MINIMAL.replace(*change))
    with pytest.raises(BankError) as err:
        load_bank(bank)
    msg = str(err.value)
    assert str(tmp_path / "tasks.yaml") in msg and "task 'add_one'" in msg
    assert field in (err.value.field or "") and words in msg


def test_invalid_yaml_names_line(tmp_path):
    bank = write_bank(tmp_path, "tasks:\n  - id: [unclosed\n")
    with pytest.raises(BankError) as err:
        load_bank(bank)
    assert "not valid YAML" in str(err.value) and "line" in str(err.value)


def test_duplicate_ids_and_bad_identifiers(tmp_path):
    twice = MINIMAL + MINIMAL.split("tasks:\n", 1)[1]
    with pytest.raises(BankError, match="defined twice"):
        load_bank(write_bank(tmp_path, twice))
    other = tmp_path / "b"
    other.mkdir()
    with pytest.raises(BankError, match="Python identifier"):
        load_bank(write_bank(other, MINIMAL.replace("id: add_one", "id: add-one")))


def test_retrace_budget_must_be_number_or_reference(tmp_path):
    text = (
        MINIMAL
        + """
    scripts:
      s:
        - {args: {x: {$random: {shape: [2]}}}}
""".replace("\n    ", "\n    ")
    )
    text = text.replace(
        "checks:\n      - {id: property, kind: property}",
        "checks:\n      - {id: r, kind: retrace, script: s, budget: refrence}",
    )
    with pytest.raises(BankError, match="expected a number or 'reference', got 'refrence'"):
        load_bank(write_bank(tmp_path, text))


def test_copied_bank_is_self_contained(tmp_path):
    for name in ("tasks.yaml", "tasks", "reference"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    bank = load_bank(tmp_path)
    assert bank.get("cache_independent_count").reference_path.parent == tmp_path / "reference"


# ---------------------------------------------------------------- sizes a bank may ask for


def _bomb(levels: int = 8) -> str:
    """A billion laughs: each level ten aliases of the one before."""
    inner = "&a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
    for i in range(1, levels + 1):
        inner = f"&a{i} [" + ", ".join([inner] + [f"*a{i - 1}"] * 9) + "]"
    return inner


def test_an_alias_bomb_is_refused_while_parsing(tmp_path):
    text = MINIMAL.replace("    checks:", f"    tags: {_bomb()}\n    checks:")
    root = write_bank(tmp_path, text)
    with pytest.raises(BankError) as info:
        load_bank(root)
    err = info.value
    assert err.task == "add_one" and err.field.startswith("tags")
    assert "once its aliases are expanded" in str(err) and "tasks.yaml" in str(err)


def test_an_alias_that_contains_itself_is_refused(tmp_path):
    root = write_bank(
        tmp_path, MINIMAL.replace("    checks:", "    tags: &loop [*loop]\n    checks:")
    )
    with pytest.raises(BankError, match="alias|anchor"):
        load_bank(root)


def test_nesting_too_deep_is_refused(tmp_path):
    deep = "[" * 200 + "]" * 200
    root = write_bank(tmp_path, MINIMAL.replace("    checks:", f"    tags: {deep}\n    checks:"))
    with pytest.raises(BankError, match="nested .* levels deep") as info:
        load_bank(root)
    assert info.value.task == "add_one"


@pytest.mark.parametrize(
    "change, field, words",
    [
        ("dims: {n: [0, 4]}", "dims.n", "at most 65536"),
        ("shape: [n]", "args.x.shape", "elements"),
    ],
)
def test_sizes_the_judge_would_allocate_are_capped(tmp_path, change, field, words):
    huge = {
        "dims: {n: [0, 4]}": "dims: {n: [0, 1000000000]}",
        "shape: [n]": "shape: [n, 4096, 4096]",
    }[change]
    root = write_bank(tmp_path, MINIMAL.replace(change, huge))
    with pytest.raises(BankError) as info:
        load_bank(root)
    assert info.value.task == "add_one" and info.value.field == field
    assert words in str(info.value)


def test_a_random_literal_of_a_billion_elements_is_refused(tmp_path):
    text = MINIMAL.replace(
        "    checks:",
        "    examples:\n      - {args: {x: {$random: {shape: [1000000000]}}}}\n    checks:",
    )
    root = write_bank(tmp_path, text)
    with pytest.raises(BankError, match="elements") as info:
        load_bank(root)
    assert info.value.task == "add_one" and "examples[0]" in info.value.field


def test_limits_have_upper_bounds(tmp_path):
    root = write_bank(tmp_path, MINIMAL + "    limits: {memory_mb: 100000000000}\n")
    with pytest.raises(BankError, match="at most") as info:
        load_bank(root)
    assert info.value.field == "limits.memory_mb"


def test_every_task_counts_host_syncs_by_default(tmp_path):
    bank = load_bank(write_bank(tmp_path, MINIMAL))
    (*_, default) = bank.get("add_one").checks
    assert (default.id, default.kind, default.script) == ("host_sync", "sync", None)
    assert default.required and default.points == 0 and not default.needs_teeth
    assert default.scripts_run() == ()


def test_a_task_may_allow_host_syncs_or_declare_its_own_check(tmp_path):
    allowed = MINIMAL.replace("    step: 1\n", "    step: 1\n    host_syncs: allowed\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert [
        c.kind for c in load_bank(write_bank(tmp_path / "a", allowed)).get("add_one").checks
    ] == ["property"]
    own = MINIMAL.replace(
        "      - {id: property, kind: property}\n",
        "      - {id: property, kind: property}\n      - {id: mine, kind: sync}\n",
    )
    checks = load_bank(write_bank(tmp_path / "b", own)).get("add_one").checks
    assert [c.id for c in checks] == ["property", "mine"]


def test_host_syncs_takes_only_its_two_words(tmp_path):
    bad = MINIMAL.replace("    step: 1\n", "    step: 1\n    host_syncs: sometimes\n")
    with pytest.raises(BankError, match="host_syncs.*counted, allowed|counted, allowed"):
        load_bank(write_bank(tmp_path, bad))
