"""Benchmark: ingest a generated 5,000-turn conversation into a throwaway home.

Prints turns/s and how many memories were kept (with the real MiniLM embedder and the spaCy
model, as `mnemo ingest` runs them). The conversation is generated from templates with a fixed
seed: chatter, questions, decisions with reasons, preferences, bug reports, fixes and facts over
pools of names and topics, like a long working chat.

    .venv/bin/python scripts/bench_ingest.py                # 5,000 turns, in process with the models loaded
    .venv/bin/python scripts/bench_ingest.py --daemon       # through a real daemon, warmed by a first ingest
    .venv/bin/python scripts/bench_ingest.py --turns 500 --embedder hash-64
    .venv/bin/python scripts/bench_ingest.py --import-check # also: bulk import vs the bare embedder
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TECH = ["PostgreSQL", "Redis", "Kafka", "RabbitMQ", "Elasticsearch", "Grafana", "Terraform", "Kubernetes", "FastAPI",
        "Celery", "MongoDB", "ClickHouse", "Nginx", "Prometheus", "GitHub Actions", "Sentry", "Stripe", "Vault"]
PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"]
PARTS = ["billing service", "checkout flow", "search index", "login page", "export job", "audit log", "event bus",
         "invoice generator", "notification worker", "admin dashboard", "mobile API", "report builder"]
ERRORS = ["KeyError", "TimeoutError", "MemoryError", "ConnectionResetError", "ValueError", "PermissionError"]
CHATTER = ["Ok.", "Thanks!", "Sounds good.", "Got it, thanks.", "Great!", "Makes sense.", "Hmm.", "Cool, thanks a lot!"]
QUESTIONS = ["What do you think about the {p}?", "Can you check the {p} logs?", "Should we look at {t} for the {p}?",
             "Why is the {p} slow again?"]
STATEMENTS = [
    "We decided to use {t} for the {p} because {t2} could not keep up with the load.",
    "Let's go with {t} for the {p} instead of {t2}.",
    "{who} prefers {t} over {t2} for the {p}.",
    "I always use {t} when I debug the {p}.",
    "The {p} crashes with a {e} when {t} restarts.",
    "The {p} fails with a {e} about {n} times a day.",
    "We fixed the {e} in the {p} by upgrading {t}.",
    "Because of the {e} in the {p}, we will add retries around {t}.",
    "The {p} now stores {n} thousand records in {t}.",
    "{who} is working on the {p} migration to {t} this week.",
    "After moving the {p} to {t}, the p99 latency dropped to {n} ms.",
    "Update: we switched the {p} from {t2} to {t}.",
]


def generate(turns: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    t0 = 1_770_000_000.0
    for i in range(turns):
        speaker = rnd.choice(PEOPLE) if i % 2 == 0 else "assistant"
        r = rnd.random()
        fill = {"t": rnd.choice(TECH), "t2": rnd.choice(TECH), "p": rnd.choice(PARTS), "e": rnd.choice(ERRORS),
                "who": rnd.choice(PEOPLE), "n": rnd.randint(2, 900)}
        if r < 0.3:
            text = rnd.choice(CHATTER)
        elif r < 0.45:
            text = rnd.choice(QUESTIONS).format(**fill)
        else:
            text = " ".join(rnd.choice(STATEMENTS).format(**fill) for _ in range(rnd.choice((1, 1, 2))))
        out.append({"role": speaker, "content": text, "timestamp": t0 + i * 90})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=5000)
    ap.add_argument("--embedder", default="all-MiniLM-L6-v2", help="all-MiniLM-L6-v2 (default) or hash-64")
    ap.add_argument("--daemon", action="store_true", help="ingest through a running daemon (warmed by a first ingest)")
    ap.add_argument("--import-check", action="store_true", help="also compare `import` with the bare embedder")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="mnemo-bench-ingest-") as tmp:
        conv = Path(tmp) / "conversation.json"
        conv.write_text(json.dumps(generate(args.turns)), encoding="utf-8")
        home = Path(tmp) / "home"
        numbers = (_via_daemon if args.daemon else _in_process)(args, conv, home)
    numbers["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(numbers))
        return
    where = "through the warm daemon" if args.daemon else "in process, models loaded"
    print(f"ingest ({where}): {numbers['turns']} turns in {numbers['seconds']} s = {numbers['turns_per_second']} turns/s "
          f"({args.embedder}, {numbers['backend']})")
    print(f"kept {numbers['memories_kept']} memories {numbers['by_type']}; {numbers['duplicates_not_stored']} duplicates not stored; "
          f"{numbers['chatter_turns']} chatter turns and {numbers['dropped_sentences']} sentences dropped")
    print(f"links: {numbers['links']}")
    print(f"for scale, on this machine now: bare embedder {numbers['bare_embedder_texts_per_second']} texts/s, "
          f"spaCy {numbers['bare_spacy_docs_per_second']} docs/s; ingest turns/s over bare embedder texts/s "
          f"{numbers['ratio_to_bare_embedder']:.2f}; load average {numbers['load_average']}")
    if args.import_check:
        print(f"import: {numbers['import_per_second']} memories/s; bare embedder {numbers['embedder_per_second']} texts/s "
              f"({numbers['import_ratio']:.0%})")


def _bare_rates(embedder, model) -> tuple[float, float]:  # noqa: ANN001
    """The same machine's bare rates on turns of the same generator, for scale (a busy machine
    slows everything alike)."""
    sample = [t["content"] for t in generate(600, seed=3)]
    t = time.perf_counter()
    embedder.embed(sample)
    embed_rate = len(sample) / (time.perf_counter() - t)
    t = time.perf_counter()
    list(model.pipe(sample, batch_size=64))
    return embed_rate, len(sample) / (time.perf_counter() - t)


def _numbers(result: dict, seconds: float, args: argparse.Namespace, backend: str, rates: tuple[float, float]) -> dict:
    return {
        "turns": result["turns"],
        "seconds": round(seconds, 2),
        "turns_per_second": round(result["turns"] / seconds, 1),
        "memories_kept": result["kept"],
        "duplicates_not_stored": result["duplicates"],
        "chatter_turns": result["chatter_turns"],
        "dropped_sentences": result["dropped"],
        "by_type": result["by_type"],
        "links": result["links"],
        "embedder": args.embedder,
        "backend": backend,
        "bare_embedder_texts_per_second": round(rates[0], 1),
        "bare_spacy_docs_per_second": round(rates[1], 1),
        "ratio_to_bare_embedder": result["turns"] / seconds / rates[0],
    }


def _in_process(args: argparse.Namespace, conv: Path, home: Path) -> dict:
    """The engine in this process with its models loaded first: what a warm daemon runs."""
    from mnemo.clock import Clock
    from mnemo.config import load_settings
    from mnemo.engine import Mnemo
    from mnemo.nlp.entities import nlp

    settings = load_settings(home=home, overrides={"embedding.model": args.embedder})
    with Mnemo(settings, clock=Clock(1_770_000_000.0 + args.turns * 90 + 60)) as m:
        embedder = m.core.embedder  # the backend the settings choose (ONNX unless told otherwise), as the daemon's
        embedder.embed(["warm up the model"])
        model = nlp()
        _ = m.core.index
        rates = _bare_rates(embedder, model)
        t = time.perf_counter()
        result = m.ingest(str(conv))
        seconds = time.perf_counter() - t
        numbers = _numbers(result, seconds, args, type(embedder).__name__, rates)
        if args.import_check:
            numbers.update(_import_check(m, conv.parent, embedder))
    return numbers


def _via_daemon(args: argparse.Namespace, conv: Path, home: Path) -> dict:
    """A real daemon on the throwaway home, warmed by a first small ingest (models, spaCy and
    the index loaded), then the conversation sent to it by a client."""
    from mnemo.client import RemoteMnemo
    from mnemo.config import load_settings
    from mnemo.daemon.process import start_daemon, stop_daemon
    from mnemo.nlp.embedder import make_embedder
    from mnemo.nlp.entities import nlp

    os.environ.update({"MNEMO_EMBEDDING_MODEL": args.embedder, "HF_HUB_OFFLINE": "1"})
    start_daemon(home, timeout=600)
    try:
        client = RemoteMnemo.connect(home)
        assert client is not None, "the daemon did not answer"
        warm = conv.parent / "warm.json"
        warm.write_text(json.dumps(generate(40, seed=5)), encoding="utf-8")
        client.ingest(str(warm), session_id="warm-up")
        # The bare rates with the daemon's embedder settings (its exported model), in this
        # process, before the run.
        e = load_settings(home=home).embedding
        embedder = make_embedder(e.model, e.batch_size, backend=e.backend, cache_dir=home / "models")
        embedder.embed(["warm up the model"])
        rates = _bare_rates(embedder, nlp())
        backend = type(embedder).__name__
        del embedder
        t = time.perf_counter()
        result = client.ingest(str(conv))
        seconds = time.perf_counter() - t
        client.close()
    finally:
        stop_daemon(home)
    return _numbers(result, seconds, args, backend, rates)


def _import_check(m, tmp: Path, embedder) -> dict:  # noqa: ANN001
    """`import` queues its memories for enrichment instead of running spaCy: it must stay close
    to the bare embedder's rate."""
    rnd = random.Random(11)
    texts = [f"{rnd.choice(STATEMENTS)} ({i})".format(t=rnd.choice(TECH), t2=rnd.choice(TECH), p=rnd.choice(PARTS),
                                                      e=rnd.choice(ERRORS), who=rnd.choice(PEOPLE), n=i) for i in range(2000)]
    t = time.perf_counter()
    embedder.embed(texts)
    bare = len(texts) / (time.perf_counter() - t)
    path = tmp / "bulk.jsonl"
    path.write_text("\n".join(json.dumps({"content": x + " bulk"}) for x in texts), encoding="utf-8")
    t = time.perf_counter()
    m.import_jsonl(path)
    imp = len(texts) / (time.perf_counter() - t)
    return {"import_per_second": round(imp, 1), "embedder_per_second": round(bare, 1), "import_ratio": imp / bare}


if __name__ == "__main__":
    main()
