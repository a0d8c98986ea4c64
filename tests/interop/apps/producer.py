"""An unmodified-API python-ndn producer, run as a child process by test_forwarder.py.

    producer.py --api v2|legacy --prefix /p --tag T [--no-register] [--lifetime S]

It reaches the forwarder the way any python-ndn app does: NDNApp() with no face, so the
transport comes from NDN_CLIENT_TRANSPORT (or client.conf). With --api v2 it uses ndn.appv2
(attach_handler + register), with --api legacy the older ndn.app (register with a route
function). It prints one JSON line per event on stdout:

    {"event": "ready", "registered": true}      after the rib/register answer (or at once
                                                with --no-register)
    {"event": "interest", "name": ..., "can_be_prefix": ..., "params": null|"ok"|"bad"}

and answers every Interest under its prefix with content "<tag>:<name>" (a signed Interest
with ApplicationParameters gets "<tag>:params-ok" when the parameters are b"check-" + the last
name component and its DigestSha256 signature verifies, else "<tag>:params-bad"). A CanBePrefix
Interest gets a Data one version component longer than its name. The process stops on its own
after --lifetime seconds so that nothing outlives a broken test run.
"""

import argparse
import asyncio as aio
import hashlib
import json
import sys

from ndn import app as legacy_app
from ndn import appv2
from ndn.encoding import Component, Name, SignatureType
from ndn.security import KeychainDigest
from ndn.types import ValidResult


def emit(**kw):
    print(json.dumps(kw), flush=True)


def digest_ok(sig):
    info = sig.signature_info
    if info is None or info.signature_type != SignatureType.DIGEST_SHA256:
        return False
    h = hashlib.sha256()
    for part in sig.signature_covered_part:
        h.update(part)
    return h.digest() == bytes(sig.signature_value_buf)


def answer(tag, name, can_be_prefix, app_param, signed_ok):
    """(Data name, content, params verdict) for an Interest."""
    uri = Name.to_str(name)
    if app_param is not None:
        expected = b"check-" + bytes(Component.get_value(name[-2]))
        good = signed_ok and bytes(app_param) == expected
        verdict = "ok" if good else "bad"
        content = f"{tag}:params-{verdict}"
    else:
        verdict = None
        content = f"{tag}:{uri}"
    emit(event="interest", name=uri, can_be_prefix=bool(can_be_prefix), params=verdict)
    data_name = list(name)
    if can_be_prefix:
        data_name.append(Component.from_version(1))
    return data_name, content.encode(), verdict


def run_v2(args):
    app = appv2.NDNApp()
    signer = KeychainDigest().get_signer({})

    async def validator(_name, sig, _context):
        # Signed Interests reach the handler; the handler records whether the digest held.
        return ValidResult.PASS

    def on_interest(name, app_param, reply, context):
        cbp = context["int_param"].can_be_prefix
        signed_ok = app_param is None or digest_ok(context["sig_ptrs"])
        data_name, content, _ = answer(args.tag, name, cbp, app_param, signed_ok)
        reply(app.make_data(data_name, content, signer, freshness_period=1000))

    app.attach_handler(args.prefix, on_interest, validator)

    async def main():
        ok = True if args.no_register else await app.register(args.prefix)
        emit(event="ready", registered=bool(ok))
        await aio.sleep(args.lifetime)
        app.shutdown()

    app.run_forever(main())


def run_legacy(args):
    app = legacy_app.NDNApp(keychain=KeychainDigest())

    def on_interest(name, param, app_param, sig_ptrs=None):
        signed_ok = app_param is None or (sig_ptrs is not None and digest_ok(sig_ptrs))
        data_name, content, _ = answer(args.tag, name, param.can_be_prefix, app_param, signed_ok)
        app.put_data(data_name, content, freshness_period=1000)

    async def main():
        if args.no_register:
            app.set_interest_filter(args.prefix, on_interest, need_sig_ptrs=True)
            ok = True
        else:
            ok = await app.register(args.prefix, on_interest, need_sig_ptrs=True)
        emit(event="ready", registered=bool(ok))
        await aio.sleep(args.lifetime)
        app.shutdown()

    app.run_forever(main())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--api", choices=["v2", "legacy"], required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--tag", required=True)
    p.add_argument("--no-register", action="store_true")
    p.add_argument("--lifetime", type=float, default=60.0)
    args = p.parse_args()
    if args.api == "v2":
        run_v2(args)
    else:
        run_legacy(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
