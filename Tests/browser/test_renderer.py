"""The public renderer at /f/{id}: every component type, live validation by the server's engine,
visibleWhen, repeats, submission with a receipt, 422 mapped onto fields, accessibility and 360 px."""

import json
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import REPO
from forms import INPUT_TYPES, TOUR


@pytest.fixture(scope="module")
def tour(server):
    server.put_form(TOUR)
    return TOUR["id"]


def open_form(browser, form_id):
    browser.open(f"/f/{form_id}")
    browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "form not rendered")


def wrapper(browser, path):
    return browser.driver.find_element(By.CSS_SELECTOR, f'[data-path="{path}"]')


def control(browser, path):
    return wrapper(browser, path).find_element(By.CSS_SELECTOR, "input, textarea, select")


def error_text(browser, path):
    return wrapper(browser, path).find_element(By.CSS_SELECTOR, ".fh-error").text


def set_value(browser, path, value):
    """Sets a control the way a person would end up with it, then fires input and change events."""
    element = control(browser, path)
    browser.script("arguments[0].value = arguments[1];"
                   "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
                   "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", element, value)


def submit_and_read(browser, server, message="no receipt"):
    """Submits the page's form, waits for its receipt and returns the submission as the server stored it."""
    d = browser.driver
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "receipt").is_displayed(), message)
    status, _, stored = server.call("GET", f"/v1/admin/submissions/{d.find_element(By.CSS_SELECTOR, '.fh-receipt-id').text}")
    assert status == 200, stored
    return stored


def shown(browser, path):
    return wrapper(browser, path).is_displayed()


def test_every_component_type_renders_with_labels_marks_and_style(browser, tour):
    open_form(browser, tour)
    d = browser.driver
    types = {e.get_attribute("data-type") for e in d.find_elements(By.CSS_SELECTOR, ".fh-field[data-type]")}
    assert set(INPUT_TYPES) <= types
    assert d.find_elements(By.CSS_SELECTOR, "section.fh-section")
    assert d.find_elements(By.CSS_SELECTOR, 'fieldset.fh-group[data-path="address"]')
    assert d.find_elements(By.CSS_SELECTOR, 'fieldset.fh-group.fh-repeat[data-path="addresses"]')
    assert d.find_element(By.CSS_SELECTOR, "h1.fh-title").text == "Every component"

    # Every text-like control has a label that names it, and its describedby ids exist.
    for element in d.find_elements(By.CSS_SELECTOR, ".fh-input"):
        if not element.is_displayed():
            continue
        element_id = element.get_attribute("id")
        assert d.find_elements(By.CSS_SELECTOR, f'label[for="{element_id}"]'), element_id
        for described in (element.get_attribute("aria-describedby") or "").split():
            assert d.find_elements(By.ID, described), described

    name = wrapper(browser, "name")
    assert name.find_element(By.CSS_SELECTOR, ".fh-label").text.startswith("Your name")
    assert name.find_element(By.CSS_SELECTOR, ".fh-required").text.strip() == "*"
    assert name.find_element(By.CSS_SELECTOR, ".fh-description").text == "As on your ID."
    assert control(browser, "name").get_attribute("placeholder") == "Ana Souza"
    assert control(browser, "name").get_attribute("aria-required") == "true"
    assert not wrapper(browser, "about").find_elements(By.CSS_SELECTOR, ".fh-required")
    assert wrapper(browser, "newsletter").find_element(By.CSS_SELECTOR, "input").get_attribute("role") == "switch"

    # The form's style colors (#RRGGBBAA) reach the page.
    background = browser.script("return getComputedStyle(document.body).backgroundColor")
    accent = browser.script("return getComputedStyle(document.querySelector('.fh-submit')).backgroundColor")
    assert background == "rgb(232, 245, 233)"
    assert accent == "rgb(27, 94, 32)"


