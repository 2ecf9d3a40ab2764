#!/bin/sh
# usage: review/run.sh TASK FILE  -> verdict in both modes
cd "$(dirname "$0")/.."
for m in process bubblewrap; do
  printf '%s %s: ' "$2" "$m"
  .venv/bin/judge run "$1" "$2" --format json --isolation $m 2>/tmp/rt_err_$$ | .venv/bin/python -c '
import json,sys
d=json.load(sys.stdin)
print(d.get("verdict"), "|", d.get("reason","")[:300] if isinstance(d.get("reason"),str) else "", "|", [ (c["id"],c["status"],c["message"][:160]) for c in d.get("checks",[]) if c["status"]!="passed"])' || tail -3 /tmp/rt_err_$$
done
