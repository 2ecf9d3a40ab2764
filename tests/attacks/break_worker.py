"""Break the worker after loading: exhaust descriptors and make every later reply say
it was the judge's fault (a batch grades judge errors again, forever)."""
import gc
import os

held = []
try:
    while True:
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
for fd in held[-8:]:
    os.close(fd)   # enough for the call to run


def _judges_fault(*args, **kwargs):
    return ({"ok": False, "error": {"category": "judge", "type": "WorkerError",
                                    "message": "the judge broke (not the learner)",
                                    "traceback": "", "line": None}}, [])


for obj in gc.get_objects():
    if type(obj).__name__ == "Loop" and hasattr(obj, "token"):
        # whatever the loop looks up per request: its dispatcher and each handler
        for name in ("_handle", "_call", "_calls", "_measure", "_report"):
            setattr(obj, name, _judges_fault)


def double(x):
    return x * 3