def test_live_errors_come_from_the_server_by_key_path(browser, tour):
    open_form(browser, tour)
    mail = control(browser, "mail")
    mail.send_keys("not-an-address")
    browser.wait(lambda: "valid e-mail" in error_text(browser, "mail"), "no live e-mail error")
    assert mail.get_attribute("aria-invalid") == "true"
    error_id = wrapper(browser, "mail").find_element(By.CSS_SELECTOR, ".fh-error").get_attribute("id")
    assert error_id in mail.get_attribute("aria-describedby").split()

    mail.send_keys(Keys.CONTROL, "a")
    mail.send_keys("ana@example.org")
    browser.wait(lambda: error_text(browser, "mail") == "", "e-mail error did not clear")
    assert mail.get_attribute("aria-invalid") is None

    # Leaving a required field empty shows its error on blur.
    control(browser, "name").click()
    control(browser, "name").send_keys(Keys.TAB)
    browser.wait(lambda: error_text(browser, "name") != "", "no required error on blur")

    # Bounds and number rules are the engine's.
    control(browser, "age").send_keys("12")
    browser.wait(lambda: error_text(browser, "age") != "", "no minValue error")
    set_value(browser, "age", "30")
    browser.wait(lambda: error_text(browser, "age") == "", "age error did not clear")

    # An error inside a repeating group lands on that item's field: addresses[0].postcode.
    control(browser, "addresses[0].postcode").send_keys("12")
    browser.wait(lambda: error_text(browser, "addresses[0].postcode") != "", "no pattern error in the repeat")


def test_keyboard_reaches_every_control_in_order(browser, tour):
    open_form(browser, tour)
    d = browser.driver
    controls = [e for e in d.find_elements(By.CSS_SELECTOR, "form.fh-form input, form.fh-form select, form.fh-form textarea, form.fh-form button")
                if e.is_displayed() and e.is_enabled()]
    control(browser, "name").click()
    visited = [d.switch_to.active_element]
    for _ in range(len(controls) + 5):
        d.switch_to.active_element.send_keys(Keys.TAB)
        visited.append(d.switch_to.active_element)
        if visited[-1] == controls[-1]:
            break
    # A date input takes several Tab presses (month, day, year): count each control once.
    order = [e for k, e in enumerate(visited) if k == 0 or e != visited[k - 1]]
    assert order == controls, "Tab order differs from the visual order"
    assert controls[-1].get_attribute("type") == "submit"


def test_visible_when_follows_typing(browser, tour):
    open_form(browser, tour)
    assert not shown(browser, "otherContact")
    assert not shown(browser, "state")
    contact = Select(control(browser, "contact"))
    contact.select_by_value("other")
    browser.wait(lambda: shown(browser, "otherContact"), "equals did not show the field")
    contact.select_by_value("phone")
    browser.wait(lambda: not shown(browser, "otherContact"), "equals did not hide the field again")
    browser.wait(lambda: shown(browser, "state"), "any/in did not show the state")
    contact.select_by_value("")
    browser.wait(lambda: not shown(browser, "state"), "state stayed visible")
    control(browser, "usPhone").send_keys("555-123-4567")
    browser.wait(lambda: shown(browser, "state"), "any/notEmpty did not show the state")

    # A state's name counts as its code, as the engine normalizes it, in the value and in the condition
    # ("Texas").
    assert not shown(browser, "county")
    set_value(browser, "state", "texas")
    browser.wait(lambda: shown(browser, "county"), "state name did not match its code")
    set_value(browser, "state", "OH")
    browser.wait(lambda: not shown(browser, "county"), "county stayed visible")

    # On a multiple select, equals means "is among the chosen", as in the engine.
    def topic(value):
        return wrapper(browser, "topics").find_element(By.CSS_SELECTOR, f'input[value="{value}"]')

    assert not shown(browser, "eventCity")
    topic("news").click()
    assert not shown(browser, "eventCity")
    topic("events").click()
    browser.wait(lambda: shown(browser, "eventCity"), "equals on a multiple select did not test membership")
    topic("events").click()
    browser.wait(lambda: not shown(browser, "eventCity"), "eventCity stayed visible")
    topic("news").click()

    # all: switch on and an e-mail given.
    assert not shown(browser, "frequency")
    wrapper(browser, "newsletter").find_element(By.CSS_SELECTOR, "input").click()
    assert not shown(browser, "frequency")
    control(browser, "mail").send_keys("a@example.org")
    browser.wait(lambda: shown(browser, "frequency"), "all did not show the field")
    wrapper(browser, "newsletter").find_element(By.CSS_SELECTOR, "input").click()
    browser.wait(lambda: not shown(browser, "frequency"), "all did not hide the field")

    # As in the engine, a value the server rejected does not count for conditions.
    wrapper(browser, "newsletter").find_element(By.CSS_SELECTOR, "input").click()
    browser.wait(lambda: shown(browser, "frequency"))
    set_value(browser, "mail", "not-an-address")
    browser.wait(lambda: error_text(browser, "mail") != "" and not shown(browser, "frequency"),
                 "a rejected e-mail still counted as given")
    set_value(browser, "mail", "b@example.org")
    browser.wait(lambda: error_text(browser, "mail") == "" and shown(browser, "frequency"), "field did not come back")

    # notEquals inside a group reads the sibling in the same group.
    assert shown(browser, "address.city")
    control(browser, "address.line1").send_keys("unknown")
    browser.wait(lambda: not shown(browser, "address.city"), "notEquals did not hide the city")


