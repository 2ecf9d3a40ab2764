#!/bin/sh
# target 6: a task id holding a lone surrogate: 500 Internal Server Error with a
# traceback in the log (UnicodeEncodeError in app.py:refused rendering the 422's message)
# usage: review/a13_task_surrogate_500.sh PORT
curl -s -i -H 'content-type: application/json' http://127.0.0.1:$1/v1/submissions \
  -d '{"task":"\ud800","source":"x"}' | head -1
