"""Run one scenario of a case module under a Probe, in this (fresh) process.

Usage: python run_case.py CASE_FILE SCENARIO.  Prints one JSON object: the events of
the load and of each call, and report() for every label used.
"""

import importlib.util
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from judge.worker.probe import Probe  # noqa: E402


def main(case_file: str, scenario: str) -> None:
    probe = Probe(case_file)
    probe.begin_call("load")
    spec = importlib.util.spec_from_file_location("learner_case", case_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules["learner_case"] = module
    probe.learner_module(module)
    spec.loader.exec_module(module)
    load = probe.end_call()

    calls, labels = [], ["load"]

    def call(label, fn, *args, **kwargs):
        labels.append(label)
        probe.begin_call(label)
        try:
            fn(*args, **kwargs)
        finally:
            calls.append(probe.end_call())

    getattr(module, scenario)(call)
    reports = {label: probe.report(label) for label in dict.fromkeys(labels)}
    probe.close()
    print(json.dumps({"load": load, "calls": calls, "reports": reports,
                      "load_events": probe.load_events()}))


if __name__ == "__main__":
    main(*sys.argv[1:])
