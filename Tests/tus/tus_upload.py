#!/usr/bin/env python3
"""Uploads a file to a Formhouse tus endpoint with tuspy (the tus project's Python client), through a
local TCP proxy that cuts the first `--cuts` PATCH connections mid-body, so the client has to ask
for the offset (HEAD) and resume, and can slow a PATCH down past `--throttle-after` bytes (so a
test can kill the server in the middle of one). `--stop-at` ends the run early (the caller restarts the server);
`--url` resumes an upload created earlier. Prints the upload's URL on the last line."""
import argparse
import socket
import sys
import threading
import time
import urllib.parse

from tusclient import client as tus


class CuttingProxy:
    """Relays connections to `target`; the first `cuts` that carry a PATCH are closed after
    `after` bytes of it have gone upstream."""

    def __init__(self, target, cuts, after, throttle_after=None, throttle_seconds=0.0):
        self.target = target
        self.cuts = cuts
        self.after = after
        self.throttle_after = throttle_after
        self.throttle_seconds = throttle_seconds
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            downstream, _ = self.listener.accept()
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                # The server is gone: the client sees its connection closed, as it would.
                downstream.close()
                continue
            threading.Thread(target=self.pump, args=(downstream, upstream, True), daemon=True).start()
            threading.Thread(target=self.pump, args=(upstream, downstream, False), daemon=True).start()

    def pump(self, source, sink, request_side):
        sent = 0
        patch = False
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if request_side and sent == 0 and data.startswith(b"PATCH"):
                    patch = True
                sent += len(data)
                if patch and self.throttle_after is not None and sent > self.throttle_after:
                    time.sleep(self.throttle_seconds)
                if patch and sent > self.after:
                    with self.lock:
                        cut = self.cuts > 0
                        if cut:
                            self.cuts -= 1
                    if cut:
                        sink.sendall(data[: len(data) // 2])
                        break
                sink.sendall(data)
                if request_side and not patch:
                    sent = 0
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--form", required=True)
    parser.add_argument("--field", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--filetype", default="application/pdf")
    parser.add_argument("--cuts", type=int, default=0)
    parser.add_argument("--cut-after", type=int, default=3 << 20)
    parser.add_argument("--chunk-size", type=int, default=8 << 20)
    parser.add_argument("--stop-at", type=int)
    parser.add_argument("--url")
    parser.add_argument("--throttle-after", type=int)
    parser.add_argument("--throttle-ms", type=float, default=0)
    args = parser.parse_args()

    proxy = CuttingProxy(("127.0.0.1", args.port), args.cuts, args.cut_after, args.throttle_after, args.throttle_ms / 1000)
    endpoint = f"http://127.0.0.1:{proxy.port}/v1/forms/{args.form}/tus/"
    client = tus.TusClient(endpoint)
    url = None
    if args.url:
        path = urllib.parse.urlsplit(args.url).path
        url = f"http://127.0.0.1:{proxy.port}{path}"
    uploader = client.uploader(
        file_path=args.file, url=url, chunk_size=args.chunk_size, retries=8, retry_delay=0.3,
        metadata={"field": args.field, "filename": "big.pdf", "filetype": args.filetype})
    if args.stop_at:
        uploader.upload(stop_at=args.stop_at)
    else:
        uploader.upload()
    print(f"offset={uploader.offset} cuts_left={proxy.cuts}")
    print(uploader.url)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