def test_repeat_add_and_remove_respect_min_and_max(browser, tour):
    open_form(browser, tour)
    d = browser.driver
    group = wrapper(browser, "addresses")
    add = group.find_element(By.CSS_SELECTOR, ".fh-add")
    items = lambda: group.find_elements(By.CSS_SELECTOR, ".fh-instance")
    removes = lambda: group.find_elements(By.CSS_SELECTOR, ".fh-remove")
    assert len(items()) == 1
    assert not removes()[0].is_enabled()

    control(browser, "addresses[0].postcode").send_keys("11111")
    add.click()
    browser.wait(lambda: len(items()) == 2)
    assert d.switch_to.active_element == control(browser, "addresses[1].postcode")
    control(browser, "addresses[1].postcode").send_keys("22222")
    add.click()
    browser.wait(lambda: len(items()) == 3)
    control(browser, "addresses[2].postcode").send_keys("33333")
    assert not add.is_enabled()
    assert all(r.is_enabled() for r in removes())

    removes()[1].click()
    browser.wait(lambda: len(items()) == 2)
    assert add.is_enabled()
    assert control(browser, "addresses[0].postcode").get_attribute("value") == "11111"
    assert control(browser, "addresses[1].postcode").get_attribute("value") == "33333"
    removes()[0].click()
    browser.wait(lambda: len(items()) == 1)
    assert control(browser, "addresses[0].postcode").get_attribute("value") == "33333"
    assert not removes()[0].is_enabled()


def fill_valid(browser):
    set_value(browser, "name", "Ana Souza")
    set_value(browser, "mail", "ana@example.org")
    set_value(browser, "about", "Line one\nLine two")
    set_value(browser, "age", "34")
    set_value(browser, "height", "1.68")
    set_value(browser, "birthday", "1990-05-17")
    Select(control(browser, "contact")).select_by_value("other")
    browser.wait(lambda: shown(browser, "otherContact"))
    set_value(browser, "otherContact", "Carrier pigeon")
    wrapper(browser, "topics").find_element(By.CSS_SELECTOR, 'input[value="events"]').click()
    wrapper(browser, "newsletter").find_element(By.CSS_SELECTOR, "input").click()
    plus = wrapper(browser, "guests").find_elements(By.CSS_SELECTOR, ".fh-step")[1]
    plus.click()
    plus.click()
    set_value(browser, "address.line1", "Rua Augusta 10")
    set_value(browser, "addresses[0].postcode", "01305")
    wrapper(browser, "addresses").find_element(By.CSS_SELECTOR, ".fh-add").click()
    browser.wait(lambda: browser.driver.find_elements(By.CSS_SELECTOR, '[data-path="addresses[1].postcode"]'))
    set_value(browser, "addresses[1].postcode", "20040")


