"""Drafts in the renderer and a form's stats in the console: what a person types is saved as a draft,
resumed from its link in another browser (its own profile) with repeat items and an uploaded file,
submitted from there and counted in the console's chart; two tabs saving the same draft meet a 412
and lose nothing; a wrong link says so; a refused submission keeps the draft; a change is saved as
the page is left, and a save made offline is retried."""

import re
from datetime import datetime, timezone
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.webdriver.common.by import By

from conftest import Browser, new_chrome
from test_console import go, signed_in
from test_files import items, picker, png
from test_renderer import control, error_text, open_form, set_value, wrapper


def moving(form_id):
    """A form with a repeat and a picture: what a resumed draft must draw back."""
    return {
        "id": form_id, "responseFormat": "long", "title": "Moving house",
        "components": [
            {"text": {"id": "name", "title": "Your name", "required": True}},
            {"email": {"id": "mail", "title": "E-mail", "required": True}},
            {"text": {"id": "city", "title": "New city", "required": True}},
            {"group": {"id": "rooms", "title": "Room", "repeat": {"min": 1, "max": 4}, "components": [
                {"text": {"id": "label", "title": "Room name", "required": True}}]}},
            {"file": {"id": "plan", "title": "Floor plan", "accept": ["image/*"], "maxFiles": 1}},
        ],
    }


@pytest.fixture
def form(server, request):
    """A form of the test's own, so each test's counts and drafts are its alone."""
    form_id = f"drafts-{request.node.name.removeprefix('test_').replace('_', '-')[:40]}"
    server.put_form(moving(form_id))
    return form_id


@pytest.fixture
def other(server, artifacts, downloads):
    """A second browser with a profile of its own: another device."""
    driver = new_chrome(downloads)
    b = Browser(driver, server, artifacts)
    try:
        yield b
        errors = b.console_errors()
        assert not errors, f"browser console errors on the other device: {errors}"
    finally:
        driver.quit()


def draft_status(browser):
    return browser.driver.find_element(By.ID, "draft-status").text


def wait_saved(browser):
    browser.wait(lambda: draft_status(browser) == "Saved", "the draft was not saved")


def resume_link(browser):
    """The resume link, and the draft id and token it carries."""
    link = browser.wait(lambda: browser.driver.find_element(By.ID, "draft-link").get_attribute("href"), "no resume link")
    parts = urlsplit(link)
    draft_id = parse_qs(parts.query)["draft"][0]
    token = parse_qs(parts.fragment)["token"][0]
    return link, draft_id, token


def stored(browser, form_id):
    return browser.script("return localStorage.getItem(arguments[0])", f"formhouse.draft.{form_id}")


def started_draft(browser, form_id):
    """Opens the form, types a name, waits for the draft to be saved; returns its link, id and token."""
    open_form(browser, form_id)
    set_value(browser, "name", "Ana Souza")
    wait_saved(browser)
    return resume_link(browser)


def get_draft(server, draft_id, token):
    status, headers, body = server.call("GET", f"/v1/drafts/{draft_id}", token=token)
    assert status == 200, body
    return headers, body


def value(browser, path):
    return control(browser, path).get_attribute("value")


