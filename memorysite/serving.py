"""gunicorn's threaded worker with a deadline on every client (`gunicorn.conf.py` selects it).

gunicorn's gthread worker reads a request's head and body with blocking reads and no time limit, so
a client that sends headers and then nothing holds one of its threads for as long as it likes
(eight of them take the service down). Here a request must arrive whole, head and body, within
CLIENT_TIMEOUT_S of its first byte, however slowly it trickles in; each write of the response may
take as long. A client too slow for that is cut off: while gunicorn reads the head, the connection
is closed; while the app reads the body (memorysite.middleware, before any transaction begins),
the read fails with ClientTooSlow, a TimeoutError, and the client gets a 408.
"""

from __future__ import annotations

import errno
import math
import time

from django.conf import settings
from gunicorn.http.errors import NoMoreData
from gunicorn.http.unreader import SocketUnreader
from gunicorn.workers.gthread import TConn, ThreadWorker


class ClientTooSlow(NoMoreData, TimeoutError):
    """The client did not send its request within the deadline (gunicorn treats it as a disconnect)."""


class _DeadlineUnreader(SocketUnreader):
    def __init__(self, sock, conn: _DeadlineConn):
        super().__init__(sock)
        self.conn = conn

    def chunk(self, size_hint=None):
        remaining = self.conn.read_deadline - time.monotonic()
        if remaining <= 0:
            raise ClientTooSlow()
        self.sock.settimeout(remaining)
        try:
            return super().chunk(size_hint)
        except TimeoutError:
            raise ClientTooSlow() from None
        finally:
            self.sock.settimeout(settings.CLIENT_TIMEOUT_S)  # bounds each write of the response


class _DeadlineConn(TConn):
    read_deadline = math.inf

    def init(self):
        """Called by the worker's thread for every request, once its first bytes are waiting: the
        request's clock starts here."""
        fresh = self.parser is None
        super().init()
        if fresh and type(self.parser.unreader) is SocketUnreader:  # HTTP/1 (HTTP/2 has its own bound)
            self.parser.unreader = _DeadlineUnreader(self.sock, self)
        self.read_deadline = time.monotonic() + settings.CLIENT_TIMEOUT_S


class BoundedThreadWorker(ThreadWorker):
    def accept(self, listener):
        """gunicorn's accept, making our connection."""
        try:
            client_sock, client_addr = listener.accept()
            self.nr_conns += 1
            client_sock.setblocking(True)
            self.enqueue_req(_DeadlineConn(self.cfg, client_sock, client_addr, listener.getsockname()))
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