def test_submit_maps_422_to_fields_then_shows_a_receipt(browser, server, tour):
    open_form(browser, tour)
    d = browser.driver
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "summary").is_displayed(), "submission not refused")
    browser.wait(lambda: error_text(browser, "name") != "", "422 not mapped to name")
    for path in ("mail", "address.line1", "addresses[0].postcode"):
        assert error_text(browser, path) != "", path
        assert control(browser, path).get_attribute("aria-invalid") == "true"
    assert d.switch_to.active_element == control(browser, "name")
    summary = d.find_element(By.ID, "summary")
    assert summary.is_displayed() and "Please fix" in summary.text

    fill_valid(browser)
    stored = submit_and_read(browser, server)
    values = stored["values"]
    assert values["name"] == "Ana Souza"
    assert values["age"] == 34
    assert values["topics"] == ["events"]
    assert values["newsletter"] is True
    assert values["guests"] == 2
    assert values["otherContact"] == "Carrier pigeon"
    assert values["address"]["line1"] == "Rua Augusta 10"
    assert [a["postcode"] for a in values["addresses"]] == ["01305", "20040"]
    # Sent through the draft the page saved while typing: a second submit of it answers the same 201,
    # so it carries no Idempotency-Key (a plain submission does; see the ?version= test).
    sent = browser.script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert [url for url in sent if re.search(r"/v1/drafts/drf_[^/]+/submit$", url)], "not submitted through the draft"
    assert stored.get("idempotencyKey") is None


def test_360px_wide_has_no_horizontal_scroll_and_screenshots(browser, tour):
    open_form(browser, tour)
    control(browser, "mail").send_keys("not-an-address")
    browser.wait(lambda: error_text(browser, "mail") != "")
    browser.size(360, 800)
    assert browser.horizontal_overflow() == 0
    for width in (360, 1280):
        path = browser.screenshot("renderer", width)
        assert path.stat().st_size > 10_000


def test_pages_carry_a_strict_content_security_policy(server):
    for path in ("/f/browser-tour", "/admin", "/"):
        status, headers, _ = server.call("GET", path, token=None)
        assert status == 200, path
        policy = headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, (path, policy)


def sample_form_ids():
    folder = REPO / "config" / "forms"
    ids = []
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        definition = json.loads(file.read_text())
        ids.append(definition.get("id") or file.stem)
    return ids


@pytest.mark.parametrize("form_id", sample_form_ids() or [pytest.param(None, marks=pytest.mark.skip(reason="no sample forms in config/forms"))])
def test_sample_forms_render_and_validate(browser, form_id):
    open_form(browser, form_id)
    d = browser.driver
    assert not d.find_elements(By.CSS_SELECTOR, ".fh-unknown")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    # Either the form has required fields (errors appear) or it is accepted as it stands.
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, ".fh-invalid") or d.find_element(By.ID, "receipt").is_displayed(),
                 "submit did nothing")
    browser.size(360, 800)
    assert browser.horizontal_overflow() == 0


@pytest.mark.skipif(not (REPO / "config" / "forms" / "household.json").exists(), reason="sample form household not shipped")
def test_sample_household_filled_end_to_end(browser, server):
    """The shipped household form: a repeating group that appears with a switch, a condition inside
    each item, a 422 for a bad CEP, then a stored submission with nested values."""
    open_form(browser, "household")
    d = browser.driver
    assert not shown(browser, "dependants")
    set_value(browser, "contact", "Maria Lima")
    set_value(browser, "phone", "(11) 91234-5678")
    set_value(browser, "address.line1", "Rua das Flores 12")
    set_value(browser, "address.city", "Recife")
    set_value(browser, "address.postcode", "5000")
    wrapper(browser, "hasDependants").find_element(By.CSS_SELECTOR, "input").click()
    browser.wait(lambda: shown(browser, "dependants"), "switch did not show the repeating group")
    assert len(d.find_elements(By.CSS_SELECTOR, '[data-path="dependants"] .fh-instance')) == 1

    set_value(browser, "dependants[0].name", "João")
    set_value(browser, "dependants[0].age", "7")
    Select(control(browser, "dependants[0].relation")).select_by_value("child")
    wrapper(browser, "dependants").find_element(By.CSS_SELECTOR, ".fh-add").click()
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, '[data-path="dependants[1].name"]'))
    set_value(browser, "dependants[1].name", "Rosa")
    set_value(browser, "dependants[1].age", "68")
    assert not shown(browser, "dependants[1].relationOther")
    Select(control(browser, "dependants[1].relation")).select_by_value("other")
    browser.wait(lambda: shown(browser, "dependants[1].relationOther"), "condition inside the item did not apply")
    assert not shown(browser, "dependants[0].relationOther")
    set_value(browser, "dependants[1].relationOther", "Grandmother")

    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    # The summary appears only with the submission's 422 (live validation may have shown the error already).
    browser.wait(lambda: d.find_element(By.ID, "summary").is_displayed(), "submission not refused")
    assert error_text(browser, "address.postcode") != ""
    browser.wait(lambda: d.switch_to.active_element == control(browser, "address.postcode"), "focus not on the bad CEP")
    set_value(browser, "address.postcode", "50000-000")
    stored = submit_and_read(browser, server)
    assert stored["values"]["dependants"] == [
        {"name": "João", "age": 7, "relation": "child"},
        {"name": "Rosa", "age": 68, "relation": "other", "relationOther": "Grandmother"},
    ]
    assert stored["values"]["address"]["postcode"] == "50000-000"


