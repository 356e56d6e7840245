"""What drive.py and drive-batch.py share: a connection to the redis-server under callgrind (RESP, pipelined), and
callgrind's counters of that process.
"""
import glob
import os
import re
import socket
import subprocess


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.stream = self.sock.makefile("rb")

    @staticmethod
    def encode(*args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def read(self):
        line = self.stream.readline()
        kind = line[:1]
        if kind == b"-":
            raise RuntimeError(line.decode().strip())
        if kind in (b"+", b":"):
            return line
        if kind == b"$":
            size = int(line[1:])
            return None if size < 0 else self.stream.read(size + 2)[:-2]
        if kind == b"*":
            return [self.read() for _ in range(int(line[1:]))]
        raise RuntimeError(line)

    def call(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.read()

    def pipeline(self, requests):
        """Sends encoded requests at once; returns their replies, in order."""
        self.sock.sendall(b"".join(requests))
        return [self.read() for _ in requests]


class Counters:
    """callgrind_control on the process `pid`, whose dumps go to `work`/out.*."""

    def __init__(self, pid, work):
        self.pid, self.work = pid, work

    def control(self, *args):
        subprocess.run(["callgrind_control", *args, self.pid], check=True, capture_output=True)

    def zero(self):
        self.control("-z")

    def dump(self, label):
        """Dumps the counters as `label` and returns the instructions counted since they were last zeroed."""
        self.control("-d", label)
        newest = max(glob.glob(f"{self.work}/out.*"), key=os.path.getmtime)
        return int(re.search(r"^(?:summary|totals): (\d+)", open(newest).read(), re.M).group(1))
