#!/bin/sh
# target 6: a callback_url whose host is not valid IDNA (http://⒈/) passes the submit
# check (422 expected) and then makes the callback sender fail outside its error
# handling (httpx.InvalidURL is not an httpx.HTTPError): the row is never marked tried,
# the loop is woken at once, and the log grows by a traceback per try (148 MB in 3 min,
# 60% of a core) for as long as the service runs.
# usage: review/a12_callback_idna_hotloop.sh PORT   (a judge serve on 127.0.0.1:PORT)
curl -s -H 'content-type: application/json' http://127.0.0.1:$1/v1/submissions \
  -d '{"task":"safe_mean","seed":77,"callback_url":"http://\u2488/","source":"import jax.numpy as jnp\ndef safe_mean(x):\n    return jnp.float32(0)\n"}'
echo; echo "now watch the service's log grow: 'callback N failed' + httpx.InvalidURL"
