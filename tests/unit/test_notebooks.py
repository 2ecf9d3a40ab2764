"""Notebook submissions: the code cells are the submission; shell escapes and magics are
transformed as IPython does and dropped (they do nothing in grading), each one said.

Here: the tests that start no process; tests/integration/test_notebooks.py has those that
grade in a worker."""

from __future__ import annotations

import json

import pytest

from judge.notebooks import NotebookError, notebook_source, notebook_submission, submission_source

from helpers import notebook

pytest.importorskip("nbformat")


def test_a_py_file_is_read_as_is(tmp_path):
    path = tmp_path / "s.py"
    path.write_text("x = 1  # !not a shell escape in a .py\n")
    assert submission_source(path) == path.read_text()
    latin = tmp_path / "latin.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\nname = 'Zoë'\n".encode("latin-1"))
    assert "Zoë" in submission_source(latin)  # decoded as Python would


def test_code_cells_joined_in_order_and_markdown_left_out():
    src = notebook(
        ("markdown", "# My answer\n%% not code"),
        ("code", "import math"),
        ("code", "def f(x):\n    return math.sqrt(x)"),
    )
    out = notebook_source(src)
    assert out == "# %% cell 2\nimport math\n\n# %% cell 3\ndef f(x):\n    return math.sqrt(x)\n"
    namespace: dict = {}
    exec(compile(out, "nb", "exec"), namespace)
    assert namespace["f"](9.0) == 3.0


def test_a_cell_of_only_shell_escapes_and_magics_is_dropped_but_shown():
    out = notebook_source(
        notebook(("code", "!pip install -q jax\n# setup\n%matplotlib inline"), ("code", "y = 2"))
    )
    assert "# dropped by the judge: !pip install -q jax" in out
    assert "# dropped by the judge: %matplotlib inline" in out
    namespace: dict = {}
    exec(compile(out, "nb", "exec"), namespace)
    assert namespace["y"] == 2


def run(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "nb", "exec"), namespace)
    return namespace


def test_magics_and_shell_escapes_mixed_with_python_are_dropped_line_by_line():
    cell = (
        "%matplotlib inline\nimport math\nfiles = !ls\n\ndef f(x):\n    !echo hi\n"
        "    return math.sqrt(x)\n%time f(4.0)\nf?\ns = '%not a magic'  # !nor this\n"
    )
    nb = notebook_submission(notebook(("markdown", "intro"), ("code", cell)))
    lines = nb.text.splitlines()
    assert lines[0] == "# %% cell 2" and len(lines) == 1 + len(cell.splitlines())  # lines kept
    assert lines[1] == "pass  # dropped by the judge: %matplotlib inline"
    assert lines[3] == "files = []  # dropped by the judge: files = !ls"  # issue 22: a list
    assert lines[6] == "    pass  # dropped by the judge: !echo hi"
    namespace = run(nb.text)
    assert namespace["f"](9.0) == 3.0 and namespace["files"] == []
    assert namespace["s"] == "%not a magic"
    assert nb.dropped == [
        "cell 2, line 1: %matplotlib inline",
        "cell 2, line 3: files = !ls",
        "cell 2, line 6: !echo hi",
        "cell 2, line 8: %time f(4.0)",
        "cell 2, line 9: f?",
    ]


def test_a_time_cell_magic_keeps_its_body_and_a_bash_cell_is_dropped_whole():
    nb = notebook_submission(
        notebook(
            ("code", "%%time\ndef f(x):\n    return x + 1\n%time f(1)"),
            ("code", "%%bash\necho $HOME\nls"),
        )
    )
    assert run(nb.text)["f"](1) == 2
    assert nb.dropped == [
        "cell 1, line 1: %%time",
        "cell 1, line 4: %time f(1)",
        "cell 2, line 1: %%bash",
    ]
    assert "# echo $HOME" in nb.text


def test_a_plain_syntax_error_is_left_for_the_worker_to_report():
    out = notebook_source(notebook(("code", "def f(x)\n    return x")))
    assert "def f(x)\n" in out
    with pytest.raises(SyntaxError):
        compile(out, "nb", "exec")


