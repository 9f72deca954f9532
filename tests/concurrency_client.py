"""One client of the concurrency test (``tests/test_concurrency.py``): a seeded mix of save,
recall, touch and promote through the running daemon's API, then a JSON account of everything
the daemon acknowledged.

    python tests/concurrency_client.py HOME CLIENT_NO OPS SHARED_IDS_JSON
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from mnemo.client import RemoteMnemo
from mnemo.errors import MnemoError

TOPICS = ["billing", "search", "deploys", "alerts", "invoices", "gateway", "backups", "onboarding", "mobile", "payments"]


def main() -> None:
    home, no, ops, shared = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
    client = RemoteMnemo.connect(home, timeout=10)
    if client is None:
        raise SystemExit("no daemon answers")
    rnd = random.Random(f"client-{no}")
    saved: dict[str, str] = {}
    touched: dict[str, int] = {}
    promoted: dict[str, list[str]] = {}
    counts = {"save": 0, "recall": 0, "touch": 0, "promote": 0}
    errors: list[str] = []
    seconds = {"save": 0.0, "recall": 0.0, "touch": 0.0, "promote": 0.0}
    for i in range(ops):
        op = rnd.choices(["save", "recall", "touch", "promote"], weights=[4, 3, 2, 1])[0]
        mine = list(saved)
        if op in ("touch", "promote") and not mine:
            op = "save"
        t0 = time.perf_counter()
        try:
            if op == "save":
                text = f"Client {no} note {i}: the {rnd.choice(TOPICS)} team moved item {rnd.randrange(10**6)} forward."
                r = client.save(text, tags=[f"c{no}"])
                saved[r.memory.id] = text
            elif op == "recall":
                client.recall(f"the {rnd.choice(TOPICS)} team item", k=5)
            elif op == "touch":
                mid = rnd.choice(mine + shared)  # shared memories are touched by every client at once
                client.touch(mid)
                touched[mid] = touched.get(mid, 0) + 1
            else:
                mid = rnd.choice(mine[-20:] + shared[:3])  # a few shared ones are promoted by all
                [res] = client.promote(mid)
                promoted.setdefault(mid, []).append(res.path)
            counts[op] += 1
        except MnemoError as exc:
            errors.append(f"{op}: {type(exc).__name__}: {exc.message}")
        seconds[op] += time.perf_counter() - t0
    print(json.dumps({"saved": saved, "touched": touched, "promoted": promoted, "counts": counts, "errors": errors,
                      "seconds": seconds}))


if __name__ == "__main__":
    main()
