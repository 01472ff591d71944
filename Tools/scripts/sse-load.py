#!/usr/bin/env python3
"""Many Server-Sent Events clients at once against one URL (Tools/scripts/bench-sse), stdlib only.

    sse-load.py --port PORT --path PATH --clients N --events M --interval SECONDS [--pid PID]

Opens N connections with asyncio.open_connection (all connected before any request is sent), sends
one GET each at once, and reads each stream to its end, parsing lines as the WHATWG standard does.
Each event's lateness is its arrival minus the time the rule scheduled it: the client's head arrival
plus index x interval (the server waits `interval` between events). Prints one JSON object: clients,
events received, failures, lateness p50/p99/max in ms, wall time, and with --pid the server's
VmHWM (peak RSS) and VmRSS in kB and its CPU seconds.
"""
import argparse
import asyncio
import json
import os
import resource
import sys
import time


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS"):
                fields[name] = int(value.split()[0])
    return fields


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


async def client(port, path, interval, connected, go, lateness):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    connected()
    await go.wait()
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    started = time.monotonic()
    if not head.startswith(b"HTTP/1.1 200") or b"chunked" not in head.lower():
        raise RuntimeError(f"unexpected head: {head[:200]!r}")
    received, data, pending = 0, [], b""
    while True:
        # Chunked framing: size line, bytes, CRLF; the stream's lines are parsed from the chunks' bytes.
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            break
        pending += await reader.readexactly(size)
        await reader.readexactly(2)
        now = time.monotonic()
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line == b"" or line == b"\r":
                if data:
                    lateness.append((now - started - received * interval) * 1000)
                    received += 1
                data = []
            elif line.startswith(b"data"):
                data.append(line)
    writer.close()
    return received


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--pid", type=int)
    options = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, options.clients + 256)), hard))

    go = asyncio.Event()
    count = 0
    all_connected = asyncio.get_running_loop().create_future()

    def connected():
        nonlocal count
        count += 1
        if count == options.clients and not all_connected.done():
            all_connected.set_result(None)

    lateness = []
    before = proc_status(options.pid) if options.pid else {}
    cpu_before = cpu_seconds(options.pid) if options.pid else 0
    tasks = [asyncio.create_task(client(options.port, options.path, options.interval, connected, go, lateness))
             for _ in range(options.clients)]
    await asyncio.wait_for(all_connected, 60)
    started = time.monotonic()
    go.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.monotonic() - started
    failures = [repr(r) for r in results if isinstance(r, BaseException)]
    complete = sum(1 for r in results if r == options.events)
    report = {
        "clients": options.clients, "eventsPerStream": options.events, "intervalMs": options.interval * 1000,
        "streamsComplete": complete, "eventsReceived": len(lateness), "failures": len(failures),
        "firstFailures": failures[:3], "wallSeconds": round(wall, 2),
        "latenessMs": {"p50": round(percentile(lateness, 50), 2) if lateness else None,
                       "p99": round(percentile(lateness, 99), 2) if lateness else None,
                       "max": round(max(lateness), 2) if lateness else None},
    }
    if options.pid:
        after = proc_status(options.pid)
        report["server"] = {"VmRSSBeforeKB": before.get("VmRSS"), "VmHWMKB": after.get("VmHWM"), "VmRSSAfterKB": after.get("VmRSS"),
                            "cpuSeconds": round(cpu_seconds(options.pid) - cpu_before, 2)}
    print(json.dumps(report))
    return 0 if not failures and complete == options.clients else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
