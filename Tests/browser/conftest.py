"""Fixtures for the browser tests: a real formhouse server on an ephemeral port with a temporary data
directory, a local webhook receiver on 127.0.0.1, and headless Chromium driven by selenium."""

import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[2]
ADMIN_TOKEN = "browser-test-admin-token-0123456789"
WAIT_SECONDS = 20
# The scoped tokens of the server `role_server` starts, by name; its owner is ADMIN_TOKEN.
ROLE_TOKENS = {
    "editor": {"token": "browser-test-editor-token-0123456789", "role": "editor", "forms": ["roles-edit"]},
    "viewer": {"token": "browser-test-viewer-token-0123456789", "role": "viewer"},
    "exporter": {"token": "browser-test-exporter-token-012345678", "role": "exporter", "forms": ["roles-edit", "roles-other"]},
    "exporter-all": {"token": "browser-test-exporter-all-token-01234", "role": "exporter"},
}


def pytest_addoption(parser):
    parser.addoption("--formhouse-bin", default=os.environ.get("FORMHOUSE_BIN", str(REPO / ".build" / "debug" / "formhouse")))


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory):
    """Where screenshots go: $FORMHOUSE_BROWSER_ARTIFACTS, else pytest's own temporary directory."""
    env = os.environ.get("FORMHOUSE_BROWSER_ARTIFACTS")
    path = Path(env) if env else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser artifacts: {path}")
    return path


