"""Language-server latency: didChange → diagnostics, and start → first diagnostics.

    python bench/bench_server.py [--rounds N] [--big PATH]

Drives ``rubric-lsp`` over stdio as a client would (push diagnostics) and prints:
- didChange → publishDiagnostics on a 50-criterion rubric       (goal ≤ 30 ms)
- didChange → publishDiagnostics on promptfoo's largest example  (goal ≤ 1.5 s)
- process start → first diagnostics of an opened rubric          (goal ≤ 1 s)
- hover on a model-graded assertion of that example, once linted (goal ≤ 20 ms)
- the server's resident memory after 10,000 one-character edits  (goal: growth ≤ 0.2 KB per edit)
Exits 1 if a median misses its goal. ``--memory-only`` runs the last one alone; ``--server-path``
points PYTHONPATH at another checkout (e.g. main, for a before/after figure).

``--compare`` measures instead, in turns within one run (so that the machine's load hits each alike),
didChange → diagnostics on the large config for this server, for the last release's (``--base-path``
with ``--base-python``: its own clone and venv) and for Red Hat's yaml-language-server
($RUBRIC_YAML_LS, validating against promptfoo's published schema), and start → first diagnostics for
the first two; it prints medians and each as a ratio to yaml-language-server's (the goal: ≤ 0.5). Each turn
times four edits of that file, the servers in turn for each (``EDIT_KINDS``): typing inside a value (the goal's
figure), then a value deleted whole, the first letter of a new value there, and its key renamed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_ratios import byte_compile  # (bench/ is the script's folder: on sys.path)

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RUBRIC_SHARED_DIR", REPO.parent / "shared"))
BIG_DEFAULT = SHARED / "corpus" / "promptfoo" / "examples" / "redteam-medical-agent" / "redteam.yaml"
SERVER = [sys.executable, "-m", "rubric_lsp", "serve"]


class Client:
    """A minimal LSP client over the server's stdio (a reader thread queues every message)."""

    def __init__(
        self, cwd: Path, server_path: Path = REPO, command: list[str] | None = None, settings: dict | None = None
    ) -> None:
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(server_path)}
        self.settings = settings or {}  # answers to workspace/configuration, by section
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            command or SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if os.environ.get("BENCH_STDERR") else subprocess.DEVNULL,
            cwd=cwd,
            env=env,
        )
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        stdout = self.proc.stdout
        while True:
            length = None
            while True:
                line = stdout.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.messages.put((time.perf_counter(), json.loads(stdout.read(length))))

    def send(self, method: str, params, request: bool = False) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return message.get("id")

    def wait(self, match, timeout: float = 60.0):
        deadline = time.perf_counter() + timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError("no matching message")
            at, message = self.messages.get(timeout=remaining)
            if "method" in message and "id" in message:  # a server request (configuration, progress…)
                reply = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "result": [self.settings.get(item.get("section")) for item in message["params"].get("items", [])]
                    if message["method"] == "workspace/configuration"
                    else None,
                }
                body = json.dumps(reply).encode()
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
                continue
            if match(message):
                return at, message

    def initialize(self, root: Path) -> None:
        rid = self.send(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": {
                    "textDocument": {"publishDiagnostics": {"versionSupport": True}},
                    "workspace": {"configuration": True},
                },
            },
            request=True,
        )
        self.wait(lambda m: m.get("id") == rid)
        self.send("initialized", {})

    def diagnostics_for(self, uri: str, version: int, timeout: float = 60.0):
        return self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version", version) == version  # yaml-language-server sends none
            ),
            timeout,
        )

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process has used so far (Linux /proc)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")

    def rss_kb(self) -> int:
        """The server's resident set size (Linux /proc), in KB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        try:
            rid = self.send("shutdown", None, request=True)
            self.wait(lambda m: m.get("id") == rid, 10)
            self.send("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def rubric(criteria: int, salt: int = 0) -> str:
    lines = ["rubric:"]
    for i in range(criteria):
        lines += [
            f"  - name: criterion-{i}",
            f"    weight: {(i % 7) + 1}",
            f"    requirement: The answer states fact number {i} correctly (revision {salt})",
        ]
    return "\n".join(lines) + "\n"


def time_changes(client: Client, uri: str, texts: list[str], first_version: int) -> list[float]:
    """Seconds from each didChange to the diagnostics of that version (one change at a time)."""
    timings = []
    for offset, text in enumerate(texts):
        version = first_version + offset
        sent = time.perf_counter()
        client.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        at, _ = client.diagnostics_for(uri, version)
        timings.append(at - sent)
    return timings


def memory_after_edits(root: Path, edits: int, server_path: Path) -> tuple[int, int, int]:
    """(RSS after the first 1,000 edits, RSS after ``edits``, edits) for one-character incremental edits.

    The first 1,000 edits warm everything up (imports, caches); growth is measured after them.
    """
    client = Client(root, server_path)
    client.initialize(root)
    try:
        path = root / "memory.rubric.yaml"
        uri = path.as_uri()
        text = rubric(10)
        client.send(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}
        )
        client.diagnostics_for(uri, 1)
        line = text.count("\n") - 1
        column = base = len(text.split("\n")[line])
        warm = 0
        for version in range(2, edits + 2):
            at = {"line": line, "character": column}
            changes = [{"range": {"start": at, "end": at}, "text": "x"}]
            column += 1
            if column > 200:  # keep the line short: take the typed characters out again
                start = {"line": line, "character": base}
                changes.append({"range": {"start": start, "end": {"line": line, "character": column}}, "text": ""})
                column = base
            client.send(
                "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
            )
            if version % 500 == 0:  # let it keep up, as a person typing would
                client.diagnostics_for(uri, version, 120)
            if version == 1001:
                client.diagnostics_for(uri, version, 120)
                warm = client.rss_kb()
        client.diagnostics_for(uri, edits + 1, 120)
        time.sleep(1.0)
        return warm, client.rss_kb(), edits
    finally:
        client.close()


def time_hovers(client: Client, uri: str, text: str, rounds: int) -> list[float]:
    """Seconds from a hover request to its answer, on the first redteam assertion's `type` key.

    The document is already linted (its diagnostics were published), so this is the cost of
    the hover itself: it must reuse the lint's view, not rebuild it.
    """
    lines = text.split("\n")
    line = next((i for i, t in enumerate(lines) if "- type: promptfoo:redteam:" in t), None)
    if line is None:
        return []
    character = lines[line].index("type:") + 1  # on the key: its schema description
    timings = []
    for _ in range(rounds):
        sent = time.perf_counter()
        rid = client.send(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
            request=True,
        )
        at, message = client.wait(lambda m, rid=rid: m.get("id") == rid)
        assert message.get("result"), f"no hover at line {line + 1}"
        timings.append(at - sent)
    return timings


def describe(name: str, timings: list[float], goal: float) -> bool:
    median = statistics.median(timings)
    worst = max(timings)
    ok = median <= goal
    print(
        f"{name:<52} median {median * 1000:8.1f} ms   max {worst * 1000:8.1f} ms   goal ≤ {goal * 1000:.0f} ms   {'ok' if ok else 'MISSED'}"
    )
    return ok


def describe_memory(warm_kb: int, final_kb: int, edits: int) -> bool:
    per_edit = (final_kb - warm_kb) / max(1, edits - 1000)
    ok = per_edit <= 0.2
    print(
        f"{f'server RSS after {edits:,} edits':<52} {final_kb / 1024:8.1f} MB   after 1,000: {warm_kb / 1024:.1f} MB"
        f"   growth {per_edit * 1024:.0f} B/edit   goal ≤ 200 B/edit   {'ok' if ok else 'MISSED'}"
    )
    return ok


def yaml_ls_client(root: Path, schema: Path) -> Client:
    """Red Hat's yaml-language-server ($RUBRIC_YAML_LS) validating every *.yaml against ``schema``."""
    settings = {"yaml": {"validate": True, "schemas": {schema.as_uri(): "*.yaml"}, "schemaStore": {"enable": False}}}
    client = Client(root, command=["node", os.environ["RUBRIC_YAML_LS"], "--stdio"], settings=settings)
    client.initialize(root)
    client.send("workspace/didChangeConfiguration", {"settings": settings})
    return client


