"""A course's own plug-ins, from a package outside judge/ (tests/plugins/jax_judge_memory:
a ``memory`` check kind and a ``markdown`` report format, declared by its pyproject's
entry points), work with no change under judge/: the kind is graded by `judge run`,
checked by `judge validate`, drawn in the HTML report and the class report, and the
format is written by `judge run --format` and `judge batch --emit`.

How it is installed: by this test, for the judge processes it starts and nothing else.
The package's folder is copied into a temporary folder with a ``dist-info`` beside it
(METADATA and the entry_points.txt its pyproject declares), and that folder leads
those processes' PYTHONPATH: ``importlib.metadata`` finds the distribution there as it
would in site-packages, and no venv, no other test and no later run sees it (a `pip
install` into the test venv would change every other test's set of kinds)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from helpers import JUDGE, ROOT, double_it_bank, put

PACKAGE = ROOT / "tests" / "plugins" / "jax_judge_memory"

FIELDS = """
    tolerance: {mode: elementwise}
    examples:
      - args: {x: {$array: [1, 2]}}
        expect: {$array: [2, 4]}
    scripts:
      few:
        - {args: {x: {$random: {shape: [8]}}}}
        - {args: {x: {$random: {shape: [5]}}}}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 12, max_shapes: 4}
      - {id: memory, kind: memory, script: few, factor: 2}
"""
RIGHT = "import jax\n\n@jax.jit\ndef double_it(x):\n    return 2 * x\n"
# the right value, through a 1024-wide copy of x that must be sorted: 32 KiB held
OUTER_SORT = (
    "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef double_it(x):\n"
    "    wide = jnp.outer(x, jnp.ones(1024, x.dtype))\n"
    "    return jnp.sort(wide, axis=1)[:, 0] * 2\n"
)
KNOWN = {
    "tasks/double_it/known/plus_two.py": "# expect: wrong_answer via property\ndef double_it(x):\n    return x + 2\n",
    "tasks/double_it/known/outer_sort.py": "# expect: inefficient via memory\n" + OUTER_SORT,
}


def install_for_subprocesses(dst: Path, package: Path = PACKAGE) -> Path:
    """``package`` (a folder with a pyproject.toml and its module folder) made importable
    and discoverable from ``dst``, as pip would lay it out in site-packages."""
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    module = project["name"].replace("-", "_")
    shutil.copytree(package / module, dst / module)
    info = dst / f"{module}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = []
    for group, points in project.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in points.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
    return dst


def judge(*args, site: Path | None, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_BANK"}
    env["PYTHONPATH"] = os.pathsep.join(([str(site)] if site else []) + [str(ROOT)])
    return subprocess.run(
        JUDGE + [str(a) for a in args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return install_for_subprocesses(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    return double_it_bank(tmp_path_factory.mktemp("bank"), FIELDS, KNOWN)


def test_the_package_changes_nothing_under_judge():
    assert not list((ROOT / "judge").rglob("*memory*.py"))
    assert not list((ROOT / "judge").rglob("*markdown*.py"))
    text = "\n".join(p.read_text() for p in (ROOT / "judge").rglob("*.py"))
    assert "jax_judge_memory" not in text and 'check_kind("memory")' not in text
    assert 'NAME = "markdown"' not in text


def test_without_the_package_the_kind_is_unknown(bank, tmp_path):
    sub = put(tmp_path / "right.py", RIGHT)
    out = judge("--bank", bank, "run", "double_it", sub, site=None)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "unknown check kind 'memory'" in out.stderr


def test_judge_run_grades_the_outside_kind(bank, site, tmp_path):
    right = judge(
        "--bank",
        bank,
        "run",
        "double_it",
        put(tmp_path / "right.py", RIGHT),
        "--format",
        "json",
        site=site,
    )
    report = json.loads(right.stdout)
    memory = next(c for c in report["checks"] if c["id"] == "memory")
    assert report["verdict"] == "accepted", right.stdout + right.stderr
    assert memory["kind"] == "memory" and memory["status"] == "passed", memory
    assert len(memory["details"]["bytes"]) == 2
    wide = judge(
        "--bank",
        bank,
        "run",
        "double_it",
        put(tmp_path / "wide.py", OUTER_SORT),
        "--format",
        "json",
        site=site,
    )
    report = json.loads(wide.stdout)
    memory = next(c for c in report["checks"] if c["id"] == "memory")
    assert report["verdict"] == "inefficient", wide.stdout + wide.stderr
    assert memory["status"] == "failed" and "holds" in memory["message"], memory
    assert memory["details"]["bytes"][0] > 32768 > memory["details"]["reference_bytes"][0]


def test_the_kind_draws_itself_and_the_format_writes(bank, site, tmp_path):
    wide = put(tmp_path / "wide.py", OUTER_SORT)
    html = judge("--bank", bank, "run", "double_it", wide, "--format", "html", site=site)
    assert html.returncode == 1, html.stderr
    assert '<figure class="memory">' in html.stdout and "data-reference-bytes" in html.stdout
    md = judge("--bank", bank, "run", "double_it", wide, "--format", "markdown", site=site)
    assert md.stdout.startswith("# double_it: inefficient"), md.stdout + md.stderr
    assert "- **memory** (memory): failed:" in md.stdout


def test_judge_validate_checks_the_outside_kind(bank, site):
    # the task named: the bank-wide dodge rules (other kinds' business) are not asked
    out = judge("--bank", bank, "validate", "double_it", "--format", "json", site=site, timeout=900)
    result = json.loads(out.stdout)
    assert len(result["tasks"]) == 1
    items = {c["id"]: c for c in result["tasks"][0]["checks"]}
    assert result["valid"], [c["message"] for c in items.values() if c["status"] != "passed"]
    assert "outer_sort.py" in items["teeth:memory"]["message"]
    assert items["known:outer_sort.py"]["status"] == "passed"


def test_batch_emits_the_format_and_the_class_report_draws_the_kind(bank, site, tmp_path):
    put(tmp_path / "subs" / "alice" / "double_it.py", OUTER_SORT)
    put(tmp_path / "subs" / "bob" / "double_it.py", OUTER_SORT)
    put(tmp_path / "subs" / "carol" / "double_it.py", RIGHT)
    out = tmp_path / "out"
    done = judge(
        "--bank",
        bank,
        "batch",
        tmp_path / "subs",
        "--out",
        out,
        "--workers",
        "1",
        "--emit",
        "markdown,junit",
        site=site,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        (out / "markdown" / "alice" / "double_it.md")
        .read_text()
        .startswith("# double_it: inefficient")
    )
    assert "accepted" in (out / "markdown" / "carol" / "double_it.md").read_text()
    assert (out / "junit" / "carol" / "double_it.xml").is_file()
    page = (out / "report.html").read_text()
    assert "<h2>Memory: failed checks</h2>" in page
    # alice's and bob's failures look the same: drawn once, with both names
    assert page.count('data-kind="memory"') == 1 and page.count('<figure class="memory">') == 1
    block = page[page.index('data-kind="memory"') :]
    assert "alice" in block[:4000] and "bob" in block[:4000]
    assert '<figure class="memory">' in (out / "reports" / "alice" / "double_it.html").read_text()
