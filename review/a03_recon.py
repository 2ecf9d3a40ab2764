# targets 3/4: what a wrong submission can reach from inside; prints findings (stdout
# comes back in the report) and then returns a wrong answer.  The verdict must be
# wrong_answer and nothing it tried may succeed.
import os, signal, glob, sys
import jax, jax.numpy as jnp
R = []
def t(name, f):
    try:
        R.append(f"{name}: OK {str(f())[:120]!r}")
    except BaseException as e:
        R.append(f"{name}: no ({type(e).__name__}: {str(e)[:60]})")
here = os.path.dirname(os.path.abspath(__file__))
for p in ["/work/wt/review-trust/reference/safe_mean.py", "/work/main/reference/safe_mean.py",
          os.path.expanduser("~/.cache/jax-judge"), "/root/.cache/jax-judge", "/etc/shadow",
          "/tmp/rt_canary/secret.txt", "/proc/1/environ", f"/proc/{os.getppid()}/environ",
          f"/proc/{os.getppid()}/cmdline", f"/proc/{os.getppid()}/root/etc/hostname"]:
    t("read " + p, lambda p=p: (os.listdir(p) if os.path.isdir(p) else open(p, "rb").read(80)))
t("write canary", lambda: open("/tmp/rt_canary/pwned", "w").write("x"))
t("pids", lambda: sorted(int(x) for x in os.listdir("/proc") if x.isdigit())[:40])
t("cmdlines", lambda: [open(f"/proc/{x}/cmdline","rb").read(100) for x in os.listdir("/proc") if x.isdigit()][:30])
t("kill ppid 0", lambda: os.kill(os.getppid(), 0))
t("fds", lambda: os.listdir("/proc/self/fd"))
t("sys.path", lambda: sys.path)
t("uid", lambda: (os.getuid(), os.geteuid(), open("/proc/self/status").read().split("CapEff:")[1][:20]))
t("import judge", lambda: __import__("judge"))
t("find ref", lambda: glob.glob("/**/reference/safe_mean.py", recursive=False))
t("socketpair", lambda: __import__("socket").socketpair())
t("unix connect", lambda: __import__("socket").socket(__import__("socket").AF_UNIX).connect("/run/docker.sock"))
t("ptrace ppid mem", lambda: open(f"/proc/{os.getppid()}/mem","rb"))
print("\n".join(R))

@jax.jit
def safe_mean(x):
    return jnp.float32(42.0)