def compare(args: argparse.Namespace) -> int:
    """didChange → diagnostics on the large config: this server, the last release's, yaml-language-server, in turns."""
    schema = SHARED / "corpus" / "promptfoo" / "config-schema.json"
    big_text = args.big.read_text(encoding="utf-8")
    byte_compile(Path(sys.executable), REPO)
    # A rubric server imports the grading engine (litellm: seconds of CPU, once per session) after 2 s without
    # an edit; in turns, each server idles that long while the others are measured, and the import landed in
    # its next change's CPU (1.3-1.9 s per change with it, 0.83 s without, at load 6-11). Held off here: this
    # figure is a change's cost; the import is start-up's, measured apart.
    os.environ.setdefault("RUBRIC_LSP_WARM_UP_IDLE", "3600")
    if args.base_path is not None:
        byte_compile(args.base_python or Path(sys.executable), args.base_path)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        servers: dict[str, Client] = {"this": Client(root)}
        if args.base_path is not None:
            command = [str(args.base_python or sys.executable), "-m", "rubric_lsp", "serve"]
            servers["base"] = Client(root, args.base_path, command=command)
        if os.environ.get("RUBRIC_YAML_LS") and schema.is_file():
            servers["yaml-language-server"] = yaml_ls_client(root, schema)
        # Per server, per kind of edit (EDIT_KINDS: the first is the figure), each change's seconds and CPU.
        timings: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in EDIT_KINDS} for name in servers}
        cpu: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in EDIT_KINDS} for name in servers}
        uri = (root / "redteam.yaml").as_uri()
        versions = dict.fromkeys(servers, 1)
        try:
            for client in servers.values():
                if not client.settings:
                    client.initialize(root)
                opened = {"uri": uri, "languageId": "yaml", "version": 1, "text": big_text}
                client.send("textDocument/didOpen", {"textDocument": opened})
                client.diagnostics_for(uri, 1, 120)
            for n in range(args.big_rounds):
                chain = edit_chain(big_text, n)
                if n:  # back to the file as opened (not timed)
                    for name, client in servers.items():
                        versions[name] += 1
                        time_changes(client, uri, [big_text], versions[name])
                # Servers in turn for each edit: what a server does after its diagnostics (its next lint's
                # reading kept, the last one freed) is done while the others are timed, as between keystrokes.
                for kind, text in zip(EDIT_KINDS, chain):
                    time.sleep(SETTLE_SECONDS / len(servers))
                    for name, client in servers.items():
                        versions[name] += 1
                        before = client.cpu_seconds()
                        timings[name][kind] += time_changes(client, uri, [text], versions[name])
                        cpu[name][kind].append(client.cpu_seconds() - before)
        finally:
            for client in servers.values():
                client.close()
        starts: dict[str, list[float]] = {name: [] for name in servers if name != "yaml-language-server"}
        start_cpu: dict[str, list[float]] = {}  # the server's own CPU time by then: what load inflates least
        for n in range(args.starts):
            for name in starts:
                path = root / f"start{n}{name}.rubric.yaml"
                text = rubric(5) + "    wieght: 2\n"
                path.write_text(text)
                command = (
                    None if name == "this" else [str(args.base_python or sys.executable), "-m", "rubric_lsp", "serve"]
                )
                client = Client(root, REPO if name == "this" else args.base_path, command=command)
                client.initialize(root)
                opened = {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}
                client.send("textDocument/didOpen", {"textDocument": opened})
                at, _ = client.diagnostics_for(path.as_uri(), 1)
                starts[name].append(at - client.started)
                start_cpu.setdefault(name, []).append(client.cpu_seconds())
                client.close()
    ok = print_edits(args, big_text, timings, cpu)
    print("start → first diagnostics")
    for name, values in starts.items():
        cpu = statistics.median(start_cpu[name]) * 1000
        print(
            f"  {name:<22} median {statistics.median(values) * 1000:8.1f} ms ({cpu:.0f} ms of its CPU)   goal ≤ 1000 ms"
        )
    return 0 if ok and statistics.median(starts["this"]) <= 1.0 else 1


