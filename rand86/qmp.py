"""QEMU's monitor over QMP: commands, and the key events the harness types with."""
import json

from rand86.serial import Timeout, connect_unix


class QMP:
    def __init__(self, path, timeout=30):
        self.sock = connect_unix(path, timeout)
        self.sock.settimeout(timeout)
        self.rfile = self.sock.makefile("rb")
        self._read()                      # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while True:
            line = self.rfile.readline()
            if not line:
                raise Timeout("QMP connection closed")
            msg = json.loads(line)
            if "event" in msg:
                continue
            return msg

    def execute(self, cmd, **args):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        msg = self._read()
        if "error" in msg:
            raise RuntimeError("QMP %s failed: %s" % (cmd, msg["error"]))
        return msg.get("return")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# Linux input key codes -> QEMU qcode names, for key injection.
def key_event(qcode, down):
    return {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}
