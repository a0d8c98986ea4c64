"""python-ndn applications and tools against a running `ndnfwd run`, end to end.

Every test starts its own forwarder (temporary configuration, Unix socket in a temporary
directory, no TCP/UDP listeners, metrics on a free loopback port) and points python-ndn at it
only through NDN_CLIENT_TRANSPORT, as a user would. Producers are separate processes
(apps/producer.py) using the appv2 and the legacy ndn.app APIs; consumers run in-process with
ndn.appv2. Every wait is bounded; forwarders and producers are killed in teardown.

Run through tests/interop/run.sh (it builds ndnfwd and sets NDNFWD_BIN).
"""

import asyncio as aio
import json
import os
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest
from ndn.app_support import nfd_mgmt
from ndn.appv2 import NDNApp, pass_all
from ndn.encoding import Component, Name, SignatureInfo, TypeNumber, get_tl_num_size, write_tl_num
from ndn.encoding.tlv_var import parse_and_check_tl
from ndn.security import DigestSha256Signer
from ndn.types import InterestNack
from ndn.utils import gen_nonce_64, timestamp

HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCER = os.path.join(HERE, "apps", "producer.py")
WAIT = 10.0  # seconds: the bound of every wait for a process line or an answer


def ndnfwd_bin():
    path = os.environ.get("NDNFWD_BIN")
    assert path and os.path.exists(path), "NDNFWD_BIN is not set: run tests/interop/run.sh"
    return path