def print_edits(
    args: argparse.Namespace,
    big_text: str,
    timings: dict[str, dict[str, list[float]]],
    cpu: dict[str, dict[str, list[float]]],
) -> bool:
    """Print each kind of edit's medians and ratios to yaml-language-server's; whether the first meets its goal."""
    floors: dict[str, tuple[float, float] | None] = {
        kind: (
            statistics.median(timings["yaml-language-server"][kind]),
            statistics.median(cpu["yaml-language-server"][kind]),
        )
        if "yaml-language-server" in timings
        else None
        for kind in EDIT_KINDS
    }
    print(
        f"didChange → diagnostics on {args.big.name} ({len(big_text) / 1e6:.2f} MB), {args.big_rounds} turns, load {os.getloadavg()[0]:.1f}"
    )
    for kind in EDIT_KINDS:
        if kind != EDIT_KINDS[0]:
            print(f" {kind}:")
        for name in timings:
            values, used = timings[name][kind], statistics.median(cpu[name][kind])
            floor = floors[kind]
            ratio = f"   {statistics.median(values) / floor[0]:.2f}x yaml-language-server" if floor else ""
            cpu_ratio = f" ({used / floor[1]:.2f}x its)" if floor and floor[1] else ""
            print(
                f"  {name:<22} median {statistics.median(values) * 1000:8.1f} ms{ratio}; CPU {used * 1000:.0f} ms{cpu_ratio}"
            )
    first = floors[EDIT_KINDS[0]]
    return first is None or statistics.median(timings["this"][EDIT_KINDS[0]]) <= 0.5 * first[0]


