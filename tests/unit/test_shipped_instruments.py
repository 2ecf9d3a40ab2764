"""Typed instruments still run alone in the worker (judge/checks/shipped.py): the worker
compiles an instrument's source without the judge's imports, so an annotation it
evaluates may name builtins only; every other one is a string, never evaluated."""

from __future__ import annotations

import ast
import builtins

import pytest

from judge.checks import load_kinds

SHIPPED = sorted(
    (name, cls.INSTRUMENT) for name, cls in load_kinds().items() if cls.INSTRUMENT is not None
)


def evaluated_names(source: str) -> list[tuple[int, str]]:
    """(line, name) of every name an annotation of ``source`` would make Python look up:
    those of annotations that are not a string, in every function, nested ones too."""
    found = []
    for node in ast.walk(ast.parse(source)):
        annotations: list[ast.expr | None] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            every = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            annotations += [p.annotation for p in every if p is not None]
            if not isinstance(node, ast.Lambda):
                annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            if annotation is None or isinstance(annotation, ast.Constant):
                continue
            found += [(n.lineno, n.id) for n in ast.walk(annotation) if isinstance(n, ast.Name)]
    return found


@pytest.mark.parametrize("kind, shipped", SHIPPED, ids=[name for name, _ in SHIPPED])
def test_an_instruments_annotations_name_only_builtins_unless_quoted(kind, shipped):
    outside = [(line, n) for line, n in evaluated_names(shipped.source) if not hasattr(builtins, n)]
    assert not outside, (
        f"the {kind} instrument's annotations name {outside} (line, name) unquoted: the "
        f"worker would evaluate them where they are not defined; write them as strings"
    )


@pytest.mark.parametrize("kind, shipped", SHIPPED, ids=[name for name, _ in SHIPPED])
def test_an_instruments_source_compiles_and_defines_its_function_alone(kind, shipped):
    namespace: dict = {"__name__": f"_jj_instrument_{kind}"}  # as the worker's, empty
    # dont_inherit: this module's `from __future__ import annotations` (which the
    # worker's compiling module happens to have too) would hide an evaluated annotation
    code = compile(shipped.source, f"<instrument {kind}>", "exec", dont_inherit=True)
    exec(code, namespace)
    assert callable(namespace[shipped.function])
    assert not shipped.setup or callable(namespace[shipped.setup])


def test_an_unquoted_typing_name_is_found_where_the_worker_would_evaluate_it():
    source = (
        "def measure(ctx: 'Context', args: list, kwargs: dict, options: Any) -> 'dict':\n"
        "    def inner(x: int) -> Iterator:\n"
        "        total: Counter = 0\n"
        "        seen: 'set[int]' = set()\n"
        "        return x\n"
        "    return {}\n"
    )
    assert sorted(evaluated_names(source)) == [
        (1, "Any"),
        (1, "dict"),
        (1, "list"),
        (2, "Iterator"),
        (2, "int"),
        (3, "Counter"),
    ]
    names = {n for _, n in evaluated_names(source) if not hasattr(builtins, n)}
    assert names == {"Any", "Iterator", "Counter"}