def test_version_parameter_renders_and_submits_that_version(browser, server):
    """/f/{id}?version=1 renders version 1 after a version 2 exists, and its submission is stored as v1."""
    v1 = {"id": "versioned", "title": "Version one", "components": [
        {"text": {"id": "name", "title": "Name", "required": True}}]}
    v2 = {"id": "versioned", "title": "Version two", "components": [
        {"text": {"id": "name", "title": "Name", "required": True}},
        {"email": {"id": "mail", "title": "E-mail", "required": True}}]}
    server.put_form(v1)
    assert server.put_form(v2)["version"] == 2
    d = browser.driver

    browser.open("/f/versioned?version=1")
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "version 1 not rendered")
    assert d.find_element(By.CSS_SELECTOR, "h1.fh-title").text == "Version one"
    assert not d.find_elements(By.CSS_SELECTOR, '[data-path="mail"]')
    set_value(browser, "name", "Ana")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "receipt").is_displayed(), "no receipt for version 1")
    status, _, page = server.call("GET", "/v1/admin/forms/versioned/submissions")
    assert status == 200 and [item["formVersion"] for item in page["items"]] == [1]
    # A page showing a version asked for keeps no draft: it submits the values with an Idempotency-Key.
    status, _, stored = server.call("GET", f"/v1/admin/submissions/{d.find_element(By.CSS_SELECTOR, '.fh-receipt-id').text}")
    assert status == 200 and re.fullmatch(r"[0-9a-f-]{36}", stored.get("idempotencyKey") or ""), stored
    assert not browser.script("return localStorage.length")

    open_form(browser, "versioned")
    assert d.find_element(By.CSS_SELECTOR, "h1.fh-title").text == "Version two"
    assert d.find_elements(By.CSS_SELECTOR, '[data-path="mail"]')


HOSTILE = {
    "id": "browser-engine-agreement",
    "title": "Agreement with the engine",
    "components": [
        {"select": {"id": "pay", "title": "Pay by", "options": [{"id": "card", "title": "Card"}, {"id": "cash", "title": "Cash"}]}},
        {"text": {"id": "cardnumber", "title": "Card number", "visibleWhen": {"field": "pay", "equals": "card"}}},
        {"decimal": {"id": "amount", "title": "Amount"}},
        {"text": {"id": "reason", "title": "Why 12.5?", "required": True, "visibleWhen": {"field": "amount", "equals": "12.5"}}},
        {"text": {"id": "code", "title": "Code"}},
        {"text": {"id": "detail", "title": "Detail", "visibleWhen": {"field": "code", "equals": 5}}},
        {"text": {"id": "constructor", "title": "Builder", "required": True}},
        {"group": {"id": "__proto__", "title": "Odd group", "components": [{"count": {"id": "body", "title": "Body"}}]}},
    ],
}


