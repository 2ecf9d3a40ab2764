"""target 6: the service's doors, probed over HTTP on loopback.
usage: .venv/bin/python review/a10_serve_doors.py PORT   (a judge serve on 127.0.0.1:PORT)
Prints each probe's status; anything 500, a traceback, or 2xx where a refusal is due is a fall."""
import json, socket, sys
import httpx
port = int(sys.argv[1]); base = f"http://127.0.0.1:{port}"
good = {"task": "safe_mean", "source": "import jax.numpy as jnp\ndef safe_mean(x):\n    return jnp.float32(0)\n"}
def raw(data: bytes):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(data); s.settimeout(10)
    out = b""
    try:
        while True:
            c = s.recv(65536)
            if not c: break
            out += c
    except socket.timeout:
        pass
    s.close(); return out.split(b"\r\n", 1)[0].decode(errors="replace") + " " + out[-200:].decode(errors="replace").replace("\n", " ")
c = httpx.Client(base_url=base, timeout=30, headers={"connection": "close"})
def p(name, r):
    body = r.text[:160].replace("\n", " ")
    print(f"{name:45s} {r.status_code} {body}")
J = {"content-type": "application/json"}
p("text/plain foreign origin", c.post("/v1/submissions", content=json.dumps(good), headers={"content-type": "text/plain", "origin": "http://127.0.0.1:1"}))
p("json foreign loopback origin", c.post("/v1/submissions", json=good, headers={"origin": f"http://localhost:{port+1}"}))
p("origin http://127.0.0.1:PORT/ (own, slash)", c.post("/v1/submissions", json={**good, "seed": 1}, headers={"origin": f"http://127.0.0.1:{port}/"}))
p("origin own w/ userinfo", c.post("/v1/submissions", json={**good, "seed": 2}, headers={"origin": f"http://x@127.0.0.1:{port}"}))
p("origin 'HTTP://127.0.0.1:PORT'", c.post("/v1/submissions", json={**good, "seed": 3}, headers={"origin": f"HTTP://127.0.0.1:{port}"}))
p("host evil + origin evil (rebinding)", c.post("/v1/submissions", json=good, headers={"host": f"evil.example:{port}", "origin": f"http://evil.example:{port}"}))
p("host 'localhost.'", c.get("/v1/tasks", headers={"host": "localhost."}))
p("host '127.0.0.1:1@evil'", c.get("/v1/tasks", headers={"host": "127.0.0.1:1@evil"}))
p("host empty", c.get("/v1/tasks", headers={"host": ""}))
print("no Host (HTTP/1.0)            ", raw(b"GET /v1/tasks HTTP/1.0\r\n\r\n")[:120])
print("two Host headers              ", raw(f"GET /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n".encode())[:120])
p("content-type 'application/json, text/plain'", c.post("/v1/submissions", content=json.dumps(good), headers={"content-type": "application/json, text/plain", "origin": "http://evil.example"}))
p("nested 100000", c.post("/v1/submissions", content=b"[" * 100000 + b"]" * 100000, headers=J))
p("nested in notebook 60", c.post("/v1/submissions", json={"task": "safe_mean", "notebook": json.loads("[" * 60 + "]" * 60)}))
p("huge int seed 10**4000", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"x","seed":' + b"9" * 4000 + b"}", headers=J))
p("int 10**5000 digits", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"x","seed":' + b"9" * 5000 + b"}", headers=J))
p("seed float 1e400", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"x","seed":1e400}', headers=J))
p("NaN literal", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"x","seed":NaN}', headers=J))
p("duplicate keys", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"x","source":1}', headers=J))
p("non-utf8 body", c.post("/v1/submissions", content=b'{"task":"safe_mean","source":"\xff\xfe"}', headers=J))
p("utf-16 body", c.post("/v1/submissions", content=json.dumps(good).encode("utf-16"), headers=J))
p("lone surrogate in task", c.post("/v1/submissions", content=b'{"task":"\\ud800","source":"x"}', headers=J))
p("lone surrogate in filename?nb", c.post("/v1/submissions", content=b'{"task":"safe_mean","notebook":{"cells":[{"cell_type":"code","source":"\\udc00"}],"nbformat":4,"nbformat_minor":5,"metadata":{}}}', headers=J))
for nb in [{"cells": "x"}, {"cells": [{"cell_type": "code", "source": ["a", 1]}]}, {"cells": [{"cell_type": {"a": 1}, "source": "x"}]},
           {"cells": [None]}, {"nbformat": "4", "cells": []}, [], "text", 5, {"cells": [{"cell_type": "code", "source": "x", "outputs": 5}]},
           {"cells": [{"cell_type": "code", "source": "%%bash\nls"}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}},
           {"cells": [{"cell_type": "code", "source": "x"}], "metadata": {"kernelspec": 5}, "nbformat": 99, "nbformat_minor": -1}]:
    p("notebook " + json.dumps(nb)[:40], c.post("/v1/submissions", json={"task": "safe_mean", "notebook": nb}))
for url in ["http://[::ffff:7f00:1]:1/", "http://0/", "http://0.0.0.0:1/", "http://127.1:1/", "http://017700000001/", "http://[::]/", "http://[fe80::1%25lo]/",
            "http://[::ffff:10.0.0.1]/", "http://ip6-localhost:1/", "http://localhost.:1/", "http://LOCALHOST/", "http://a.localhost./",
            "http://127.0.0.1.nip.io/", "http://169.254.169.254/latest", "http://[fd00::1]/", "http://100.64.0.1/", "http://[64:ff9b::7f00:1]/",
            "http://2130706433/", "http://0x7f.1/", "https://user:pw@127.0.0.1/", "http://127.0.0.1\t/", "http://\u2488/", "http://%31%32%37.0.0.1/", "ftp://x/", "http:///x"]:
    p("callback " + url, c.post("/v1/submissions", json={**good, "callback_url": url, "seed": 7}))
for sid in ["..%2f..%2fetc%2fpasswd", "%00", "x" * 5000, "'%20OR%201=1--", "%ff", "%ed%a0%80"]:
    p("GET id " + sid[:30], c.get(f"/v1/submissions/{sid}"))
p("task id traversal", c.get("/v1/tasks/..%2f..%2fREADME"))
p("hint traversal", c.get("/v1/tasks/safe_mean/hints/-1"))
p("hint 10**30", c.get("/v1/tasks/safe_mean/hints/" + "9" * 30))
p("wait=nan", c.get("/v1/submissions/x?wait=nan"))
p("wait=1e308", c.get("/v1/submissions/x?wait=1e308"))
p("wait=1_0", c.get("/v1/submissions/x?wait=1_0"))
p("preflight foreign", c.options("/v1/submissions", headers={"origin": "http://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type"}))
p("metrics foreign origin GET", c.get("/metrics", headers={"origin": "http://evil.example"}))
p("healthz foreign origin GET", c.get("/healthz", headers={"origin": "http://evil.example"}))
p("report.html of unknown", c.get("/v1/submissions/zz/report.html"))
