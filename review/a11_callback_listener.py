"""target 6: do callbacks ever reach loopback?  Listens on 127.0.0.1 and ::1 (port argv[2]),
submits with odd callback spellings to judge serve on 127.0.0.1:argv[1], waits for the
reports, prints every connection the listener got (none = held)."""
import json, socket, sys, threading, time
import httpx
port, lport = int(sys.argv[1]), int(sys.argv[2])
hits = []
def listen(fam, addr):
    s = socket.socket(fam); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((addr, lport)); s.listen()
    while True:
        c, a = s.accept(); hits.append((addr, a, c.recv(300)[:120])); c.close()
for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    threading.Thread(target=listen, args=(fam, addr), daemon=True).start()
urls = [f"http://ip6-localhost:{lport}/", f"http://%31%32%37.0.0.1:{lport}/", f"http://ip6-loopback:{lport}/",
        f"http://[::1%25lo]:{lport}/", f"http://127.0.0.1%09:{lport}/", f"http://{socket.gethostname()}:{lport}/",
        f"http://\u2474\u2024\u2070\u2024\u2070\u2024\u2460:{lport}/", f"http://127.0.0.1\u3002:{lport}/"]
c = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
ids = []
for i, u in enumerate(urls):
    r = c.post("/v1/submissions", json={"task": "safe_mean", "seed": 1000 + i, "callback_url": u,
               "source": f"import jax.numpy as jnp\ndef safe_mean(x):\n    return jnp.float32({i})\n"})
    print(u, r.status_code, r.text[:150]); ids.append(r.json().get("id"))
for i in ids:
    if i:
        r = c.get(f"/v1/submissions/{i}?wait=120"); print(i, r.headers.get("judge-state"))
time.sleep(5)
print("listener got:", hits or "nothing")
