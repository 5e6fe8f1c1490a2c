"""The page scraper and its SSRF guard, against a loopback fake serving real HTML.

The fake runs on 127.0.0.1, which the guard refuses by default. "Allowed" fetches therefore use
either allow_private_urls=True, or the name `public.test`: the injected resolver says it is a
public address (what the guard judges) while socket.create_connection routes it to the fake
(where the bytes go), so redirect hops can be checked with the guard fully on.
"""

from __future__ import annotations

import socket
import ssl
import time
from pathlib import Path
from typing import Any

import pytest

from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.provider_base import Retrieval
from research.sources.providers import scraper
from research.sources.providers.html_text import html_to_text
from research.sources.providers.scraper import PageTextProvider, ScrapeError, enrich_with_page_text, fetch_page_text
from research.sources.providers.url_safety import Resolver, UnsafeURLError, blocked_reason, check_url, system_resolver
from tests.fakes.http_server import FakeServer, Reply, slow, text_reply

ARTICLE = (Path(__file__).resolve().parents[1] / "fixtures" / "web" / "article.html").read_text(encoding="utf-8")
ARTICLE_PHRASE = "movable metal type"
NOT_TEXT = ("SCRIPT-SHOULD-NOT-APPEAR", "trackingScriptMarker", "NOSCRIPT-SHOULD-NOT-APPEAR", "secret-style-marker")
PUBLIC_IP = "93.184.216.34"
# The fetch timeout of every test that is not about timeouts: the loopback fake answers at once,
# but on a machine with every core busy a reply has taken longer than 2 s (a failure at load 12).
# The timeout test passes its own short one.
GENEROUS_TIMEOUT = 30.0
SHORT_TIMEOUT = 0.2


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **({"http_timeout": GENEROUS_TIMEOUT} | values))


@pytest.fixture
def server():
    with FakeServer() as s:
        s.route("/article", text_reply(ARTICLE, "text/html; charset=utf-8"))
        yield s


@pytest.fixture(autouse=True)
def _no_rate_limit_spacing():
    http_core.set_limiter(scraper.NAME, concurrency=8, per_second=0)
    yield
    http_core.reset_limiters()


@pytest.fixture
def public_test(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    """`public.test` is judged public by the returned resolver (PUBLIC_IP); connections to that
    address (the scraper connects to the checked address: no second lookup) reach 127.0.0.1."""
    guarded_create_connection = socket.create_connection  # the offline guard's version

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if address[0] in ("public.test", PUBLIC_IP):
            address = ("127.0.0.1", address[1])
        return guarded_create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)

    def resolver(host: str, port: int) -> list[str]:
        return [PUBLIC_IP] if host == "public.test" else system_resolver(host, port)

    return resolver


def public_url(server: FakeServer, path: str) -> str:
    return server.url(path).replace("127.0.0.1", "public.test")


# --- fetching and extracting ----------------------------------------------------------------------


def test_fetches_main_text_without_scripts_or_styles(server: FakeServer) -> None:
    text = fetch_page_text(server.url("/article"), settings(allow_private_urls=True))
    assert ARTICLE_PHRASE in text and "two hundred European cities" in text
    for marker in NOT_TEXT:
        assert marker not in text


def test_stdlib_fallback_when_trafilatura_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scraper.trafilatura, "extract", lambda *a, **k: None)
    text = scraper.extract_text(ARTICLE, "text/html")
    assert ARTICLE_PHRASE in text
    for marker in NOT_TEXT:
        assert marker not in text


def test_html_to_text_drops_scripts_styles_and_keeps_blocks() -> None:
    html = "<p>One &amp; two</p><script>if (a < b) { x = '</p>'; }</script><style>p{}</style><div>Three<br/>Four</div>"
    assert html_to_text(html) == "One & two\nThree\nFour"


def test_plain_text_is_returned_as_is(server: FakeServer) -> None:
    server.route("/notes.txt", text_reply("Line one.\nLine two <not a tag>."))
    assert fetch_page_text(server.url("/notes.txt"), settings(allow_private_urls=True)) == (
        "Line one.\nLine two <not a tag>."
    )


