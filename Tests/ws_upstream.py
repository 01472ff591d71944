"""A real WebSocket server (the `websockets` package) for the relay's tests: prints
"listening on PORT", then serves until killed.

/echo      on connect, a JSON line with what the upgrade carried (subprotocol, authorization, cookie,
           origin, extensions); then per text message: "close-me" closes with 4001 "asked to";
           "big" sends a 200,000-byte text message in 50 fragments; "ping-me" pings the client and,
           once the pong arrives, sends "pong received"; anything else comes back as "echo:<text>".
           A binary message comes back reversed.
/held      registers the connection for /trigger.
/trigger   per message "go": sends "held 1".."held 3" to the latest /held connection, then "pushed".
anything else: refused with 403.

With `--tls CERT KEY` it serves wss:// with that certificate chain and key.
"""
import asyncio
import json
import logging
import ssl
import sys

from websockets.asyncio.server import serve
from websockets.http11 import Response
from websockets.datastructures import Headers

held = []


async def handler(ws):
    path = ws.request.path
    if path == "/echo":
        headers = ws.request.headers
        await ws.send(json.dumps({
            "subprotocol": ws.subprotocol,
            "authorization": headers.get("Authorization"),
            "cookie": headers.get("Cookie"),
            "origin": headers.get("Origin"),
            "extensions": headers.get("Sec-WebSocket-Extensions"),
        }, sort_keys=True))
        async for message in ws:
            if isinstance(message, bytes):
                await ws.send(message[::-1])
            elif message == "close-me":
                await ws.close(4001, "asked to")
            elif message == "big":
                chunk = "x" * 4000
                await ws.send([chunk] * 50)
            elif message == "ping-me":
                pong = await ws.ping(b"are you there")
                await pong
                await ws.send("pong received")
            else:
                await ws.send("echo:" + message)
    elif path == "/held":
        held.append(ws)
        await ws.wait_closed()
    elif path == "/trigger":
        async for message in ws:
            target = held[-1]
            for n in range(1, 4):
                await target.send(f"held {n}")
            await ws.send("pushed")


def select(connection, subprotocols):
    # chat.v1 when offered; no subprotocol otherwise (the default refuses a client that offers none).
    return "chat.v1" if "chat.v1" in subprotocols else None


def refuse(connection, request):
    if request.path not in ("/echo", "/held", "/trigger"):
        return Response(403, "Forbidden", Headers([("Content-Length", "0")]), b"")
    return None


async def main():
    # Handshake failures go to stderr, where the test shows them.
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    tls = None
    if sys.argv[1:2] == ["--tls"]:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    async with serve(handler, "127.0.0.1", 0, select_subprotocol=select, process_request=refuse,
                     max_size=None, compression=None, ssl=tls) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening on {port}", flush=True)
        await asyncio.Future()


asyncio.run(main())
