"""How fast `mnemo mcp` answers an MCP client: time from process start to the `initialize`
answer (target: under 1.5 s), with the daemon already running, and then to the first tool
result.

    .venv/bin/python scripts/bench_mcp_start.py [--runs 10] [--home PATH]

Without --home it uses a temporary home and a daemon with the hash embedder, started for the
run and stopped at the end (the bridge never loads a model, so the embedder does not change
what is measured). For context it also times the bare interpreter and the MCP SDK's import,
the floor under any Python MCP server, and prints the load average (other processes on a
2-core machine stretch every wall time).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
STATS = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "stats", "arguments": {}}}


def send(proc: subprocess.Popen[bytes], msg: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(msg).encode() + b"\n")
    proc.stdin.flush()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(cmd: list[str], env: dict[str, str], nice: int = 0) -> tuple[float, float, float]:
    """(seconds to the initialize answer, seconds to the first tool result, CPU seconds the
    bridge process had used when it answered initialize)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            preexec_fn=(lambda: os.nice(nice)) if nice else None)  # noqa: PLW1509
    assert proc.stdout is not None
    send(proc, INIT)
    line = proc.stdout.readline()
    t_init = time.perf_counter() - t0
    cpu_init = cpu_seconds(proc.pid)
    if b'"result"' not in line:
        raise SystemExit(f"unexpected answer to initialize: {line[:200]!r}")
    send(proc, INITIALIZED)
    send(proc, STATS)
    line = proc.stdout.readline()
    t_tool = time.perf_counter() - t0
    if b'"isError":true' in line.replace(b" ", b"") or b'"result"' not in line:
        raise SystemExit(f"the stats tool failed: {line[:300]!r}")
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait()
    return t_init, t_tool, cpu_init


def timed(cmd: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--home", help="use this home and its running (or started) daemon")
    ap.add_argument("--nice", type=int, default=0,
                    help="run the bridge at this niceness (e.g. -10 as root) to measure it on a machine busy with other work")
    args = ap.parse_args()

    from mnemo.client import RemoteMnemo
    from mnemo.daemon.process import start_daemon, stop_daemon

    tmp = None
    if args.home:
        home = Path(args.home).expanduser().absolute()
        env = {**os.environ, "MNEMO_HOME": str(home)}
    else:
        tmp = tempfile.TemporaryDirectory(prefix="mnemo-bench-mcp-")
        home = Path(tmp.name) / "home"
        env = {**os.environ, "MNEMO_HOME": str(home), "MNEMO_EMBEDDING_MODEL": "hash-64"}
    started = False
    if RemoteMnemo.connect(home) is None:
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # the daemon inherits the settings
        try:
            info = start_daemon(home, timeout=120)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        started = True
        print(f"daemon started for the run (pid {info['pid']})")
    mnemo = Path(sys.executable).with_name("mnemo")
    cmd = [str(mnemo) if mnemo.exists() else sys.executable, *([] if mnemo.exists() else ["-m", "mnemo"]), "mcp"]
    try:
        one_run(cmd, env, args.nice)  # warm the file cache
        results = [one_run(cmd, env, args.nice) for _ in range(args.runs)]
        floor_py = timed([sys.executable, "-c", "pass"], env, 5)
        floor_sdk = timed([sys.executable, "-c", "import mcp.server.mcpserver"], env, 5)
    finally:
        if started:
            stop_daemon(home)
        if tmp is not None:
            tmp.cleanup()

    inits = sorted(r[0] for r in results)
    tools = sorted(r[1] for r in results)
    cpus = sorted(r[2] for r in results)

    def p(xs: list[float], q: float) -> float:
        return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]

    load = os.getloadavg()
    print(f"mnemo mcp, {args.runs} runs, daemon already running ({os.cpu_count()} cores, load average {load[0]:.2f}"
          + (f", bridge at niceness {args.nice}" if args.nice else "") + ")")
    print(f"  start -> initialize answer   median {statistics.median(inits):.3f} s   p90 {p(inits, 0.9):.3f} s   "
          f"min {inits[0]:.3f} s   target < 1.5 s: {'met' if statistics.median(inits) < 1.5 else 'NOT met'}")
    print(f"  start -> first tool result   median {statistics.median(tools):.3f} s   p90 {p(tools, 0.9):.3f} s")
    print(f"  CPU time to initialize       median {statistics.median(cpus):.3f} s   "
          "(what the wall time approaches on an idle machine)")
    print(f"  floor: bare python {floor_py:.3f} s; python importing the MCP SDK {floor_sdk:.3f} s")


if __name__ == "__main__":
    main()
