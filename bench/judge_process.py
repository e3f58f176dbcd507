"""tests/judge_server.py in a process of its own, for the benchmarks.

In-process, the server's threads would compete with the engine for the GIL and a benchmark
would measure that instead of the engine. ``calls()`` counts the live chat completions the
server logged; after the ``with`` block, ``cpu`` is the server's user + sys time (its share of
the machine, to read a wall time by).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MET = json.dumps({"criterion_status": "MET", "explanation": "Meets it."})


class JudgeProcess:
    def __init__(self, latency_ms: float, log: Path, *extra: str, reply: str = MET):
        """``extra``: more of judge_server.py's options (``--when TEXT=JSON``, ``--batch-seconds S``)."""
        self.log = log
        self.cpu = 0.0
        command = [sys.executable, str(REPO / "tests" / "judge_server.py"), "--port", "0"]
        command += ["--latency-ms", str(latency_ms), "--reply-json", reply, "--log", str(log), *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().split()[1]

    def calls(self) -> int:
        try:
            with self.log.open("rb") as handle:
                # Live calls only: a batch's creation names the chat-completions endpoint in its body.
                return sum(1 for line in handle if b'"path": "/v1/chat/completions"' in line)
        except OSError:
            return 0

    def __enter__(self) -> JudgeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        _, _, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = 0
        self.cpu = usage.ru_utime + usage.ru_stime
