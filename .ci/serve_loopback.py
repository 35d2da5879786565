"""Serves a folder over HTTP on 127.0.0.1 (a free port, written to the file named second) until
killed: the package index of .ci/release's check of the Action's pytest path."""

import functools
import http.server
import os
import sys

folder, port_file = sys.argv[1], sys.argv[2]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
