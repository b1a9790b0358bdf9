#!/usr/bin/env python3
"""Round-robin TCP proxy, one backend per connection: what a Service's ClusterIP (kube-proxy) does for the
API server's calls to the webhook. TLS passes through untouched.  tcp-rr.py LISTEN_PORT BACKEND_PORT..."""
import asyncio
import itertools
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main():
    listen, backends = int(sys.argv[1]), itertools.cycle(int(p) for p in sys.argv[2:])

    async def handle(cr, cw):
        port = next(backends)
        try:
            br, bw = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            cw.close()
            return
        print(f"connection -> {port}", flush=True)
        await asyncio.gather(pipe(cr, bw), pipe(br, cw))

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


asyncio.run(main())
