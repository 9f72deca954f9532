"""The client hooks' cost to the assistant, through a warm daemon at 10,000 memories.

    nice -n 10 .venv/bin/python scripts/bench_hooks.py [--n 10000] [--runs 30] [--json]

On a throwaway home: starts a real daemon (the real model), imports N memories spread over ten
projects (wings) and shared ones (no wing, a few pinned), waits for the daemon to be warm, then

- runs the whole `mnemo hook session-start` process (as the client does: a fresh Python
  process, the payload on stdin) ``--runs`` times in one project and reports its wall time
  (target: p95 under 300 ms) and the size of the block it printed;
- writes a Claude Code transcript of ``--turns`` turns and runs `mnemo hook session-end` on
  it: the process's wall time (target: under 300 ms), and when the daemon's background ingest
  of that transcript finished (it goes on after the hook has returned).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_daemon import OBJECTS, SUBJECTS, corpus, pct

from mnemo.client import RemoteMnemo
from mnemo.daemon.process import start_daemon, stop_daemon

PROJECTS = 10
NO_JOBS = {f"MNEMO_DAEMON_{j.upper()}_INTERVAL": "0" for j in ("activity", "promote", "gc", "enrich", "dashboard", "dream")}


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hook_wall(event: str, payload: dict[str, object], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mnemo", "hook", event, "--strict"], input=json.dumps(payload),
                       env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"mnemo hook {event} failed: {r.stderr}")
    return wall, r.stdout


def transcript(path: Path, session: str, cwd: str, turns: int, seed: int = 5) -> None:
    rnd = random.Random(seed)
    lines = [{"type": "summary", "summary": "bench session", "leafUuid": "x"}]
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        text = (f"We decided that {rnd.choice(SUBJECTS)} should use {rnd.choice(OBJECTS)} for step {i}, "
                f"because {rnd.choice(SUBJECTS)} already depends on {rnd.choice(OBJECTS)}.")
        content = text if role == "user" else [{"type": "text", "text": text},
                                               {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": "x"}}]
        lines.append({"type": role, "sessionId": session, "cwd": cwd, "isSidechain": False, "uuid": f"u{i}",
                      "timestamp": f"2026-03-02T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                      "message": {"role": role, "content": content}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--runs", type=int, default=30, help="session-start processes timed")
    ap.add_argument("--turns", type=int, default=40, help="turns in the transcript session-end captures")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="mnemo-bench-hooks-"))
    home = tmp / "home"
    projects = []
    for i in range(PROJECTS):
        p = tmp / "src" / f"project-{i}"
        (p / ".git").mkdir(parents=True)
        projects.append(p)
    env = {**os.environ, "MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": args.model, "HF_HUB_OFFLINE": "1",
           "MNEMO_HOOKS_START_DAEMON": "0", "MNEMO_HOOKS_CAPTURE_FALLBACK": "0"}
    # Scheduled jobs off: the daemon's CPU time below is then the hooks' alone.
    env.update(NO_JOBS)
    os.environ.update({k: env[k] for k in ("MNEMO_EMBEDDING_MODEL", "HF_HUB_OFFLINE", *NO_JOBS)})
    out: dict[str, object] = {"memories": args.n, "model": args.model}
    start_daemon(home, timeout=600)
    client = RemoteMnemo.connect(home)
    assert client is not None
    try:
        rnd = random.Random(7)
        items = []
        for i, text in enumerate(corpus(args.n)):
            shared = rnd.random() < 0.3
            items.append({"content": text, "wing": None if shared else str(rnd.choice(projects)),
                          "pinned": shared and i % 1000 == 0})
        path = tmp / "memories.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in items))
        client.import_jsonl(path)
        deadline = time.monotonic() + 600
        while not client.daemon_status().get("warm") and time.monotonic() < deadline:
            time.sleep(0.5)

        cwd = projects[3] / "src"
        cwd.mkdir()
        start = {"session_id": "bench-start", "transcript_path": str(tmp / "none.jsonl"), "cwd": str(cwd),
                 "hook_event_name": "SessionStart", "source": "startup"}
        pid = client.endpoint.pid
        api = []
        d0 = cpu_s(pid)
        for _ in range(args.runs):  # the daemon's part alone
            t0 = time.perf_counter()
            client.call("project_context", {"project": str(projects[3]), "session_id": "bench-api"})
            api.append((time.perf_counter() - t0) * 1000)
        out["project_context_api_ms"] = {"p50": round(pct(api, 50), 1), "p95": round(pct(api, 95), 1),
                                         "daemon_cpu_mean": round((cpu_s(pid) - d0) * 1000 / args.runs, 1)}
        walls, cpus, tokens = [], [], []
        for _ in range(args.runs):
            before = os.times()
            wall, stdout = hook_wall("session-start", start, env)
            after = os.times()
            walls.append(wall * 1000)
            cpus.append((after.children_user + after.children_system - before.children_user - before.children_system) * 1000)
            tokens.append(len(json.loads(stdout)["hookSpecificOutput"]["additionalContext"]) if stdout else 0)
        out["session_start_ms"] = {"p50": round(pct(walls, 50), 1), "p95": round(pct(walls, 95), 1),
                                   "max": round(max(walls), 1), "runs": args.runs}
        out["session_start_cpu_ms"] = {"p50": round(pct(cpus, 50), 1), "p95": round(pct(cpus, 95), 1)}
        out["session_start_block_chars"] = int(statistics.median(tokens))

        tpath = tmp / "session.jsonl"
        transcript(tpath, "bench-end", str(cwd), args.turns)
        end = {"session_id": "bench-end", "transcript_path": str(tpath), "cwd": str(cwd),
               "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
        t_hook = time.time()
        wall, _ = hook_wall("session-end", end, env)
        returned = time.time()
        out["session_end_ms"] = round(wall * 1000, 1)
        job = None
        while time.monotonic() < deadline + 600:
            recent = client.daemon_status()["background"]["recent"]
            job = next((j for j in reversed(recent) if j["op"] == "capture"), None)
            if job and job["state"] in ("done", "failed"):
                break
            time.sleep(0.2)
        assert job is not None and job["state"] == "done", job
        out["capture"] = {"turns": job["result"]["new_turns"], "kept": job["result"]["kept"],
                          "ingest_s": round(job["finished_at"] - job["started_at"], 2),
                          "finished_after_hook_returned_s": round(job["finished_at"] - returned, 2),
                          "hook_started_to_finished_s": round(job["finished_at"] - t_hook, 2)}
    finally:
        stop_daemon(home)
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_average"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(out))
        return
    s, c = out["session_start_ms"], out["capture"]
    print(f"mnemo hooks at {args.n:,} memories ({args.model}, {os.cpu_count()} cores, warm daemon)")
    print(f"  `mnemo hook session-start` process   p50 {s['p50']:.0f} ms   p95 {s['p95']:.0f} ms   max {s['max']:.0f} ms"
          f"   ({s['runs']} runs; target p95 < 300 ms: {'met' if s['p95'] < 300 else 'NOT met'})")
    cpu, api = out["session_start_cpu_ms"], out["project_context_api_ms"]
    print(f"  ... the hook process's own CPU time  p50 {cpu['p50']:.0f} ms   p95 {cpu['p95']:.0f} ms")
    print(f"  ... the daemon's part (the request)  p50 {api['p50']:.0f} ms   p95 {api['p95']:.0f} ms   wall;"
          f" {api['daemon_cpu_mean']:.0f} ms of the daemon's CPU per request")
    print(f"  block printed                        {out['session_start_block_chars']} characters")
    print(f"  `mnemo hook session-end` process     {out['session_end_ms']:.0f} ms   "
          f"(target < 300 ms: {'met' if out['session_end_ms'] < 300 else 'NOT met'})")
    print(f"  background capture of {c['turns']} turns        {c['ingest_s']:.2f} s in the daemon, kept {c['kept']} memories,"
          f" finished {c['finished_after_hook_returned_s']:.2f} s after the hook returned")
    print(f"  load average during the run: {out['load_average']}")


if __name__ == "__main__":
    main()
