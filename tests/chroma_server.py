"""A real Chroma server for tests: ``chroma run`` on a free loopback port and a temp folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

CHROMA = Path(sys.executable).with_name("chroma")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChromaServer:
    """Start/stop a server; ``restart`` keeps the port and the data folder."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = path.with_name(path.name + ".log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> ChromaServer:
        from mnemo.index.chroma_server import probe

        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(CHROMA), "run", "--host", "127.0.0.1", "--port", str(self.port), "--path", str(self.path)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:  # e.g. the port was taken: never talk to someone else's server
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                probe(self.url, timeout=1.0)
                return self
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"chroma run did not answer within {timeout} s")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc = None

    def restart(self) -> ChromaServer:
        self.stop()
        return self.start()