def test_non_text_content_types_are_refused(server: FakeServer) -> None:
    server.route("/paper.pdf", text_reply(b"%PDF-1.7 binary", "application/pdf"))
    with pytest.raises(ScrapeError, match="not a text page"):
        fetch_page_text(server.url("/paper.pdf"), settings(allow_private_urls=True))


def test_http_errors_are_scrape_errors(server: FakeServer) -> None:
    with pytest.raises(ScrapeError, match="HTTP 404"):
        fetch_page_text(server.url("/missing"), settings(allow_private_urls=True))


def test_size_cap_stops_reading(server: FakeServer) -> None:
    paragraph = "<p>" + "Printing spread quickly across Europe. " * 20 + "</p>\n"
    page = "<html><body><article>" + paragraph * 300 + "<p>END-MARKER-PAST-THE-CAP</p></article></body></html>"
    server.route("/huge", text_reply(page, "text/html"))
    assert len(page) > 200_000
    text = fetch_page_text(server.url("/huge"), settings(allow_private_urls=True), max_bytes=20_000)
    assert "Printing spread quickly" in text
    assert "END-MARKER-PAST-THE-CAP" not in text and len(text) <= 20_000


def test_a_hanging_page_times_out(server: FakeServer) -> None:
    server.route("/slow", slow(text_reply(ARTICLE, "text/html"), 5.0))
    started = time.monotonic()
    with pytest.raises(ScrapeError, match="timed out"):
        fetch_page_text(server.url("/slow"), settings(allow_private_urls=True, http_timeout=SHORT_TIMEOUT))
    assert time.monotonic() - started < 4.5  # the page would take 5 s


def test_a_reply_slowed_by_a_busy_machine_is_still_read(server: FakeServer) -> None:
    """The tests' own timeout leaves room for a loaded machine: a loopback reply that takes 2.5 s
    (longer than the 2 s these tests once allowed) is read, not a timeout."""
    server.route("/late", slow(text_reply(ARTICLE, "text/html"), 2.5))
    assert ARTICLE_PHRASE in fetch_page_text(server.url("/late"), settings(allow_private_urls=True))


def test_redirect_loops_stop_after_five_hops(server: FakeServer) -> None:
    server.route("/loop", Reply(302, b"", {"Location": "/loop"}))
    with pytest.raises(ScrapeError, match="more than 5 redirects"):
        fetch_page_text(server.url("/loop"), settings(allow_private_urls=True))
    assert len(server.requests("/loop")) == 6


# --- SSRF: refused before any connection ----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.0.0.1/admin", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "cloud metadata"),
        ("http://[::1]:8080/", "loopback"),
        ("http://127.0.0.1/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://100.64.0.1/", "shared"),
        ("file:///etc/passwd", "only http and https"),
        ("ftp://example.com/file.txt", "only http and https"),
        ("gopher://example.com/", "only http and https"),
        ("http:///no-host", "no host"),
    ],
)
def test_unsafe_urls_are_refused(url: str, reason: str) -> None:
    with pytest.raises(UnsafeURLError, match=reason):
        check_url(url)
    # The fetcher refuses too, before connecting (the offline guard would raise something else).
    with pytest.raises(UnsafeURLError):
        fetch_page_text(url, settings())


def test_the_loopback_fake_itself_is_refused_by_default(server: FakeServer) -> None:
    with pytest.raises(UnsafeURLError, match="loopback"):
        fetch_page_text(server.url("/article"), settings())
    assert server.requests() == []


def test_a_dns_name_resolving_to_a_private_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "intranet.example.com":  # public-looking name, private answer
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.1.20", port))]
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    with pytest.raises(UnsafeURLError, match=r"intranet\.example\.com \(resolves to 192\.168\.1\.20\): private"):
        fetch_page_text("http://intranet.example.com/wiki", settings())