@pytest.mark.parametrize(
    "data",
    [b"{not json", json.dumps({"cells": "nope"}).encode(), b"", b'{"cells": [], "caf\xe9": 1}'],
)
def test_not_a_notebook(data, tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(data)
    with pytest.raises(NotebookError, match="broken.ipynb is not a readable Jupyter notebook"):
        submission_source(path)


# ------------------------------------------------ malformed intake is the learner's

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from judge.notebooks import notebook_from_bytes  # noqa: E402

from helpers import put_at  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# where the format expects a string, a list or an object, and the top level itself
PLACES = [
    ("nbformat",),
    ("nbformat_minor",),
    ("metadata",),
    ("cells",),
    ("cells", 0),
    ("cells", 0, "cell_type"),
    ("cells", 0, "source"),
    ("cells", 0, "metadata"),
    ("cells", 0, "outputs"),
    ("cells", 0, "execution_count"),
    ("cells", 0, "id"),
    ("cells", 0, "outputs", 0),
    ("cells", 0, "outputs", 0, "text"),
    ("cells", 1, "source"),
    ("cells", 1, "cell_type"),
    (),
]


def valid_notebook() -> dict:
    nb = json.loads(notebook(("code", "x = 1"), ("markdown", "text")))
    nb["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    return nb


def intake(data: bytes):
    """The reader's answer: the Source, or the NotebookError; anything else fails."""
    try:
        nb = notebook_from_bytes(data, "fuzz.ipynb")
    except NotebookError as exc:
        assert str(exc).startswith(
            ("fuzz.ipynb is not a readable Jupyter notebook: ", "notebook cell ")
        ), exc  # a reason, in words
        assert len(str(exc)) < 1000
        return exc
    assert isinstance(nb.text, str)
    nb.text.encode("utf-8")  # the worker's file can be written
    return nb


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(PLACES), value=JSON)
def test_any_json_value_where_the_format_expects_another_is_a_reason_or_a_grading(place, value):
    intake(json.dumps(put_at(valid_notebook(), place, value)).encode())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.text(max_size=200) | st.lists(st.text(max_size=40), max_size=5))
def test_any_cell_text_reads_or_is_refused(source):
    """Any text at all in a code cell (null bytes, lone surrogates, IPython syntax that
    IPython itself cannot read): a Source or a reason."""
    nb = put_at(valid_notebook(), ("cells", 0, "source"), source)
    intake(json.dumps(nb).encode())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300))
def test_any_bytes_read_or_are_refused(data):
    intake(data)


@pytest.mark.parametrize(
    "data, says",
    [
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (
            b'{"cells": []' + b', "m": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}",
            "nested too deep",
        ),
        (
            json.dumps(
                put_at(
                    valid_notebook(), ("metadata",), json.loads('{"a": ' * 600 + "1" + "}" * 600)
                )
            ).encode(),
            "nested too deep",
        ),
        (b"[]", "its top level is a JSON list"),
        (b'"notebook"', "its top level is a JSON string"),
        (b'{"cells": []}', 'it has no "nbformat" version'),
        (b'{"nbformat": "4", "nbformat_minor": 5, "cells": []}', 'its nbformat version is "4".5'),
        (b'{"nbformat": 9, "nbformat_minor": 0, "cells": []}', "nbformat version 9 is not one"),
        (
            json.dumps(put_at(valid_notebook(), ("cells", 0, "source"), 5)).encode(),
            "cell 1, source: 5",
        ),
        (
            json.dumps(put_at(valid_notebook(), ("cells",), {"a": 1})).encode(),
            "cells: {'a': 1} is not of type 'array'",
        ),
        (
            json.dumps(put_at(valid_notebook(), ("cells", 0, "source"), "x = '\ud800'")).encode(),
            "lone surrogate",
        ),
    ],
)
def test_malformed_notebooks_say_what_is_wrong(data, says):
    exc = intake(data)
    assert isinstance(exc, NotebookError) and says in str(exc), exc


def test_a_notebook_of_any_version_nbformat_reads_still_grades():
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [
            {
                "metadata": {},
                "cells": [
                    {
                        "cell_type": "code",
                        "input": "x = 1",
                        "outputs": [],
                        "language": "python",
                        "metadata": {},
                    }
                ],
            }
        ],
    }
    assert intake(json.dumps(v3).encode()).text == "# %% cell 1\nx = 1\n"
    no_ids = valid_notebook()  # 4.5 written by a tool that forgot the ids
    for cell in no_ids["cells"]:
        del cell["id"]
    assert intake(json.dumps(no_ids).encode()).text == "# %% cell 1\nx = 1\n"
    lines = put_at(valid_notebook(), ("cells", 0, "source"), ["x = 1\n", "y = 2"])
    assert (
        intake(b"\xef\xbb\xbf" + json.dumps(lines).encode()).text == "# %% cell 1\nx = 1\ny = 2\n"
    )
