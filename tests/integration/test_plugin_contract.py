"""The plug-in contract is checked when a kind or a writer registers (judge/checks/base.py,
judge/writers/__init__.py): a kind or a format that breaks it fails with its name and
what to fix, before any task runs it; and what is kind-specific is asked of the kind
(its drawing, its warm-up, its prepare key, the view its prepare gets)."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.checks import CHECK_KINDS, Phase, PluginError, check_kind, load_kinds
from judge.checks.base import CheckSpec, ScriptMeasureCheck, instrument
from judge.report import CheckResult, Report
from judge.validate import TaskValidation
from judge.verdicts import Status, Verdict
from judge.writers import PluginError as WriterError
from judge.writers import register_writer

from helpers import JUDGE, ROOT, double_it_bank, put

_AT_TOP = len  # a name the instrument below wrongly reads


def reads_a_module_global(ctx, args, kwargs, options):
    return {"n": _AT_TOP(args)}


def imports_inside(ctx, args, kwargs, options, shape=__import__("numpy").shape):
    import math

    return {"n": math.prod(shape(args[0]))}


class Runs(CheckSpec):
    def run(self, grading):
        return self.result(Status.PASSED, "fine")


def _register(name, **attrs):
    cls = type(f"Kind_{name}", (attrs.pop("base", Runs),), attrs)
    return check_kind(name)(cls)


@pytest.mark.parametrize(
    "attrs, said",
    [
        ({"failure_verdict": Verdict.RUNTIME_ERROR}, "failure_verdict"),
        ({"phase": 5}, "is not a Phase (FRESH = 0, CALLS = 1, GENERATED = 2, LAST = 9)"),
        ({"FIELDS": ("limit",)}, "FIELDS lacks the fields every check has: id, kind"),
        ({"base": CheckSpec}, "no run(grading) method"),
        ({"base": ScriptMeasureCheck, "run": ScriptMeasureCheck.run}, "judge(grading, calls)"),
        (
            {"INSTRUMENT": instrument(reads_a_module_global)},
            "is not self-contained: it reads _AT_TOP",
        ),
        ({"DODGES": ("sneaky",)}, "unknown dodge classes: sneaky"),
    ],
)
def test_a_kind_that_breaks_the_contract_fails_when_it_registers(attrs, said):
    with pytest.raises(PluginError) as raised:
        _register("test_broken", **attrs)
    assert "check kind 'test_broken'" in str(raised.value) and said in str(raised.value)
    assert "test_broken" not in CHECK_KINDS


def test_a_sound_kind_registers_with_its_phase_as_the_enum():
    cls = _register("test_sound", phase=2, INSTRUMENT=instrument(imports_inside))
    assert CHECK_KINDS["test_sound"] is cls and cls.phase is Phase.GENERATED
    assert cls.INSTRUMENT.name == "test_sound"
    assert all(p.__doc__ for p in Phase)  # each phase says what it means


def test_two_kinds_cannot_share_a_name():
    _register("test_taken")
    with pytest.raises(PluginError, match="already registered"):
        check_kind("test_taken")(type("Other", (Runs,), {}))


def test_the_judges_own_kinds_all_keep_the_contract():
    kinds = load_kinds()
    assert {"example", "property", "retrace", "sync", "cost", "jaxpr"} <= set(kinds)
    assert all(isinstance(k.phase, Phase) for k in kinds.values())


def test_the_html_page_and_the_class_report_ask_the_kind_to_draw_itself(tmp_path):
    from judge.batch.class_report import _drawings
    from judge.writers.html import fragment

    @check_kind("test_drawn")
    class Drawn(Runs):
        CLASS_SECTION = "Drawn things"

        @classmethod
        def html(cls, result):
            return f'<figure class="drawn">{result.details["n"]}</figure>'

        @classmethod
        def class_key(cls, result):
            return (result.details["n"],) if result.status == Status.FAILED else None

    check = CheckResult(
        id="d",
        kind="test_drawn",
        required=True,
        status=Status.FAILED,
        message="bad",
        details={"n": 7},
        verdict=Verdict.WRONG_ANSWER,
    )
    report = Report(task="t", submission="s.py", seed=0, judge_version="x", checks=[check])
    assert '<figure class="drawn">7</figure>' in fragment(report.finish())

    class Cell:
        graded, learner, task_id, charge = True, "ann", "t", None
        record = report.to_dict()

    book = types.SimpleNamespace(cells={("ann", "t"): Cell()})
    drawn = _drawings(book)
    assert "<h2>Drawn things</h2>" in drawn and '<figure class="drawn">7</figure>' in drawn


def script_prepare_bank(tmp_path: Path) -> Path:
    return double_it_bank(
        tmp_path,
        """
        scripts:
          few:
            - {args: {x: {$random: {shape: [3]}}}}
        checks:
          - {id: scripted, kind: test_prepares_from_a_script}
    """,
    )


@check_kind("test_prepares_from_a_script")
class PreparesFromAScript(Runs):
    """A kind whose prepare reads a script's calls: `judge validate` gave prepare a view
    of its own (task, seed and n_examples only) and crashed on it."""

    def prepare(self, grading):
        return grading.script_calls("few")

    def generated_inputs(self, grading, prepared):
        return list(prepared)


def test_validate_prepares_through_the_view_a_grading_gives(tmp_path):
    task = load_bank(script_prepare_bank(tmp_path)).get("double_it")
    generated = TaskValidation(task)._generated()
    assert len(generated) == 1 and generated[0]["x"].array.shape == (3,)


def test_the_prepare_key_is_the_kinds():
    class Keyed(Runs):
        def prepare_key(self, grading):
            return ("mine", self.id)

    view = types.SimpleNamespace(seed=1, n_examples=None)
    plain = Runs.__new__(Runs)
    plain.id = "p"
    keyed = Keyed.__new__(Keyed)
    keyed.id = "k"
    assert plain.prepare_key(view) == ("prepare", "p", 1, None)
    assert keyed.prepare_key(view) == ("mine", "k")


def test_the_warm_up_is_every_kinds_own(monkeypatch):
    import judge.checks as checks

    warmed = []
    _register("test_warmed", warm_up=classmethod(lambda cls: warmed.append(cls.kind)))
    checks.warm_up_for_threads.cache_clear()
    try:
        checks.warm_up_for_threads()
    finally:
        checks.warm_up_for_threads.cache_clear()
    assert warmed == ["test_warmed"]


def test_a_writer_that_breaks_the_contract_is_named():
    bad = types.ModuleType("course.bad_format")
    bad.write = lambda report: None
    with pytest.raises(WriterError) as raised:
        register_writer(bad, table={})
    assert "course.bad_format" in str(raised.value)
    assert "NAME" in str(raised.value) and "(report, stream, *, color=False)" in str(raised.value)
    taken = types.ModuleType("course.text")
    taken.NAME, taken.write = "text", lambda report, stream, *, color=False: None
    with pytest.raises(WriterError, match="already written by judge.writers.text"):
        from judge.writers import writers

        register_writer(taken, table=dict(writers()))


def test_the_formats_say_what_they_are():
    from judge.writers import emit_formats, results_file

    assert set(emit_formats()) == {"exercism", "gradescope", "junit"}
    assert results_file("gradescope") and results_file("exercism") and not results_file("junit")


def broken_site(dst: Path, group: str, value: str, module_text: str) -> Path:
    put(dst / "course_plugins" / "__init__.py", "")
    put(dst / "course_plugins" / "broken.py", module_text)
    info = dst / "course_plugins-1.0.dist-info"
    put(info / "METADATA", "Metadata-Version: 2.1\nName: course-plugins\nVersion: 1.0\n")
    put(info / "entry_points.txt", f"[{group}]\nbroken = {value}\n")
    return dst


def _judge(site: Path, *args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_BANK"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return subprocess.run(
        JUDGE + [str(a) for a in args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_an_installed_kind_that_breaks_the_contract_is_a_clear_error(tmp_path):
    site = broken_site(
        tmp_path / "site",
        "jax_judge.checks",
        "course_plugins.broken",
        "from judge.checks import check_kind\n"
        "from judge.checks.base import CheckSpec\n\n"
        "@check_kind('broken')\nclass Broken(CheckSpec):\n    phase = 7\n",
    )
    bank = double_it_bank(tmp_path / "bank", "checks:\n  - {id: examples, kind: example}\n")
    out = _judge(site, "--bank", bank, "run", "double_it", put(tmp_path / "s.py", "x = 1\n"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "check kind 'broken' (course_plugins.broken.Broken" in out.stderr
    assert "phase 7 is not a Phase" in out.stderr and "Traceback" not in out.stderr


def test_an_installed_writer_that_does_not_load_is_a_clear_error(tmp_path):
    site = broken_site(
        tmp_path / "site", "jax_judge.writers", "course_plugins.broken", "import no_such_module\n"
    )
    # a format that is not the judge's own: the installed ones are read, and one is broken
    out = _judge(site, "run", "double_it", put(tmp_path / "s.py", "x = 1\n"), "--format", "course")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "entry point 'broken = course_plugins.broken' of course-plugins 1.0" in out.stderr
    assert "No module named 'no_such_module'" in out.stderr and "Traceback" not in out.stderr


def test_the_judges_own_format_is_found_without_reading_installed_packages():
    # `judge run --format text` imports the text writer alone: the scan of installed
    # distributions (tens of ms) happens only for a format the judge does not have
    code = (
        "import judge.plugins as p, judge.writers as w; w.writer('text'); w.writer('json'); "
        "print(p._installed.cache_info().currsize, sorted(w._BUILTIN))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "['json',", "'text']"], out.stdout


def test_a_format_of_the_package_lives_in_the_file_its_name_says():
    misnamed = types.ModuleType("judge.writers.plain")
    misnamed.NAME, misnamed.write = "text2", lambda report, stream, *, color=False: None
    with pytest.raises(WriterError, match="lives in text2.py"):
        register_writer(misnamed, table={})


def test_the_bank_wide_rules_come_with_the_whole_bank_only(monkeypatch):
    import judge.validate as validation

    def run(self):
        return Report(task=self.task.id, submission="", seed=0, judge_version="x").finish()

    monkeypatch.setattr(
        validation.TaskValidation,
        "__init__",
        lambda self, task, workers=2: setattr(self, "task", task),
    )
    monkeypatch.setattr(validation.TaskValidation, "run", run)
    tasks = [types.SimpleNamespace(id="a", checks=[]), types.SimpleNamespace(id="b", checks=[])]
    said = []
    reports, bank_wide = validation.validate_tasks(tasks, whole_bank=True, each=said.append)
    assert [r.task for r in reports] == ["a", "b"] and [r.task for r in bank_wide] == ["(bank)"]
    assert [r.task for r in said] == ["a", "b", "(bank)"]
    assert validation.validate_tasks(tasks, whole_bank=False)[1] == []
    assert validation.validate_tasks([], whole_bank=True) == ([], [])