def test_conditions_values_and_ids_agree_with_the_engine(browser, server):
    """What the page shows and sends is what the engine validates: a hidden field's earlier value is
    not sent; a decimal typed "12.50" equals 12.5 and a code "5 " or "+5" does not equal 5 (while
    "5e0" does), as in the engine; ids
    such as `constructor` and `__proto__` are plain keys, not JavaScript's prototype machinery."""
    server.put_form(HOSTILE)
    open_form(browser, HOSTILE["id"])
    d = browser.driver
    assert control(browser, "constructor").get_attribute("value") == ""
    assert browser.script("return ({}).body === undefined && Object.getPrototypeOf({}) === Object.prototype")

    Select(control(browser, "pay")).select_by_value("card")
    browser.wait(lambda: shown(browser, "cardnumber"))
    set_value(browser, "cardnumber", "4111111111111111")
    Select(control(browser, "pay")).select_by_value("cash")
    browser.wait(lambda: not shown(browser, "cardnumber"))

    set_value(browser, "amount", "12.50")
    browser.wait(lambda: shown(browser, "reason"), "12.50 did not equal 12.5")
    set_value(browser, "reason", "Because")
    set_value(browser, "code", "+5")
    assert not shown(browser, "detail"), '"+5" counted as 5, which the engine does not do'
    set_value(browser, "code", "5e0")
    browser.wait(lambda: shown(browser, "detail"), '"5e0" did not equal 5, as it does in the engine')
    set_value(browser, "code", "5 ")
    browser.wait(lambda: not shown(browser, "detail"), '"5 " counted as 5, which the engine does not do')
    set_value(browser, "constructor", "Bob")
    plus = wrapper(browser, "__proto__.body").find_elements(By.CSS_SELECTOR, ".fh-step")[1]
    plus.click()
    assert browser.script("return ({}).body === undefined"), "the group's value landed on Object.prototype"

    stored = submit_and_read(browser, server)
    assert stored["values"] == {"pay": "cash", "amount": 12.5, "reason": "Because", "code": "5 ",
                                "constructor": "Bob", "__proto__": {"body": 1}}
    status, _, raw = server.call("GET", f"/v1/admin/submissions/{stored['id']}/raw")
    assert status == 200
    assert "4111111111111111" not in json.dumps(raw), "the hidden card number was sent"


def test_a_required_switch_left_off_reads_as_false_after_validation(browser, server):
    """The engine reads a switch that `required` refused for being off as false (docs/engine.md, `visibleWhen`): a field shown
    by {"equals": false} stays shown after the 422, as the server still requires it."""
    server.put_form({"id": "switch-refused", "title": "Terms", "components": [
        {"switch": {"id": "terms", "title": "I accept the terms", "required": True}},
        {"text": {"id": "why", "title": "Why not?", "required": True, "visibleWhen": {"field": "terms", "equals": False}}}]})
    open_form(browser, "switch-refused")
    d = browser.driver
    assert shown(browser, "why")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: error_text(browser, "terms") != "", "the refused switch shows no error")
    assert shown(browser, "why"), "the page hid a field the server still validates"
    assert error_text(browser, "why") != ""


def test_conditions_compare_canonically_equivalent_text_as_equal(browser, server):
    """The engine compares text as Swift does: "café" with é precomposed equals "cafe" + U+0301. Each
    target is required, so the server's 422 naming it shows that the server saw it visible too."""
    pairs = [("café", "cafe\u0301"), ("cafe\u0301", "café")]
    components = []
    for k, (operand, _) in enumerate(pairs):
        components.append({"text": {"id": f"s{k}", "title": f"Source {k}"}})
        components.append({"text": {"id": f"t{k}", "title": f"Target {k}", "required": True,
                                    "visibleWhen": {"field": f"s{k}", "equals": operand}}})
    components.append({"select": {"id": "m", "title": "Multiple", "multiple": True, "options": [{"id": "café"}, {"id": "b"}]}})
    components.append({"text": {"id": "tm", "title": "Target m", "required": True,
                                "visibleWhen": {"field": "m", "equals": ["cafe\u0301"]}}})
    server.put_form({"id": "nfc", "title": "NFC", "components": components})
    open_form(browser, "nfc")
    d = browser.driver
    for k, (_, typed) in enumerate(pairs):
        assert not shown(browser, f"t{k}")
        set_value(browser, f"s{k}", typed)
        browser.wait(lambda: shown(browser, f"t{k}"), f"{typed!r} did not equal its composed or decomposed form")
    assert not shown(browser, "tm")
    wrapper(browser, "m").find_element(By.CSS_SELECTOR, "input").click()
    browser.wait(lambda: shown(browser, "tm"), "a choice in an array operand did not compare canonically")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "summary").is_displayed(), "submission not refused")
    for path in ("t0", "t1", "tm"):
        browser.wait(lambda: error_text(browser, path) != "", f"the server did not require {path}: it saw it hidden")