SETTLE_SECONDS = 1.0  # between a server's timed changes: the work that follows its diagnostics is done by then

# The edits --compare times in each turn, one after another on the same document: typing inside a value (the
# issue's figure), then a value deleted whole, the first letter of a new value where it was, a key renamed.
EDIT_KINDS = ("typing inside a value", "a value deleted whole", "a new value's first letter", "a key renamed")


def edit_chain(text: str, n: int) -> list[str]:
    """The texts of EDIT_KINDS's edits of ``text`` in turn ``n`` (each the one before, edited once more); the
    config's first ``description:`` is typed into and its ``n``-th ``severity:`` (or, without one, the first
    key) deleted, typed into and renamed."""
    typed = text.replace("description:", f"description: r{n}", 1)
    at = -1
    for _ in range(n + 1):
        at = typed.find("severity: ", at + 1)
    if at == -1:  # not a red-team config: the first key of the file
        at = typed.find(":")
        at = typed.rfind("\n", 0, at) + 1
    head = at + typed[at:].index(":") + 2  # where its value starts
    end = typed.find("\n", head)
    end = len(typed) if end == -1 else end
    deleted = typed[:head] + typed[end:]
    first_letter = deleted[:head] + "h" + deleted[head:]
    renamed = first_letter[:at] + "x" + first_letter[at:]
    return [typed, deleted, first_letter, renamed]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="edits timed on the 50-criterion rubric (default 20)")
    parser.add_argument("--big-rounds", type=int, default=3, help="edits timed on the large promptfoo file (default 3)")
    parser.add_argument("--hovers", type=int, default=10, help="hovers timed on the large promptfoo file (default 10)")
    parser.add_argument("--starts", type=int, default=3, help="server starts timed (default 3)")
    parser.add_argument("--big", type=Path, default=BIG_DEFAULT, help="the large promptfoo config")
    parser.add_argument("--edits", type=int, default=10_000, help="edits for the memory figure (default 10,000)")
    parser.add_argument("--memory-only", action="store_true", help="measure only the memory after many edits")
    parser.add_argument("--server-path", type=Path, default=REPO, help="the checkout whose server is measured")
    parser.add_argument(
        "--compare", action="store_true", help="this server, the base's and yaml-language-server in turns"
    )
    parser.add_argument("--base-path", type=Path, help="with --compare: the last release's checkout")
    parser.add_argument("--base-python", type=Path, help="with --compare: the Python of the last release's venv")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args)
    byte_compile(Path(sys.executable), args.server_path)  # as compare() does: measured as installed
    if args.memory_only:
        with tempfile.TemporaryDirectory() as folder:
            return 0 if describe_memory(*memory_after_edits(Path(folder), args.edits, args.server_path)) else 1
    results = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)

        # 1. start → first diagnostics
        starts: list[float] = []
        start_cpu: list[float] = []  # the server's own CPU time by then: what a busy machine cannot inflate
        for n in range(args.starts):
            path = root / f"start{n}.rubric.yaml"
            text = rubric(5) + "    wieght: 2\n"
            path.write_text(text)
            client = Client(root)
            client.initialize(root)
            client.send(
                "textDocument/didOpen",
                {"textDocument": {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}},
            )
            at, message = client.diagnostics_for(path.as_uri(), 1)
            assert message["params"]["diagnostics"], "expected a finding in the start-up document"
            starts.append(at - client.started)
            start_cpu.append(client.cpu_seconds())
            client.close()

        client = Client(root)
        client.initialize(root)
        try:
            # 2. didChange on a 50-criterion rubric
            path = root / "fifty.rubric.yaml"
            uri = path.as_uri()
            client.send(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": rubric(50)}},
            )
            client.diagnostics_for(uri, 1)
            fifty = time_changes(client, uri, [rubric(50, salt) for salt in range(1, args.rounds + 1)], 2)

            # 3. didChange on promptfoo's largest example
            big_timings: list[float] = []
            hovers: list[float] = []
            if args.big.is_file():
                big_text = args.big.read_text(encoding="utf-8")
                big_uri = (root / "redteam.yaml").as_uri()
                client.send(
                    "textDocument/didOpen",
                    {"textDocument": {"uri": big_uri, "languageId": "yaml", "version": 1, "text": big_text}},
                )
                client.diagnostics_for(big_uri, 1)
                edits = [
                    big_text.replace("description:", f"description: r{n}", 1)
                    if "description:" in big_text
                    else big_text + f"# {n}\n"
                    for n in range(args.big_rounds)
                ]
                big_timings = time_changes(client, big_uri, edits, 2)
                hovers = time_hovers(client, big_uri, edits[-1], args.hovers)
        finally:
            client.close()

    print(f"rubric-lsp server latency ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    results.append(describe("didChange → diagnostics, 50-criterion rubric", fifty, 0.030))
    if big_timings:
        size = args.big.stat().st_size / 1e6
        results.append(describe(f"didChange → diagnostics, {args.big.name} ({size:.1f} MB)", big_timings, 1.5))
        if hovers:
            results.append(describe(f"hover once linted, {args.big.name}", hovers, 0.020))
    else:
        print(f"(skipped the large file: {args.big} not found)")
    results.append(describe("server start → first diagnostics", starts, 1.0))
    with tempfile.TemporaryDirectory() as folder:
        results.append(describe_memory(*memory_after_edits(Path(folder), args.edits, args.server_path)))
    print(
        f"{'  (server CPU time by its first diagnostics)':<52} median {statistics.median(start_cpu) * 1000:8.1f} ms"
        f"   load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
