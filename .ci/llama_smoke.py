"""CI smoke check: the installed llama-cpp-python decodes one token of the bundled Gemma GGUF.

Run as a child process: a build that uses instructions this CPU traps dies with SIGILL, and the
caller sees a non-zero exit instead of a crashed test session.
"""

import subprocess
import sys

CHILD = """
from judgeaudit.providers.gguf import gemma_gguf
from llama_cpp import Llama
llm = Llama(model_path=str(gemma_gguf()), n_ctx=128, n_threads=1, verbose=False)
out = llm("Novelty is", max_tokens=1)
print("llama smoke: ok,", repr(out["choices"][0]["text"]))
"""

done = subprocess.run([sys.executable, "-c", CHILD], check=False)
if done.returncode != 0:
    print(f"llama smoke: failed (exit {done.returncode})", file=sys.stderr)
sys.exit(0 if done.returncode == 0 else 1)
