"""The judge: the steps that need language understanding, behind one small interface.

- ``relation(new, old, proposed)``: is the link the rules propose between two memories real,
  and of which type? Returns the link to store, or None.
- ``same(a, b)``: do two memories say the same thing (may they be merged)?

Extraction at ingest asks the same endpoint through ``HttpJudge.ask`` (``mnemo.judge_extract``).

``RuleJudge`` is the default: deterministic and offline; it keeps what the rules propose and
calls two memories the same when their words nearly coincide and they do not contradict.
``HttpJudge`` asks an OpenAI-compatible chat-completions endpoint (a local model server such as
llama.cpp, vLLM or Ollama), configured by ``judge.url`` and off by default. Nothing depends on
it: when the endpoint fails or answers something unusable, the rules decide, and after a
failure the endpoint is left alone for a minute instead of stalling every pair on a timeout.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, Protocol

from .models import Link, Memory

if TYPE_CHECKING:
    from .config import Settings

log = logging.getLogger(__name__)

MODEL_WEIGHT = 0.8
RETRY_AFTER = 60.0
SAME_JACCARD = 0.8
# Relations a judge may choose; "none" drops the proposal.
RELATIONS = ("because", "triggered", "resolves", "updates", "contradicts", "supersedes", "conflicts")
_NEW_TO_OLD = frozenset({"supersedes", "conflicts"})  # the other relations run old → new


class Judge(Protocol):
    name: str

    def relation(self, new: Memory, old: Memory, proposed: Link) -> Link | None: ...

    def same(self, a: Memory, b: Memory) -> bool: ...


def orient(new: Memory, old: Memory, rel: str, origin: str, weight: float, at: float) -> Link:
    """A link of type ``rel`` between a newer and an older memory, in the direction the graph
    rules use (``graph.rules``: causal links old → new, supersedes and conflicts new → old)."""
    if rel in _NEW_TO_OLD:
        return Link(new.id, old.id, rel, origin, weight, at)
    return Link(old.id, new.id, rel, origin, weight, at)


class RuleJudge:
    name = "rules"

    def relation(self, new: Memory, old: Memory, proposed: Link) -> Link | None:
        return proposed

    def same(self, a: Memory, b: Memory) -> bool:
        from .graph.rules import exclusive

        wa = set(re.findall(r"\w+", a.content.lower()))
        wb = set(re.findall(r"\w+", b.content.lower()))
        if not wa or not wb:
            return False
        return len(wa & wb) / len(wa | wb) >= SAME_JACCARD and not exclusive(a, b)


class HttpJudge:
    """An OpenAI-compatible ``/chat/completions`` endpoint, with the rules as the fallback."""

    name = "http"

    def __init__(self, url: str, model: str = "local", timeout: float = 10.0, api_key: str | None = None) -> None:
        url = url.rstrip("/")
        self.url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self.model = model
        self.timeout = timeout
        self.api_key = api_key
        self.fallback = RuleJudge()
        self._down_until = 0.0
        self._lock = threading.Lock()

    def ask(self, system: str, user: str, max_tokens: int = 8, timeout: float | None = None,
            json_answer: bool = False) -> str | None:
        """The model's answer, or None when the endpoint failed (or is resting after a failure).
        ``json_answer`` asks the server for a JSON object (``response_format``, which llama.cpp,
        vLLM and Ollama honour); the caller still validates what comes back."""
        with self._lock:
            if time.monotonic() < self._down_until:
                return None
        request: dict[str, Any] = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": max_tokens,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        if json_answer:
            request["response_format"] = {"type": "json_object"}
        body = json.dumps(request).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout if timeout is None else timeout) as resp:  # noqa: S310 - a configured URL
                data = json.loads(resp.read().decode("utf-8"))
            return str(data["choices"][0]["message"]["content"]).strip()
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            with self._lock:
                self._down_until = time.monotonic() + RETRY_AFTER
            log.warning("judge endpoint %s failed (%s); the rules decide for the next %.0f s", self.url, exc, RETRY_AFTER)
            return None

    def relation(self, new: Memory, old: Memory, proposed: Link) -> Link | None:
        answer = self.ask(
            "You classify how a newer memory relates to an older one. Answer with exactly one word from: "
            + ", ".join(RELATIONS) + ", none. Say none unless the relation is clear.",
            f"Older memory: {old.content[:1500]}\nNewer memory: {new.content[:1500]}\n"
            f"A rule suggests: {proposed.rel}. Which relation holds?",
        )
        if answer is None:
            return self.fallback.relation(new, old, proposed)
        word = (re.findall(r"[a-z_]+", answer.lower()) or [""])[0]
        if word == "none":
            return None
        if word not in RELATIONS:
            return self.fallback.relation(new, old, proposed)
        return orient(new, old, word, "model", MODEL_WEIGHT, proposed.created_at)

    def same(self, a: Memory, b: Memory) -> bool:
        answer = self.ask(
            "You decide whether two memories state the same thing and can be merged into one. Answer yes or no.",
            f"Memory A: {a.content[:1500]}\nMemory B: {b.content[:1500]}",
        )
        if answer is None:
            return self.fallback.same(a, b)
        word = (re.findall(r"[a-z]+", answer.lower()) or [""])[0]
        if word in ("yes", "no"):
            return word == "yes"
        return self.fallback.same(a, b)


_http: dict[tuple[str, str], HttpJudge] = {}
_http_lock = threading.Lock()


def make_judge(settings: Settings | Any) -> Judge:
    """The configured judge: the HTTP one when ``judge.url`` is set, else the rules."""
    cfg = settings.judge
    if not cfg.url:
        return RuleJudge()
    key = (cfg.url, cfg.model)
    with _http_lock:
        judge = _http.get(key)
        if judge is None:
            judge = _http[key] = HttpJudge(cfg.url, cfg.model, timeout=cfg.timeout, api_key=cfg.api_key)
        return judge