def test_counts_start_within_their_bounds(browser, server):
    """A count starts at its minValue, else 0, but never past its maxValue, so an untouched form is
    accepted: pre-filled 0 was refused by "maxValue": -1, although the engine takes the count left empty."""
    server.put_form({"id": "count-bounds", "title": "Counts", "components": [
        {"count": {"id": "below", "title": "Below zero", "maxValue": -1}},
        {"count": {"id": "above", "title": "Above two", "minValue": 2, "maxValue": 5}},
        {"count": {"id": "around", "title": "Around zero", "minValue": -3, "maxValue": 3}}]})
    open_form(browser, "count-bounds")
    d = browser.driver
    assert [control(browser, p).get_attribute("value") for p in ("below", "above", "around")] == ["-1", "2", "-3"]
    # A step goes on from there, within the bounds.
    wrapper(browser, "below").find_elements(By.CSS_SELECTOR, ".fh-step")[1].click()
    assert control(browser, "below").get_attribute("value") == "-1"
    stored = submit_and_read(browser, server, "the untouched form was refused")
    assert stored["values"] == {"below": -1, "above": 2, "around": -3}


def test_version_parameter_is_read_as_a_number(browser, server):
    """?version=01 is version 1, as the server reads it: no "not available" notice. When the server does
    answer with another version, the notice calls it the current one only when it is."""
    for title in ("Version one", "Version two"):
        server.put_form({"id": "version-number", "title": title, "components": [{"text": {"id": "name", "title": "Name"}}]})
    d = browser.driver
    status = lambda: browser.script("const s = document.getElementById('status'); return s.hidden ? '' : s.textContent")
    browser.open("/f/version-number?version=01")
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "version 01 not rendered")
    assert d.find_element(By.CSS_SELECTOR, "h1.fh-title").text == "Version one"
    assert status() == ""

    # A server that answers version 1 to ?version=3 (a stand-in: this one answers 404).
    rewrite = d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        const realFetch = window.fetch;
        window.fetch = (url, options) => realFetch(String(url).replace('version=3', 'version=1'), options);"""})
    try:
        browser.open("/f/version-number?version=3")
        browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "version 1 not rendered")
        browser.wait(lambda: "not available" in status(), "no notice of the other version")
        assert status() == "Version 3 is not available here; this is version 1."
    finally:
        d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": rewrite["identifier"]})


def test_computed_inputs_show_the_engines_values_and_enabled_when_disables(browser, server):
    """A formula's input is read-only and shows what the server computed as the person types; an
    input whose enabledWhen does not hold is disabled; the stored submission holds the computed total."""
    server.put_form({"id": "order", "title": "Order", "components": [
        {"decimal": {"id": "price", "title": "Price"}},
        {"integer": {"id": "qty", "title": "Quantity"}},
        {"decimal": {"id": "total", "title": "Total", "formula": "price * qty"}},
        {"switch": {"id": "gift", "title": "A gift"}},
        {"text": {"id": "card", "title": "Card text", "enabledWhen": {"field": "gift", "equals": True}}},
    ]})
    open_form(browser, "order")
    d = browser.driver
    assert control(browser, "total").get_attribute("readonly") is not None
    assert not control(browser, "card").is_enabled()
    set_value(browser, "price", "0.1")
    set_value(browser, "qty", "3")
    browser.wait(lambda: control(browser, "total").get_attribute("value") == "0.3", "the computed total is not shown")
    browser.script("arguments[0].click()", control(browser, "gift"))
    browser.wait(lambda: control(browser, "card").is_enabled(), "enabledWhen did not enable the card")
    set_value(browser, "card", "Happy birthday")
    stored = submit_and_read(browser, server)
    assert stored["values"]["total"] == 0.3
    assert stored["values"]["card"] == "Happy birthday"