def test_one_private_address_among_public_ones_is_enough_to_refuse() -> None:
    resolver = lambda host, port: [PUBLIC_IP, "10.9.8.7"]  # noqa: E731
    with pytest.raises(UnsafeURLError, match="10.9.8.7"):
        check_url("https://mixed.example/", resolver=resolver)
    assert check_url("https://fine.example/", resolver=lambda h, p: [PUBLIC_IP]).addresses == (PUBLIC_IP,)


def test_unresolvable_names_are_refused() -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise socket.gaierror("Name or service not known")

    with pytest.raises(UnsafeURLError, match="cannot resolve"):
        check_url("http://nowhere.invalid/", resolver=resolver)


def test_allow_private_urls_lets_local_addresses_through_but_not_other_schemes() -> None:
    assert check_url("http://10.0.0.1/", allow_private=True).host == "10.0.0.1"
    with pytest.raises(UnsafeURLError):
        check_url("file:///etc/passwd", allow_private=True)


@pytest.mark.parametrize(
    ("address", "blocked"),
    [
        ("8.8.8.8", False),
        ("2606:4700:4700::1111", False),
        ("64:ff9b::a00:1", True),  # NAT64 form of 10.0.0.1
        ("2002:a9fe:a9fe::1", True),  # 6to4 form of 169.254.169.254
        ("224.0.0.1", True),
        ("240.0.0.1", True),
        ("fe80::1", True),
    ],
)
def test_address_classification(address: str, blocked: bool) -> None:
    import ipaddress

    assert (blocked_reason(ipaddress.ip_address(address)) is not None) is blocked


# --- SSRF: every redirect hop is checked -----------------------------------------------------------


def test_public_page_is_fetched_with_the_guard_on(server: FakeServer, public_test: Resolver) -> None:
    """The control for the next test: the public.test route works and passes the guard."""
    server.route("/go", Reply(302, b"", {"Location": "/article"}))
    text = fetch_page_text(public_url(server, "/go"), settings(), resolver=public_test)
    assert ARTICLE_PHRASE in text
    assert [r.path for r in server.requests()] == ["/go", "/article"]


def test_redirect_to_loopback_is_refused(server: FakeServer, public_test: Resolver) -> None:
    server.route("/secret", text_reply("internal admin data"))
    server.route("/go", Reply(302, b"", {"Location": server.url("/secret")}))  # http://127.0.0.1:port
    with pytest.raises(UnsafeURLError, match="127.0.0.1: loopback"):
        fetch_page_text(public_url(server, "/go"), settings(), resolver=public_test)
    assert server.requests("/go") and not server.requests("/secret")


@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/meta-data/iam/", "file:///etc/passwd", "http://localhost/admin"],
)
def test_redirects_to_metadata_files_or_localhost_are_refused(
    server: FakeServer, public_test: Resolver, target: str
) -> None:
    server.route("/go", Reply(307, b"", {"Location": target}))
    with pytest.raises(UnsafeURLError):
        fetch_page_text(public_url(server, "/go"), settings(), resolver=public_test)


# --- enrichment: failures are warnings -----------------------------------------------------------


def _source(url: str, title: str) -> Source:
    return Source(title=title, url=url, kind="web", provider="duckduckgo", snippet="snippet")


def test_enrich_fills_missing_texts_and_turns_failures_into_warnings(server: FakeServer, public_test: Resolver) -> None:
    good = _source(public_url(server, "/article"), "Article")
    missing = _source(public_url(server, "/missing"), "Gone")
    metadata = _source("http://169.254.169.254/latest/meta-data/", "Metadata")
    has_text = _source(public_url(server, "/already"), "Already has text")
    retrieval = Retrieval(sources=[good, missing, metadata, has_text], texts={has_text.id: "given by the service"})

    result = enrich_with_page_text(retrieval, settings(), max_pages=5, resolver=public_test)

    assert result is retrieval
    assert ARTICLE_PHRASE in retrieval.texts[good.id]
    assert retrieval.texts[has_text.id] == "given by the service"
    assert missing.id not in retrieval.texts and metadata.id not in retrieval.texts
    messages = sorted(w.message for w in retrieval.warnings)
    assert len(messages) == 2 and all(w.source == "scraper" for w in retrieval.warnings)
    assert "169.254.169.254" in messages[0] and "cloud metadata" in messages[0]
    assert "HTTP 404" in messages[1]
    assert not server.requests("/already")


