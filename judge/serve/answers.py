"""The service's JSON answers: every byte ASCII (``\\uXXXX`` escapes), so an answer that
echoes what a caller sent (a task id, a field name, a callback host holding a lone
surrogate, which JSON allows and UTF-8 cannot hold) can always be written, where
Starlette's own JSONResponse (``ensure_ascii=False``) raised and answered 500."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse as _StarletteJSON


class JSONResponse(_StarletteJSON):
    def render(self, content) -> bytes:
        return json.dumps(
            content, ensure_ascii=True, allow_nan=False, separators=(",", ":")
        ).encode("ascii")
