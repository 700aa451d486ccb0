"""Throughput of the data layer: JSONL write/check, HF save/load/parquet, YAML benchmark conversion.

Run: python tests/benchmarks/bench_data_io.py [N]   (not collected by pytest)
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for the helpers' item makers
from helpers.items import make_idea  # noqa: E402

from judgeaudit.data import hf  # noqa: E402
from judgeaudit.data.contract import PairItem  # noqa: E402
from judgeaudit.data.convert.novelty_judge_bench import convert_dir  # noqa: E402
from judgeaudit.data.jsonl import check_file, write_items  # noqa: E402


def timed(label: str, n: int, fn: Callable[[], Any]) -> Any:
    """Run fn once, print wall time and items/s."""
    start = time.perf_counter()
    result = fn()
    dt = time.perf_counter() - start
    print(f"{label:<34} {dt:7.3f} s  {n / dt:10.0f} items/s")
    return result


def main(n: int = 20_000) -> None:
    """Build n synthetic pairs and time each data-layer step."""
    pairs = []
    for i in range(n):
        area = f"area {i % 17}"
        a = make_idea(f"n{i}", "novel", area=area, text=f"Novel idea {i}: " + "word " * 150)
        b = make_idea(f"p{i}", "not_novel", area=area, text=f"Plain idea {i}: " + "word " * 150)
        pairs.append(
            PairItem(
                pair_id=f"pair{i}", setup="human_only", area=area, idea_a=a, idea_b=b, gold="a"
            )
        )
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        timed("write_items (JSONL)", n, lambda: write_items(d / "set" / "pairwise.jsonl", pairs))
        print(f"  file size: {(d / 'set' / 'pairwise.jsonl').stat().st_size / 1e6:.1f} MB")
        items, problems = timed(
            "check_file (parse + validate)", n, lambda: check_file(d / "set" / "pairwise.jsonl")
        )
        assert len(items) == n and not problems
        dd = timed("to_dataset_dict", n, lambda: hf.to_dataset_dict(d / "set"))
        timed("save_to_disk", n, lambda: hf.save_to_disk(dd, d / "disk"))
        timed("load_from_disk -> items", n, lambda: hf.load_from_disk(d / "disk"))
        timed("to_parquet", n, lambda: hf.to_parquet(dd, d / "pq"))
        timed("read_parquet -> items", n, lambda: hf.read_parquet(d / "pq"))
        src = d / "njb" / "human-only"
        src.mkdir(parents=True)
        doc = {
            f"inst-{i}": {
                "context": p.area,
                "expected_winners": [0],
                "ideas": {0: p.idea_a.text, 1: p.idea_b.text},
                "metadata": {
                    0: {"type": "POSITIVE", "rating": "7.5", "contribution": "3.25"},
                    1: {"type": "NEGATIVE", "rating": "2.0", "contribution": "1.5"},
                },
            }
            for i, p in enumerate(pairs)
        }
        (src / "pairwise.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
        conv = timed("convert novelty-judge-bench YAML", n, lambda: convert_dir(d / "njb"))
        assert not conv.problems and len(conv.files[0].items) == n


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