def test_a_draft_resumed_on_another_device_is_submitted_and_counted(browser, server, form, other, tmp_path):
    d = browser.driver
    open_form(browser, form)
    set_value(browser, "name", "Ana Souza")
    set_value(browser, "rooms[0].label", "Kitchen")
    wrapper(browser, "rooms").find_element(By.CSS_SELECTOR, ".fh-add").click()
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, '[data-path="rooms[1].label"]'))
    set_value(browser, "rooms[1].label", "Attic")
    plan = tmp_path / "plan.png"
    plan.write_bytes(png(12, 8))
    picker(browser, "plan").send_keys(str(plan))
    browser.wait(lambda: items(browser, "plan", "done"), "the plan was not uploaded")
    wait_saved(browser)

    link, draft_id, token = resume_link(browser)
    assert draft_id.startswith("drf_") and token
    assert link.startswith(f"{server.base}/f/{form}?draft=")
    assert f'"token":"{token}"' in stored(browser, form).replace(" ", "")
    # The draft on the server holds what was typed, and the token reached no request's address.
    _, draft = get_draft(server, draft_id, token)
    assert draft["values"]["name"] == "Ana Souza"
    assert [room["label"] for room in draft["values"]["rooms"]] == ["Kitchen", "Attic"]
    assert isinstance(draft["values"]["plan"], str) and draft["values"]["plan"]
    assert "token" not in draft
    sent = browser.script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [url for url in sent if token in url]

    # The tab is closed; the link is opened on another device.
    first = d.current_window_handle
    d.switch_to.new_window("tab")
    blank = d.current_window_handle
    d.switch_to.window(first)
    d.close()
    d.switch_to.window(blank)

    other.driver.get(link)
    o = other.driver
    other.wait(lambda: o.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "the resumed form was not drawn")
    other.wait(lambda: value(other, "name") == "Ana Souza", "the draft's values were not drawn")
    assert value(other, "rooms[0].label") == "Kitchen"
    assert value(other, "rooms[1].label") == "Attic"
    shown = items(other, "plan", "done")
    assert len(shown) == 1 and "uploaded file" in shown[0].text
    assert "token" not in o.current_url and "draft=" not in o.current_url
    assert token in (stored(other, form) or "")
    assert draft_status(other) == "Saved"

    set_value(other, "mail", "ana@example.org")
    set_value(other, "city", "Porto")
    o.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    other.wait(lambda: o.find_element(By.ID, "receipt").is_displayed(), "no receipt after submitting the draft")
    receipt_id = o.find_element(By.CSS_SELECTOR, ".fh-receipt-id").text
    status, _, submission = server.call("GET", f"/v1/admin/submissions/{receipt_id}")
    assert status == 200, submission
    values = submission["values"]
    assert (values["name"], values["mail"], values["city"]) == ("Ana Souza", "ana@example.org", "Porto")
    assert [room["label"] for room in values["rooms"]] == ["Kitchen", "Attic"]
    assert values["plan"]["id"] == draft["values"]["plan"] and values["plan"]["size"] == len(plan.read_bytes())
    assert stored(other, form) is None, "the submitted draft is still remembered"

    # The console counts it: today's submission and the draft it came from.
    signed_in(browser)
    go(browser, f"#/forms/{form}/stats")
    today = datetime.now(timezone.utc).date().isoformat()
    row = browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, f'#stats-table tr[data-date="{today}"]'), "no stats for today")[0]
    cells = {cell.get_attribute("data-key"): int(cell.get_attribute("textContent")) for cell in row.find_elements(By.CSS_SELECTOR, "td")}
    assert cells["submissions"] == 1
    assert cells["draftsStarted"] >= 1
    assert cells["draftsSubmitted"] == 1
    chart = d.find_element(By.ID, "stats-chart")
    assert chart.get_attribute("role") == "img"
    assert re.search(r"On \w+ \d+: 1 submission, ", chart.get_attribute("aria-label")), chart.get_attribute("aria-label")
    assert d.find_element(By.ID, "completion-rate").text.endswith("%")
    assert d.find_elements(By.CSS_SELECTOR, "#stats-chart rect.st-bar.st-submissions")


