"""The reference for bench_scale.py's live leg: the same judge requests, sent by a bare aiohttp client.

Reads the chat-completion requests a judge server logged (tests/judge_server.py --log: one JSON line
per request, its body included) and sends them again, in the same order, to ``--base`` with
``--concurrency`` of them in flight: one ClientSession, a worker per slot, each reply read and
parsed as JSON, nothing else. What rubric grade does on top (planning, prompts, cache, run file,
parsing verdicts, figures, output) is the difference between this wall time and its own, on the
same machine, the same server and the same requests. Prints one JSON line: wall seconds, calls.

    python bench/reference_client.py --base http://127.0.0.1:PORT/v1 --log requests.jsonl [--concurrency 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path


def bodies(log: Path) -> list[bytes]:
    with log.open(encoding="utf-8") as lines:
        entries = (json.loads(line) for line in lines if line.strip())
        return [json.dumps(e["body"]).encode() for e in entries if e.get("path", "").endswith("/chat/completions")]


async def replay(base: str, requests: list[bytes], concurrency: int) -> float:
    import aiohttp

    url = base.rstrip("/") + "/chat/completions"
    headers = {"Authorization": "Bearer sk-reference", "Content-Type": "application/json"}
    pending = iter(requests)
    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def worker() -> None:
            for body in pending:
                async with session.post(url, data=body, headers=headers) as reply:
                    json.loads(await reply.read())

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True)
    p.add_argument("--log", type=Path, required=True)
    p.add_argument("--concurrency", type=int, default=64)
    args = p.parse_args(argv)
    requests = bodies(args.log)
    wall = asyncio.run(replay(args.base, requests, args.concurrency))
    print(json.dumps({"wall": wall, "calls": len(requests)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
