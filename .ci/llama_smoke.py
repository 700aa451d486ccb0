"""CI smoke check: the installed llama.cpp library (xllamacpp wheel) decodes one token of the bundled Gemma GGUF.

Run as a child process: a library using instructions this CPU traps ("Illegal instruction") dies
with SIGILL, and the caller sees a non-zero exit and one clear line instead of a crashed test session.
"""

import subprocess
import sys

CHILD = """
import os
from judgeaudit.providers.gguf import gemma_gguf
from judgeaudit.providers.llama_engine import Engine, SamplingParams
engine = Engine(path=gemma_gguf(), n_ctx=128, n_threads=1, n_threads_batch=1, n_batch=128)
out = engine.complete("Novelty is", 1, [], SamplingParams(temperature=0.0))
print("llama smoke: ok,", repr(out.text))
"""

done = subprocess.run([sys.executable, "-c", CHILD], check=False)
if done.returncode != 0:
    print(
        f"llama smoke: the llama.cpp library cannot decode on this CPU or failed to load (exit {done.returncode})",
        file=sys.stderr,
    )
sys.exit(0 if done.returncode == 0 else 1)