def test_enrich_fetches_at_most_max_pages(server: FakeServer) -> None:
    sources = [_source(server.url(f"/article?n={n}"), f"Copy {n}") for n in range(5)]
    retrieval = Retrieval(sources=sources)
    enrich_with_page_text(retrieval, settings(allow_private_urls=True), max_pages=2)
    assert len(server.requests("/article")) == 2 and len(retrieval.texts) == 2


def test_enrich_never_raises_even_on_unexpected_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("parser crashed")

    monkeypatch.setattr(scraper, "fetch_page_text", explode)
    retrieval = Retrieval(sources=[_source("https://example.com/a", "A")])
    enrich_with_page_text(retrieval, settings())
    assert retrieval.texts == {} and "unexpected RuntimeError" in retrieval.warnings[0].message


def test_page_text_provider_wraps_a_web_provider(server: FakeServer) -> None:
    class Inner:
        name, kind = "duckduckgo", "web"

        def search(self, query: str, *, limit: int) -> Retrieval:
            return Retrieval(sources=[_source(server.url("/article"), "Article")], providers_used=["duckduckgo"])

    provider = PageTextProvider(Inner(), settings(allow_private_urls=True))
    retrieval = provider.search("q", limit=3)
    assert provider.name == "duckduckgo" and provider.kind == "web"
    assert ARTICLE_PHRASE in retrieval.texts[retrieval.sources[0].id]


# --- DNS rebinding: the connection goes to the address that was checked ----------------------------


def test_dns_rebinding_is_defeated_by_connecting_to_the_checked_address(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check's lookup says public; a second lookup would say 127.0.0.1 (the rebinding). The
    scraper must connect to the checked public address, never to the rebound one."""
    server.route("/secret", text_reply("internal admin data"))
    guarded_getaddrinfo = socket.getaddrinfo
    connected: list[tuple] = []

    def rebound_getaddrinfo(host: Any, *args: Any, **kwargs: Any):
        if host == "rebind.test":  # what httpx's own lookup would get: the attacker's loopback answer
            return guarded_getaddrinfo("127.0.0.1", *args, **kwargs)
        return guarded_getaddrinfo(host, *args, **kwargs)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        connected.append(tuple(address))
        raise ConnectionRefusedError("test: the public address is not reachable offline")

    monkeypatch.setattr(socket, "getaddrinfo", rebound_getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    url = server.url("/secret").replace("127.0.0.1", "rebind.test")
    with pytest.raises(ScrapeError, match="connection failed"):
        fetch_page_text(url, settings(), resolver=lambda host, port: [PUBLIC_IP])
    assert connected and {a[0] for a in connected} == {PUBLIC_IP}
    assert not server.requests("/secret")


def test_the_pinned_transport_keeps_the_host_header(server: FakeServer, public_test: Resolver) -> None:
    fetch_page_text(public_url(server, "/article"), settings(), resolver=public_test)
    (request,) = server.requests("/article")
    assert request.headers.get("Host", "").startswith("public.test:")


def test_page_fetches_share_one_tls_context(
    server: FakeServer, public_test: Resolver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A verifying TLS context loads the CA bundle when it is built (about 20 ms of CPU): each fetch
    # built a new one, guard on (its pinned transport) or off (httpx's default transport).
    fetch_page_text(public_url(server, "/article"), settings(), resolver=public_test)
    loads: list[object] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(context: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loads.append(args or kwargs)
        load(context, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    for _ in range(2):
        assert ARTICLE_PHRASE in fetch_page_text(public_url(server, "/article"), settings(), resolver=public_test)
        assert ARTICLE_PHRASE in fetch_page_text(server.url("/article"), settings(allow_private_urls=True))
    assert loads == []