class Lines:
    """A child's stdout read by a thread, so that waits can time out."""

    def __init__(self, proc):
        self.q = queue.Queue()
        self.seen = []

        def pump():
            for line in proc.stdout:
                self.q.put(line.rstrip("\n"))
            self.q.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def until(self, pred, what, timeout=WAIT):
        """The first line (from now on) for which pred holds; fails after timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {what}; lines so far: {self.seen}"
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            assert line is not None, f"process exited before {what}; lines: {self.seen}"
            self.seen.append(line)
            if pred(line):
                return line


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class Forwarder:
    def __init__(self, tmp, extra=""):
        self.dir = tmp
        self.sock = os.path.join(tmp, "nfd.sock")
        cfg = os.path.join(tmp, "ndnfwd.toml")
        with open(cfg, "w") as f:
            f.write(
                f'[listeners]\nunix = "{self.sock}"\ntcp = []\nudp = []\n'
                f"[metrics]\nport = 0\n{extra}"
            )
        self.log = open(os.path.join(tmp, "ndnfwd.log"), "w")
        self.proc = subprocess.Popen(
            [ndnfwd_bin(), "run", "--config", cfg],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.lines = Lines(self.proc)
        line = self.lines.until(lambda l: l.startswith("NDN_CLIENT_TRANSPORT="), "startup")
        self.transport = line.split("=", 1)[1]
        assert self.transport == f"unix://{self.sock}"
        self.children = []

    def producer(self, api, prefix, tag, register=True):
        args = [sys.executable, PRODUCER, "--api", api, "--prefix", prefix, "--tag", tag]
        if not register:
            args.append("--no-register")
        p = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=os.environ
        )
        self.children.append(p)
        lines = Lines(p)
        ready = json.loads(lines.until(lambda l: '"ready"' in l, f"{tag} ready"))
        assert ready["registered"], f"{tag} ({api}) could not register {prefix}"
        return lines

    def ctl(self, *args):
        """`ndnfwd ctl` (transport from NDN_CLIENT_TRANSPORT): (exit code, stdout, stderr)."""
        r = subprocess.run(
            [ndnfwd_bin(), "ctl", *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=WAIT * 2,
        )
        return r.returncode, r.stdout, r.stderr

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        for c in self.children:
            stop(c)
        stop(self.proc)
        self.log.close()


@pytest.fixture
def fwd(monkeypatch):
    with tempfile.TemporaryDirectory(prefix="ndnfwd-interop-") as tmp:
        f = Forwarder(tmp)
        monkeypatch.setenv("NDN_CLIENT_TRANSPORT", f.transport)
        try:
            yield f
        finally:
            f.close()


def client(work, timeout=WAIT * 2):
    """Runs `await work(app)` in a fresh appv2 NDNApp (transport from the environment)."""
    app = NDNApp()
    out = {}

    async def main():
        try:
            out["value"] = await aio.wait_for(work(app), timeout)
        except BaseException as e:  # re-raised below, outside the event loop
            out["error"] = e
        finally:
            app.shutdown()

    app.run_forever(main())
    if "error" in out:
        raise out["error"]
    return out.get("value")


async def fetch(app, name, **kw):
    """(Data name URI, content bytes) of one Interest."""
    data_name, content, _ = await app.express(name, validator=pass_all, lifetime=2000, **kw)
    return Name.to_str(data_name), bytes(content or b"")


async def nack_reason(app, name):
    try:
        await app.express(name, validator=pass_all, lifetime=2000)
    except InterestNack as e:
        return e.reason
    pytest.fail(f"{name} was answered, expected a Nack")


async def dataset(app, name):
    """One management dataset (python-ndn's nfdc asks the same way: signed, CanBePrefix)."""
    _, content = await fetch(
        app, name, app_param=b"", signer=DigestSha256Signer(True), can_be_prefix=True,
        must_be_fresh=True,
    )
    return content


def command_response(content):
    return nfd_mgmt.ControlResponse.parse(parse_and_check_tl(memoryview(content), 0x65))


def test_appv2_and_legacy_producers_serve_a_python_consumer(fwd):
    v2 = fwd.producer("v2", "/interop/v2", "V2")
    legacy = fwd.producer("legacy", "/interop/legacy", "LEGACY")

    async def work(app):
        results = {}
        for prefix in ["/interop/v2", "/interop/legacy"]:
            results[prefix, "exact"] = await fetch(app, f"{prefix}/exact/1")
            results[prefix, "prefix"] = await fetch(
                app, f"{prefix}/cbp", can_be_prefix=True, must_be_fresh=True
            )
            results[prefix, "signed"] = await fetch(
                app,
                f"{prefix}/rpc/token42",
                app_param=b"check-token42",
                signer=DigestSha256Signer(True),
            )
            results[prefix, "forged"] = await fetch(
                app,
                f"{prefix}/rpc/token43",
                app_param=b"check-wrong",
                signer=DigestSha256Signer(True),
            )
        results["noroute"] = await nack_reason(app, "/interop/unrouted/x")
        return results

    r = client(work)
    for prefix, tag in [("/interop/v2", "V2"), ("/interop/legacy", "LEGACY")]:
        name, content = r[prefix, "exact"]
        assert (name, content) == (f"{prefix}/exact/1", f"{tag}:{prefix}/exact/1".encode())
        name, content = r[prefix, "prefix"]
        assert name.startswith(f"{prefix}/cbp/v=") and content == f"{tag}:{prefix}/cbp".encode()
        assert r[prefix, "signed"][1] == f"{tag}:params-ok".encode()
        assert r[prefix, "forged"][1] == f"{tag}:params-bad".encode()
    assert r["noroute"] == 150
    # Each producer saw its own Interests, the CanBePrefix flag and the parameters.
    for lines, prefix in [(v2, "/interop/v2"), (legacy, "/interop/legacy")]:
        seen = json.loads(lines.until(lambda l: "/cbp" in l, f"{prefix}/cbp"))
        assert seen["can_be_prefix"] is True
        seen = json.loads(lines.until(lambda l: "token42" in l, f"{prefix} signed"))
        assert seen["params"] == "ok"
        seen = json.loads(lines.until(lambda l: "token43" in l, f"{prefix} forged"))
        assert seen["params"] == "bad"


def test_python_ndn_tools_read_status_faces_and_routes(fwd):
    fwd.producer("v2", "/tools/a", "A")
    fwd.producer("legacy", "/tools/b", "B")

    async def work(app):
        return (
            await dataset(app, "/localhost/nfd/status/general"),
            await dataset(app, "/localhost/nfd/faces/list"),
            await dataset(app, "/localhost/nfd/rib/list"),
            await dataset(app, "/localhost/nfd/fib/list"),
        )

    general, faces, rib, fib = client(work)
    st = nfd_mgmt.GeneralStatus.parse(general)
    assert str(st.nfd_version).startswith("ndnfwd")
    assert st.n_fib_entries >= 3  # /localhost/nfd and the two producers
    assert st.n_in_interests >= 2 and st.current_timestamp >= st.start_timestamp
    face_ids = {f.face_id for f in nfd_mgmt.FaceStatusMsg.parse(faces).face_status}
    routes = {
        Name.to_str(e.name): e.routes for e in nfd_mgmt.RibStatus.parse(rib).entries
    }
    for prefix in ["/tools/a", "/tools/b"]:
        (route,) = routes[prefix]
        # rib/register defaults: the requesting face, origin app (0), cost 0, child-inherit.
        assert route.face_id in face_ids
        assert (route.origin, route.cost, route.flags) == (0, 0, nfd_mgmt.RouteFlags.CHILD_INHERIT)
    fib_names = {Name.to_str(e.name) for e in nfd_mgmt.FibStatus.parse(fib).entries}
    assert {"/tools/a", "/tools/b", "/localhost/nfd"} <= fib_names

    # python-ndn's own nfdc command line, unmodified.
    def nfdc(*args):
        r = subprocess.run(
            [sys.executable, "-m", "ndn.bin.nfdc", *args],
            capture_output=True, text=True, timeout=WAIT * 2, env=os.environ,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    out = nfdc("status")
    fields = dict(l.strip().split("\t", 1) for l in out.splitlines() if "\t" in l)
    assert fields["version"].startswith("ndnfwd")
    assert int(fields["nFibEntries"]) >= 3
    out = nfdc("face")
    listed = {int(l.split()[0]) for l in out.splitlines() if l.split() and l.split()[0].isdigit()}
    assert {r[0].face_id for p, r in routes.items() if p.startswith("/tools/")} <= listed
    out = nfdc("route")
    assert "/tools/a" in out and "/tools/b" in out and "Origin=0" in out
    assert "CHILD_INHERIT" in out


def test_ctl_route_and_multicast_strategy_steer_python_producers(fwd):
    a = fwd.producer("v2", "/mc", "A")
    b = fwd.producer("legacy", "/mc", "B")
    lonely = fwd.producer("v2", "/ctlroute", "C", register=False)

    async def best_route(app):
        return await fetch(app, "/mc/before")

    client(best_route)
    code, out, err = fwd.ctl("strategy", "set", "/mc", "multicast")
    assert code == 0, err
    assert "/localhost/nfd/strategy/multicast" in out
    code, out, err = fwd.ctl("--json", "strategy", "list")
    assert code == 0 and "/mc" in out, err

    async def multicast(app):
        return await fetch(app, "/mc/after")

    client(multicast)
    # Both producers see the Interest sent after the multicast choice; the one sent before it
    # (best-route) reached only one of them (each face delivers in order, so a producer's log
    # shows /mc/before, if it got it, ahead of /mc/after).
    seen_before = 0
    for lines in (a, b):
        lines.until(lambda l: "/mc/after" in l, "multicast delivery")
        seen_before += sum("/mc/before" in l for l in lines.seen)
    assert seen_before == 1

    # A route added by ctl to the producer that did not register.
    async def unrouted(app):
        return await nack_reason(app, "/ctlroute/a")

    assert client(unrouted) == 150
    code, out, err = fwd.ctl("--json", "face", "list")
    assert code == 0, err
    silent = [f["face_id"] for f in json.loads(out) if f["counters"]["n_in_interests"] == 0]
    assert len(silent) == 1, out
    code, out, err = fwd.ctl("route", "add", "/ctlroute", str(silent[0]), "--cost", "3")
    assert code == 0 and out.startswith("200"), err

    async def routed(app):
        return await fetch(app, "/ctlroute/b")

    assert client(routed)[1] == b"C:/ctlroute/b"
    lonely.until(lambda l: "/ctlroute/b" in l, "routed Interest")
    code, _, err = fwd.ctl("route", "remove", "/ctlroute", str(silent[0]))
    assert code == 0, err

    async def removed(app):
        return await nack_reason(app, "/ctlroute/c")

    assert client(removed) == 150


def test_face_events_reach_a_python_subscriber(fwd):
    """The faces/events stream as ndn-cxx's NotificationSubscriber reads it: a bare
    CanBePrefix+MustBeFresh Interest, then `seq=<n+1>`, each answered when an event is posted."""
    stream = Name.from_str("/localhost/nfd/faces/events")

    async def work(app):
        loop = aio.get_running_loop()
        first = aio.ensure_future(fetch(app, stream, can_be_prefix=True, must_be_fresh=True))
        # A producer connects and registers while the subscriber waits.
        await loop.run_in_executor(None, fwd.producer, "v2", "/events", "E")
        events, name, content = [], *await first
        for _ in range(8):
            ev = nfd_mgmt.FaceEventNotification.parse(content).event
            events.append((ev.face_event_kind, ev.face_id, ev.local_uri))
            if len(events) >= 2:
                break
            seq = Component.to_number(Name.from_str(name)[-1])
            name, content = await fetch(app, stream + [Component.from_sequence_num(seq + 1)])
        rib = nfd_mgmt.RibStatus.parse(await dataset(app, "/localhost/nfd/rib/list"))
        (route,) = [e.routes[0] for e in rib.entries if Name.to_str(e.name) == "/events"]
        return events, route.face_id

    events, producer_face = client(work)
    created = [e for e in events if e[0] == nfd_mgmt.FaceEventKind.CREATED]
    # The producer's face appears as created, on the forwarder's Unix socket.
    assert (nfd_mgmt.FaceEventKind.CREATED, producer_face, fwd.transport) in created, events


def signed_command_name(module, verb, ts, **params):
    """python-ndn's make_command (4-component signed name) with a chosen timestamp."""
    name = nfd_mgmt.make_command_v2(module, verb, None, **params)
    name.append(Component.from_bytes(struct.pack("!Q", ts)))
    name.append(Component.from_bytes(struct.pack("!Q", gen_nonce_64())))
    signer = DigestSha256Signer()
    info = SignatureInfo()
    signer.write_signature_info(info)
    buf = info.encode()
    name.append(Component.from_bytes(bytes([TypeNumber.SIGNATURE_INFO, len(buf)]) + buf))
    size = signer.get_signature_value_size()
    value = bytearray(1 + get_tl_num_size(size) + size)
    value[0] = TypeNumber.SIGNATURE_VALUE
    offset = 1 + write_tl_num(size, value, 1)
    signer.write_signature_value(memoryview(value)[offset:], name)
    name.append(Component.from_bytes(value))
    return name


def test_bad_commands_get_nfd_status_codes_and_the_forwarder_survives(fwd):
    async def work(app):
        codes = {}

        async def status_of(name):
            _, content = await fetch(app, name)
            return command_response(content).status_code

        garbage = Name.from_str("/localhost/nfd/rib/register") + [
            Component.from_bytes(b"\x68\x05\x07\x03\x08\x01")
        ]
        codes["malformed"] = await status_of(garbage)
        not_params = Name.from_str("/localhost/nfd/rib/register") + [
            Component.from_bytes(b"\x05\x00")
        ]
        codes["not-params"] = await status_of(not_params)
        codes["missing-name"] = await status_of(
            nfd_mgmt.make_command("rib", "register", None, cost=1)
        )
        codes["unknown-verb"] = await status_of(
            nfd_mgmt.make_command("rib", "frobnicate", None, name="/x")
        )
        codes["unknown-module"] = await status_of(
            nfd_mgmt.make_command("teleport", "now", None, name="/x")
        )
        stale = timestamp() - 10 * 60 * 1000
        codes["stale"] = await status_of(signed_command_name("rib", "register", stale, name="/x"))
        fresh = signed_command_name("rib", "register", timestamp() + 1000, name="/replay")
        codes["fresh"] = await status_of(fresh)
        older = signed_command_name("rib", "register", timestamp() - 1000, name="/replay")
        codes["replayed"] = await status_of(older)
        localhop = Name.from_str("/localhop/nfd/rib/register") + [
            nfd_mgmt.make_command_v2("rib", "register", None, name="/x")[-1]
        ]
        codes["localhop"] = await nack_reason(app, localhop)
        return codes

    codes = client(work)
    assert codes == {
        "malformed": 400,
        "not-params": 400,
        "missing-name": 400,
        "unknown-verb": 501,
        "unknown-module": 501,
        "stale": 403,
        "fresh": 200,
        "replayed": 403,
        # /localhop/nfd is not served (off by default): nothing routes it, as in NFD.
        "localhop": 150,
    }
    assert fwd.alive()
    code, out, err = fwd.ctl("status")
    assert code == 0 and "version=ndnfwd" in out, err


def test_localhop_commands_need_a_trusted_key(monkeypatch):
    with tempfile.TemporaryDirectory(prefix="ndnfwd-interop-") as tmp:
        f = Forwarder(tmp, "[management]\nlocalhop = true\n")
        monkeypatch.setenv("NDN_CLIENT_TRANSPORT", f.transport)
        try:

            async def work(app):
                name = Name.from_str("/localhop/nfd/rib/register") + [
                    nfd_mgmt.make_command_v2("rib", "register", None, name="/x")[-1]
                ]
                _, content = await fetch(
                    app, name, app_param=b"", signer=DigestSha256Signer(True)
                )
                return command_response(content).status_code

            # Served, but a DigestSha256 signature is not an HMAC by a configured key.
            assert client(work) == 403
            assert f.alive()
        finally:
            f.close()
