#!/bin/sh
# target 6: bodies that end in 500 + a traceback (the contract says 4xx with {"error": ...})
# and callback URLs that pass the submit check but make the callback sender spin.
# usage: review/a18_serve_500s.sh PORT   (a judge serve on 127.0.0.1:PORT, its log watched)
J='content-type: application/json'
for b in '{"\ud800":1,"task":"safe_mean","source":"x"}' \
         '{"task":"safe_mea\ud800n","source":"x"}' \
         '{"task":"safe_mean","source":"x","callback_url":"http://\ud800/"}' \
         '{"task":"safe_mean","source":"x","callback_url":"http://[::1/"}'; do
  printf '%s -> ' "$b"; curl -s -o /dev/null -w '%{http_code}\n' -H "$J" http://127.0.0.1:$1/v1/submissions -d "$b"
done
# accepted (202), then httpx.InvalidURL on every try, in a tight loop, a traceback each:
for u in 'http://a\u0000b/' 'http://\u2488/' 'http://a:99999/'; do
  printf '%s -> ' "$u"; curl -s -o /dev/null -w '%{http_code}\n' -H "$J" http://127.0.0.1:$1/v1/submissions \
    -d '{"task":"safe_mean","seed":'$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')',"source":"x","callback_url":"'"$u"'"}'
done