def test_two_tabs_on_one_draft_meet_a_412_and_lose_nothing(browser, server, form):
    d = browser.driver
    link, draft_id, token = started_draft(browser, form)
    first = d.current_window_handle

    d.switch_to.new_window("tab")
    d.get(link)
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"))
    browser.wait(lambda: value(browser, "name") == "Ana Souza", "the second tab did not resume the draft")
    set_value(browser, "city", "Porto")
    wait_saved(browser)
    headers, _ = get_draft(server, draft_id, token)
    assert headers["ETag"] == '"2"'

    # The first tab still builds on revision 1: its save is refused, then merged and saved again.
    d.switch_to.window(first)
    set_value(browser, "mail", "ana@example.org")
    browser.wait(lambda: "Another device" in draft_status(browser), "the 412 was not recovered from")
    headers, draft = get_draft(server, draft_id, token)
    assert draft["values"]["name"] == "Ana Souza"
    assert draft["values"]["city"] == "Porto", "the other tab's change was lost"
    assert draft["values"]["mail"] == "ana@example.org", "this tab's change was lost"
    assert headers["ETag"] == '"3"'
    # The first tab now shows what the other one saved.
    assert value(browser, "city") == "Porto"
    assert value(browser, "mail") == "ana@example.org"


def test_a_wrong_link_says_so_and_shows_an_empty_form(browser, server, form):
    d = browser.driver
    status, _, draft = server.call("POST", f"/v1/forms/{form}/drafts", {"values": {"name": "Someone"}}, token=None)
    assert status == 201, draft

    for link in (f"/f/{form}?draft={draft['id']}#token=not-the-token",
                 f"/f/{form}?draft=drf_unknown#token={draft['token']}"):
        browser.open(link)
        browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "no form after a wrong link")
        message = d.find_element(By.ID, "status")
        browser.wait(lambda: "This draft has expired or the link is wrong" in message.text, f"no message for {link}")
        assert value(browser, "name") == ""
        assert "token" not in d.current_url
        assert stored(browser, form) is None

    # Typing there starts a draft of its own.
    set_value(browser, "name", "Bo")
    wait_saved(browser)
    _, other_id, _ = resume_link(browser)
    assert other_id != draft["id"]


def test_a_refused_submission_keeps_the_draft(browser, server, form):
    d = browser.driver
    open_form(browser, form)
    set_value(browser, "name", "Ana Souza")
    set_value(browser, "mail", "not-an-address")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "summary").is_displayed(), "the submission was not refused")
    browser.wait(lambda: error_text(browser, "mail") != "", "the 422 did not reach the e-mail field")
    assert error_text(browser, "city") != ""
    assert not d.find_element(By.ID, "receipt").is_displayed()

    _, draft_id, token = resume_link(browser)
    _, draft = get_draft(server, draft_id, token)
    assert draft["values"]["mail"] == "not-an-address"
    assert draft.get("submissionId") is None
    assert draft_id in (stored(browser, form) or "")

    set_value(browser, "mail", "ana@example.org")
    set_value(browser, "city", "Porto")
    set_value(browser, "rooms[0].label", "Kitchen")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "receipt").is_displayed(), "no receipt after fixing the errors")
    _, draft = get_draft(server, draft_id, token)
    assert draft["submissionId"] == d.find_element(By.CSS_SELECTOR, ".fh-receipt-id").text


def test_leaving_the_page_saves_what_was_just_typed(browser, server, form):
    """A change typed less than the save delay before the page goes is sent as it goes (keepalive)."""
    _, draft_id, token = started_draft(browser, form)
    set_value(browser, "city", "Porto")
    assert draft_status(browser) == "Saving…"
    browser.open("/")
    browser.wait(lambda: get_draft(server, draft_id, token)[1]["values"].get("city") == "Porto",
                 "the change typed just before leaving was lost")


def test_offline_saves_are_retried(browser, server, form):
    d = browser.driver
    _, draft_id, token = started_draft(browser, form)
    d.execute_cdp_cmd("Network.enable", {})
    try:
        d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        set_value(browser, "city", "Porto")
        browser.wait(lambda: draft_status(browser) == "Offline, will retry", "no offline status")
    finally:
        d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        d.execute_cdp_cmd("Network.disable", {})
    wait_saved(browser)
    assert get_draft(server, draft_id, token)[1]["values"]["city"] == "Porto"
    # The requests refused while offline are the only errors the console may show.
    errors = [e for e in browser.console_errors() if "ERR_INTERNET_DISCONNECTED" not in e]
    assert not errors, errors