class Receiver:
    """A webhook receiver: records every POST; answers with the status set for its path (200 by default)."""

    def __init__(self):
        self.requests = []
        self.statuses = {}
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver.lock:
                    receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    status = receiver.statuses.get(self.path, 200)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def received(self, path):
        with self.lock:
            return [r for r in self.requests if r["path"] == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def receiver():
    r = Receiver()
    yield r
    r.close()


class Server:
    def __init__(self, base):
        self.base = base

    def call(self, method, path, body=None, token=ADMIN_TOKEN, headers=None):
        """Calls the API; returns (status, headers, parsed JSON or raw bytes)."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, answer_headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, answer_headers, raw = error.code, error.headers, error.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw
        return status, answer_headers, parsed

    def put_form(self, definition):
        status, _, body = self.call("PUT", f"/v1/admin/forms/{definition['id']}", definition)
        assert status in (200, 201), body
        return body


@contextlib.contextmanager
def running_server(request, tmp_path_factory, configuration, env_tokens):
    """A formhouse server with `configuration` as its settings file (not whatever config/formhouse.json
    holds) and `env_tokens`, when given, as FORMHOUSE_ADMIN_TOKENS."""
    binary = request.config.getoption("--formhouse-bin")
    if not Path(binary).exists():
        pytest.fail(f"formhouse binary not found at {binary}; run `swift build --product formhouse` or pass --formhouse-bin")
    work = tmp_path_factory.mktemp("formhouse")
    port_file = work / "port"
    # Only the server's own settings: the harness's FORMHOUSE_BIN and the like would be warned about.
    env = {k: v for k, v in os.environ.items() if not k.startswith("FORMHOUSE_")}
    if env_tokens:
        env["FORMHOUSE_ADMIN_TOKENS"] = env_tokens
    # Retries far in the future, so a failed delivery stays "failed" until the test redelivers it.
    env["FORMHOUSE_WEBHOOKS_RETRY_SCHEDULE"] = "600,600"
    (work / "config.json").write_text(json.dumps(configuration))
    log = open(work / "server.log", "w")
    process = subprocess.Popen(
        [binary, "serve", "--config", str(work / "config.json"), "--host", "127.0.0.1", "--port", "0",
         "--port-file", str(port_file), "--data-dir", str(work / "data"),
         "--forms-dir", str(REPO / "config" / "forms"), "--public-dir", str(REPO / "Public"),
         "--allow-private-webhooks", "--rate-limit-burst", "100000", "--rate-limit-per-second", "100000"],
        cwd=str(work), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("formhouse did not start:\n" + (work / "server.log").read_text()[-4000:])
            time.sleep(0.05)
        base = f"http://127.0.0.1:{int(port_file.read_text().strip())}"
        server = Server(base)
        while server.call("GET", "/readyz", token=None)[0] != 200:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("formhouse never became ready:\n" + (work / "server.log").read_text()[-4000:])
            time.sleep(0.05)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def server(request, tmp_path_factory):
    """The server most tests use: its one token, an owner, from FORMHOUSE_ADMIN_TOKENS; default settings."""
    with running_server(request, tmp_path_factory, {}, ADMIN_TOKEN) as started:
        yield started


@pytest.fixture(scope="session")
def role_server(request, tmp_path_factory):
    """A server whose settings file holds scoped tokens (ROLE_TOKENS) beside the plain owner ADMIN_TOKEN."""
    tokens = [ADMIN_TOKEN] + [{"name": name, **token} for name, token in ROLE_TOKENS.items()]
    with running_server(request, tmp_path_factory, {"adminTokens": tokens}, None) as started:
        yield started


def chromium_paths():
    binary = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER_BIN") or shutil.which("chromedriver")
    if not binary or not driver:
        pytest.fail("chromium and chromedriver are needed (apt-get install chromium chromium-driver)")
    return binary, driver


@pytest.fixture(scope="session")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


def new_chrome(downloads, languages="en-US"):
    """A headless Chromium with a profile of its own (its own storage), logging the console, asking for
    `languages` (comma-separated, best first) in navigator.languages and Accept-Language."""
    binary, driver_path = chromium_paths()
    options = Options()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--hide-scrollbars", f"--lang={languages.split(',')[0]}", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads),
        "download.prompt_for_download": False,
        "intl.accept_languages": languages,
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


@pytest.fixture(scope="session")
def chrome(downloads):
    driver = new_chrome(downloads)
    yield driver
    driver.quit()


class Browser:
    """The driver plus the helpers every test needs: open a page, wait, read console errors, screenshots."""

    def __init__(self, driver, server, artifacts):
        self.driver = driver
        self.server = server
        self.artifacts = artifacts

    def open(self, path):
        self.driver.get(self.server.base + path)

    def wait(self, condition, message="condition not met", poll=0.05):
        """Polls `condition` until it is truthy; a page re-rendering under it just means polling again."""
        return WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=poll,
                             ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition(), message)

    def click(self, selector, message="nothing to click"):
        """Clicks the element `selector` names, finding it again if the page re-rendered it meanwhile."""
        def attempt():
            elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
            if not elements:
                return False
            elements[0].click()
            return True
        self.wait(attempt, message)

    def size(self, width, height=900):
        self.driver.set_window_size(width, height)

    def script(self, source, *args):
        return self.driver.execute_script(source, *args)

    def console_errors(self):
        """Console messages at SEVERE, less the favicon 404 and the HTTP errors tests provoke on purpose."""
        entries = self.driver.get_log("browser")
        return [e["message"] for e in entries
                if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]
                and "Failed to load resource: the server responded with a status of" not in e["message"]]

    def screenshot(self, name, width):
        """Saves a full-page screenshot at `width` CSS pixels; returns its path."""
        self.size(width, 900)
        height = self.script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
        self.size(width, min(max(int(height) + 100, 600), 6000))
        self.script("window.scrollTo(0, 0)")
        path = self.artifacts / f"{name}-{width}.png"
        self.driver.save_screenshot(str(path))
        self.size(width, 900)
        return path

    def horizontal_overflow(self):
        return self.script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")


def fresh_browser(chrome, server, artifacts):
    """A Browser on `server`'s origin with empty storage; after the test, fails on console errors."""
    b = Browser(chrome, server, artifacts)
    b.size(1280, 900)
    b.open("/")
    # The page keeps a form's draft in localStorage: each test starts without one.
    b.script("sessionStorage.clear(); localStorage.clear()")
    chrome.get_log("browser")
    yield b
    errors = b.console_errors()
    assert not errors, f"browser console errors: {errors}"


@pytest.fixture
def browser(chrome, server, artifacts):
    yield from fresh_browser(chrome, server, artifacts)


@pytest.fixture
def role_browser(chrome, role_server, artifacts):
    """A browser on the server with scoped tokens (`role_server`)."""
    yield from fresh_browser(chrome, role_server, artifacts)
