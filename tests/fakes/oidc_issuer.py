"""A small OpenID Connect issuer on loopback, in the real wire formats Streamlit's st.login
(Authlib) speaks: discovery, JWKS, an authorize endpoint that signs the test user in at once and
redirects back with a code, and a token endpoint that returns an RS256-signed id_token."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "research-desk-test"
CLIENT_SECRET = "test-client-secret"  # noqa: S105 - a fake issuer's fake secret


class Issuer:
    def __init__(self, email: str, name: str) -> None:
        self.email, self.name = email, name
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, dict] = {}
        self.requests: list[str] = []
        self.url = ""

    def metadata(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/jwks",
            "userinfo_endpoint": f"{self.url}/userinfo",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def id_token(self, nonce: str | None) -> str:
        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": "user-1",
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 600,
            "email": self.email,
            "email_verified": True,
            "name": self.name,
        }
        if nonce:
            claims["nonce"] = nonce
        return jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)


@contextmanager
def oidc_issuer(email: str = "ada@example.org", name: str = "Ada Lovelace") -> Iterator[Issuer]:
    issuer = Issuer(email, name)

    class Handler(BaseHTTPRequestHandler):
        def _json(self, body: dict, status: int = 200) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            issuer.requests.append(parts.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if parts.path == "/.well-known/openid-configuration":
                return self._json(issuer.metadata())
            if parts.path == "/jwks":
                return self._json({"keys": [issuer.key.as_dict(private=False)]})
            if parts.path == "/authorize":
                if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
                    return self._json({"error": "invalid_request"}, 400)
                code = secrets.token_urlsafe(16)
                issuer.codes[code] = {"nonce": query.get("nonce"), "redirect_uri": query.get("redirect_uri")}
                target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
                self.send_response(302)
                self.send_header("Location", target)
                self.end_headers()
                return None
            if parts.path == "/userinfo":
                return self._json({"sub": "user-1", "email": issuer.email, "name": issuer.name})
            return self._json({"error": "not_found"}, 404)

        def do_POST(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            issuer.requests.append(parts.path)
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if parts.path != "/token":
                return self._json({"error": "not_found"}, 404)
            grant = issuer.codes.pop(form.get("code", ""), None)
            if grant is None or form.get("grant_type") != "authorization_code":
                return self._json({"error": "invalid_grant"}, 400)
            return self._json(
                {
                    "access_token": secrets.token_urlsafe(16),
                    "token_type": "Bearer",
                    "expires_in": 600,
                    "id_token": issuer.id_token(grant["nonce"]),
                    "scope": "openid email profile",
                }
            )

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    issuer.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
