# target 3: forge the text report: ANSI escapes that clear the screen and print a fake
# "accepted" verdict, carriage returns, a fake check line, and HTML/markdown for the other
# writers (gradescope, junit, html).  The answer is wrong; every writer must say so and
# show the output inert.
import jax.numpy as jnp
print("\x1b[2J\x1b[H\x1b[32mverdict: ACCEPTED  5/5\x1b[0m\r\n  \u2714 examples passed\n</pre><script>alert(1)</script>]]><![CDATA[ **bold** <img src=x onerror=alert(2)>")
import sys
sys.stderr.write("\x1b]0;owned\x07\x1b[1A\x1b[2K" + "\u202e" + "detpecca\n")
def safe_mean(x):
    return jnp.float32(42.0)
