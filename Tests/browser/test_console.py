"""The admin console at /admin: sign-in, forms, the JSON editor with errors at their pointers and a
live preview, version diffs, submissions with paging and downloads, webhooks and deliveries."""

import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import ADMIN_TOKEN
from forms import TOUR, simple


def sign_in(browser, token=ADMIN_TOKEN):
    browser.open("/admin")
    field = browser.driver.find_element(By.ID, "token")
    browser.wait(lambda: field.is_displayed(), "sign-in form not shown")
    field.send_keys(token, Keys.ENTER)


def signed_in(browser):
    sign_in(browser)
    browser.wait(lambda: browser.driver.find_elements(By.ID, "forms-panel"), "forms list not shown after sign-in")


def go(browser, fragment):
    browser.script("location.hash = arguments[0]", fragment)


def rows(browser, selector):
    return browser.driver.find_elements(By.CSS_SELECTOR, selector)


def submit(server, form_id, values):
    status, _, body = server.call("POST", f"/v1/forms/{form_id}/submissions", {"values": values}, token=None)
    assert status == 201, body
    return body


def test_sign_in_keeps_the_token_in_session_storage_only(browser):
    sign_in(browser, "not-the-right-token-at-all")
    message = browser.driver.find_element(By.ID, "signin-message")
    browser.wait(lambda: "not accepted" in message.text, "a wrong token was not refused")
    assert browser.script("return sessionStorage.length") == 0

    signed_in(browser)
    assert browser.script("return sessionStorage.getItem('formhouse.adminToken')") == ADMIN_TOKEN
    assert browser.script("return localStorage.length") == 0
    assert browser.script("return document.cookie") == ""
    urls = browser.script("return performance.getEntriesByType('resource').map(e => e.name).concat([location.href])")
    assert not [u for u in urls if ADMIN_TOKEN in u]

    browser.driver.find_element(By.ID, "sign-out").click()
    browser.wait(lambda: browser.driver.find_element(By.ID, "signin-view").is_displayed())
    assert browser.script("return sessionStorage.length") == 0


def test_forms_list_shows_version_and_submission_count(browser, server):
    server.put_form(simple("console-list", "Listed form"))
    changed = simple("console-list", "Listed form")
    changed["components"].append({"integer": {"id": "age", "title": "Age"}})
    server.put_form(changed)
    submit(server, "console-list", {"name": "Ana"})
    submit(server, "console-list", {"name": "Bo"})
    signed_in(browser)
    row = browser.wait(lambda: rows(browser, 'tr[data-form-id="console-list"]'))[0]
    assert row.find_element(By.CSS_SELECTOR, ".ad-form-version").text == "2"
    assert row.find_element(By.CSS_SELECTOR, ".ad-form-count").text == "2"
    assert "Listed form" in row.text


def test_forms_list_follows_every_page(browser, server):
    # The API hands out at most 500 forms a page; the console asks for pages until nextCursor is null.
    ids = [f"zz-paged-{n:03}" for n in range(501)]
    for form_id in ids:
        server.put_form(simple(form_id, "Paged form"))
    try:
        listed, cursor = [], None
        while True:
            status, _, page = server.call("GET", "/v1/admin/forms?limit=500" + (f"&cursor={cursor}" if cursor else ""))
            assert status == 200, page
            listed += [form["id"] for form in page["items"]]
            cursor = page["nextCursor"]
            if not cursor:
                break
        assert len(listed) > 500 and listed[-1] == ids[-1]
        status, _, whole = server.call("GET", "/v1/admin/forms")
        assert [form["id"] for form in whole["items"]] == listed and whole["nextCursor"] is None
        signed_in(browser)
        browser.wait(lambda: rows(browser, f'tr[data-form-id="{ids[-1]}"]'), "the second page's form is not listed")
        assert [row.get_attribute("data-form-id") for row in rows(browser, "tr[data-form-id]")] == listed
    finally:
        for form_id in ids:
            server.call("DELETE", f"/v1/admin/forms/{form_id}")


def test_submission_made_in_the_renderer_is_found_in_the_console(browser, server):
    server.put_form(simple("console-find", "Find me"))
    browser.open("/f/console-find")
    d = browser.driver
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, ".fh-submit"))
    d.find_element(By.CSS_SELECTOR, '[data-path="name"] input').send_keys("Renderer Person")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "receipt").is_displayed())
    receipt_id = d.find_element(By.CSS_SELECTOR, ".fh-receipt-id").text

    signed_in(browser)
    go(browser, "#/forms/console-find/submissions")
    row = browser.wait(lambda: rows(browser, f'tr[data-submission-id="{receipt_id}"]'), "submission not listed")[0]
    assert "Renderer Person" in row.get_attribute("textContent")

    # Opened, it shows the stored submission in full and the body as the page sent it.
    browser.click(f'tr[data-submission-id="{receipt_id}"] .ad-submission-open')
    detail = browser.wait(lambda: d.find_elements(By.ID, "submission-values"), "submission details not shown")[0]
    assert json.loads(detail.text) == {"name": "Renderer Person"}
    # The page submitted through its draft, so the body is the one the server makes of it, without a key.
    panel = d.find_element(By.ID, "submission-detail").text
    assert '"formVersion":1,"values":{"name":"Renderer Person"}' in panel


def test_submissions_page_through_and_download(browser, server, downloads):
    server.put_form(simple("console-pages", "Paged"))
    ids = [submit(server, "console-pages", {"name": f"Person {n}"})["id"] for n in range(12)]
    signed_in(browser)
    go(browser, "#/forms/console-pages/submissions")
    d = browser.driver
    browser.wait(lambda: rows(browser, "tr[data-submission-id]"))
    d.find_element(By.CSS_SELECTOR, '#page-size option[value="10"]').click()
    browser.wait(lambda: len(rows(browser, "tr[data-submission-id]")) == 10)
    first_page = {r.get_attribute("data-submission-id") for r in rows(browser, "tr[data-submission-id]")}
    d.find_element(By.ID, "page-next").click()
    browser.wait(lambda: len(rows(browser, "tr[data-submission-id]")) == 2)
    second_page = {r.get_attribute("data-submission-id") for r in rows(browser, "tr[data-submission-id]")}
    assert first_page | second_page == set(ids) and not first_page & second_page
    assert not d.find_element(By.ID, "page-next").is_enabled()
    d.find_element(By.ID, "page-prev").click()
    browser.wait(lambda: len(rows(browser, "tr[data-submission-id]")) == 10)

    for button, name in (("download-csv", "console-pages-submissions.csv"), ("download-ndjson", "console-pages-submissions.ndjson")):
        target = downloads / name
        if target.exists():
            target.unlink()
        d.find_element(By.ID, button).click()
        browser.wait(lambda: target.exists() and target.stat().st_size > 0, f"{name} not downloaded")
        text = target.read_text()
        assert all(i in text for i in ids), name
    lines = [json.loads(line) for line in (downloads / "console-pages-submissions.ndjson").read_text().splitlines() if line]
    assert len(lines) == 12
    urls = browser.script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [u for u in urls if ADMIN_TOKEN in u]


BROKEN = """{
  "id": "console-broken",
  "title": "Broken",
  "style": { "accent": "#12345" },
  "components": [
    { "text": { "id": "name", "title": "Name" } },
    { "colour": { "id": "fav", "title": "Favourite colour" } },
    { "text": { "id": "code", "title": "Code", "regex": "([a-z]" } }
  ]
}"""


def line_of(text, needle):
    return text[: text.index(needle)].count("\n") + 1


def test_broken_definition_shows_errors_at_their_pointers(browser, server, tmp_path):
    signed_in(browser)
    go(browser, "#/new")
    d = browser.driver
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    upload = tmp_path / "broken.json"
    upload.write_text(BROKEN)
    d.find_element(By.ID, "definition-file").send_keys(str(upload))
    browser.wait(lambda: editor.get_attribute("value") == BROKEN, "file not loaded into the editor")
    # The preview follows the text and marks the unknown type.
    browser.wait(lambda: "Unsupported component type" in d.find_element(By.ID, "preview").text, "preview not refreshed")
    d.find_element(By.ID, "save-definition").click()
    errors = browser.wait(lambda: rows(browser, "#definition-errors .ad-error"), "no definition errors listed")
    by_pointer = {e.get_attribute("data-pointer"): e for e in errors}
    expected = {
        "/style/accent": line_of(BROKEN, '"accent"'),
        "/components/1/colour": line_of(BROKEN, '"colour"'),
        "/components/2/text/regex": line_of(BROKEN, '"regex"'),
    }
    for pointer, line in expected.items():
        assert pointer in by_pointer, (pointer, list(by_pointer))
        assert by_pointer[pointer].get_attribute("data-line") == str(line), pointer
        assert by_pointer[pointer].text.strip().startswith(pointer)
    marked = {int(m.get_attribute("data-line")) for m in rows(browser, ".ad-backdrop mark")}
    assert set(expected.values()) <= marked

    by_pointer["/components/2/text/regex"].click()
    caret_line = browser.script("const t = document.getElementById('definition-editor');"
                                "return t.value.slice(0, t.selectionStart).split('\\n').length")
    assert caret_line == expected["/components/2/text/regex"]
    assert d.switch_to.active_element == editor
    assert server.call("GET", "/v1/admin/forms/console-broken")[0] == 404

    # Fixed, the same text creates the form, and the console moves to it.
    fixed = BROKEN.replace('"#12345"', '"#123456"').replace('"colour"', '"text"').replace('"([a-z]"', '"[a-z]+"')
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, fixed)
    d.find_element(By.ID, "save-definition").click()
    browser.wait(lambda: "Created form" in d.find_element(By.ID, "flash").text, "form not created")
    assert server.call("GET", "/v1/admin/forms/console-broken")[0] == 200


def test_edit_adds_a_version_and_the_diff_shows_it(browser, server):
    server.put_form(simple("console-diff", "Before"))
    signed_in(browser)
    go(browser, "#/forms/console-diff/definition")
    d = browser.driver
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    browser.wait(lambda: '"Before"' in editor.get_attribute("value"))
    text = editor.get_attribute("value").replace('"Before"', '"After"')
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, text)
    browser.wait(lambda: "After" in d.find_element(By.ID, "preview").text, "preview did not follow the edit")
    d.find_element(By.ID, "save-definition").click()
    browser.wait(lambda: "version 2" in d.find_element(By.ID, "flash").text, "no new version")

    go(browser, "#/forms/console-diff/versions")
    browser.wait(lambda: rows(browser, "#diff-output [data-op]"), "no diff shown")
    removed = [e.text for e in rows(browser, '#diff-output [data-op="-"]')]
    added = [e.text for e in rows(browser, '#diff-output [data-op="+"]')]
    assert any('"Before"' in line for line in removed)
    assert any('"After"' in line for line in added)

    # Saving on this form's page saves to this form: another id in the text is the server's
    # idMismatch, not a silent new version of that other form.
    server.put_form(simple("console-other", "Other"))
    go(browser, "#/forms/console-diff/definition")
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    browser.wait(lambda: '"After"' in editor.get_attribute("value"))
    text = editor.get_attribute("value").replace('"console-diff"', '"console-other"')
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, text)
    d.find_element(By.ID, "save-definition").click()
    # Read in one script call: the list may be redrawn between finding an element and reading it.
    pointers = lambda: browser.script(
        "return [...document.querySelectorAll('#definition-errors .ad-error')].map(e => e.dataset.pointer)")
    browser.wait(lambda: "/id" in pointers(), "no idMismatch listed")
    assert server.call("GET", "/v1/admin/forms/console-other")[2]["version"] == 1

    # Someone else saves while this editor is open: saving is refused (If-Match), not an overwrite.
    go(browser, "#/forms/console-other/definition")
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    browser.wait(lambda: '"Other"' in editor.get_attribute("value"))
    server.put_form(simple("console-other", "Theirs"))
    text = editor.get_attribute("value").replace('"Other"', '"Mine"')
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, text)
    d.find_element(By.ID, "save-definition").click()
    browser.wait(lambda: "someone else" in d.find_element(By.ID, "editor-status").text, "no refusal of a stale save shown")
    other = server.call("GET", "/v1/admin/forms/console-other")[2]
    assert other["version"] == 2 and other["title"] == "Theirs"

    # A new form cannot take an id in use: POST answers 409 and the live form stays as it was.
    go(browser, "#/new")
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
                   editor, json.dumps(simple("console-other", "Replaced")))
    d.find_element(By.ID, "save-definition").click()
    browser.wait(lambda: "exists" in d.find_element(By.ID, "editor-status").text, "no form-exists refusal shown")
    assert server.call("GET", "/v1/admin/forms/console-other")[2]["version"] == 2


def test_webhook_add_rotate_deliveries_redeliver_delete(browser, server, receiver):
    server.put_form(simple("console-hooks", "Hooked"))
    receiver.statuses["/failing"] = 500
    signed_in(browser)
    go(browser, "#/forms/console-hooks/webhooks")
    d = browser.driver

    def shown_secret():
        return browser.script("const e = document.getElementById('webhook-secret'); return e ? e.textContent : ''")

    def add(url, previous=""):
        field = browser.wait(lambda: d.find_element(By.ID, "webhook-url"))
        field.send_keys(url, Keys.ENTER)
        secret = browser.wait(lambda: shown_secret() not in ("", previous) and shown_secret(), "secret not shown")
        assert secret.startswith("whsec_")
        return secret

    secret = add(receiver.url("/ok"))
    assert add(receiver.url("/failing"), previous=secret) != secret
    browser.wait(lambda: len(rows(browser, "tr[data-webhook-id]")) == 2)
    # The list never carries secrets; after a reload the secret is gone for good.
    browser.driver.refresh()
    browser.wait(lambda: len(rows(browser, "tr[data-webhook-id]")) == 2)
    assert secret not in d.find_element(By.TAG_NAME, "body").text

    receipt = submit(server, "console-hooks", {"name": "Hook Person"})
    browser.wait(lambda: receiver.received("/ok") and receiver.received("/failing"), "webhooks not delivered")
    delivered = json.loads(receiver.received("/ok")[0]["body"])
    assert delivered["data"]["id"] == receipt["id"]

    go(browser, "#/deliveries")
    browser.click("#status-failed")

    def deliveries():
        """(id, row text) of the listed deliveries of this submission, read in one go."""
        listed = browser.script("return [...document.querySelectorAll('tr[data-delivery-id]')]"
                                ".map(r => [r.dataset.deliveryId, r.textContent])")
        return [(i, text) for i, text in listed if receipt["id"] in text]

    def refresh_until(condition, message):
        def check():
            if condition():
                return True
            browser.click("#refresh-deliveries")
            return False
        browser.wait(check, message, poll=0.3)

    refresh_until(lambda: len(deliveries()) == 1 and "failed" in deliveries()[0][1], "failed delivery not listed")
    failed_id, failed_text = deliveries()[0]
    assert "500" in failed_text

    browser.click(f'tr[data-delivery-id="{failed_id}"] .ad-details')
    browser.wait(lambda: "500" in browser.script(
        "const t = document.querySelector('.ad-attempt-log'); return t ? t.textContent : ''"), "attempts not shown")

    receiver.statuses["/failing"] = 200
    browser.click("#redeliver")
    browser.wait(lambda: len(receiver.received("/failing")) >= 2, "redelivery not sent")

    browser.click("#status-failed")
    browser.click("#status-succeeded")
    refresh_until(lambda: len(deliveries()) == 2 and all("succeeded" in text for _, text in deliveries()),
                  "both deliveries not succeeded")

    go(browser, "#/forms/console-hooks/webhooks")
    browser.wait(lambda: len(rows(browser, "tr[data-webhook-id]")) == 2)
    first = rows(browser, "tr[data-webhook-id]")[0]
    first.find_element(By.CSS_SELECTOR, ".ad-rotate").click()
    rotated = browser.wait(lambda: shown_secret() not in ("", secret) and shown_secret(), "no rotated secret")
    assert rotated.startswith("whsec_") and rotated != secret
    delete = first.find_element(By.CSS_SELECTOR, ".ad-delete")
    delete.click()
    delete.click()
    browser.wait(lambda: len(rows(browser, "tr[data-webhook-id]")) == 1, "endpoint not deleted")


def test_console_screenshots_and_360px(browser, server):
    server.put_form(TOUR)
    signed_in(browser)
    go(browser, f"#/forms/{TOUR['id']}/definition")
    d = browser.driver
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, "#preview .fh-form"))
    # Shown with a definition error, so the screenshot has the editor's error list and highlight.
    broken = editor.get_attribute("value").replace('"Ana Souza"', '"Ana Souza",\n        "regex": "(unclosed"', 1)
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, broken)
    d.find_element(By.ID, "save-definition").click()
    browser.wait(lambda: rows(browser, '#definition-errors .ad-error[data-pointer="/components/0/text/regex"]'))
    for width in (360, 1280):
        browser.size(width, 900)
        assert browser.horizontal_overflow() == 0, width
        path = browser.screenshot("console", width)
        assert path.stat().st_size > 10_000
    browser.size(360, 900)
    submit(server, TOUR["id"], {"name": "Narrow Screen", "mail": "narrow@example.org",
                                "address": {"line1": "Rua 1"}, "addresses": [{"postcode": "12345"}]})
    for fragment, ready in (("#/forms", "tr[data-form-id]"),
                            (f"#/forms/{TOUR['id']}/submissions", "tr[data-submission-id]"),
                            (f"#/forms/{TOUR['id']}/versions", "#versions-title"),
                            (f"#/forms/{TOUR['id']}/webhooks", "#webhook-url"),
                            ("#/deliveries", "#refresh-deliveries")):
        go(browser, fragment)
        browser.wait(lambda: rows(browser, ready), f"{fragment} not shown")
        if fragment.endswith("/submissions"):
            browser.click("tr[data-submission-id] .ad-submission-open")
            browser.wait(lambda: rows(browser, "#submission-values"))
        assert browser.horizontal_overflow() == 0, fragment


def test_preview_survives_whatever_is_typed(browser):
    signed_in(browser)
    go(browser, "#/new")
    d = browser.driver
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    preview = d.find_element(By.ID, "preview")
    odd = [
        ('[1, 2, 3]', lambda: preview.find_elements(By.CSS_SELECTOR, ".fh-form")
         and not preview.find_elements(By.CSS_SELECTOR, ".fh-field")),
        ('{"title": "T", "components": "nope"}', lambda: "T" in preview.text),
        ('{"title": "Odd", "components": [{"text": 5}, {}, {"a": {}, "b": {}}, {"colour": {}}]}',
         lambda: len(preview.find_elements(By.CSS_SELECTOR, ".fh-unknown")) == 3),
        ('{"title": "Half', lambda: "JSON syntax error" in d.find_element(By.ID, "definition-errors").text),
    ]
    for text, shown in odd:
        browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, text)
        browser.wait(shown, f"preview did not settle for {text}")


def test_large_definition_is_shown_highlighted_and_editable(browser, server):
    """A definition of 80,000 lines pretty-printed, which the server accepts, fills the editor: a backdrop
    of one node per line spread into one call overflowed the call stack and left the tab blank, with no
    message. (Selects with many options make the lines with few fields, so the preview stays quick.)"""
    options = [{"id": f"o{k}"} for k in range(22)]
    components = [{"select": {"id": f"s{i}", "title": f"Field {i}", "options": options}} for i in range(1_100)]
    server.put_form({"id": "console-large", "title": "Large", "components": components})
    signed_in(browser)
    go(browser, "#/forms/console-large/definition")
    d = browser.driver
    browser.wait(lambda: d.find_elements(By.ID, "definition-editor"), "the editor of a large definition is not shown")
    editor = d.find_element(By.ID, "definition-editor")
    assert browser.script("return arguments[0].value.includes('\"s1099\"')", editor)

    # Typing repaints (a syntax error near the end), and the error's line is marked where the textarea
    # shows it, also once scrolled there.
    browser.script("arguments[0].value = arguments[0].value.replace('\"Field 1099\"', '\"Field 1099\" oops');"
                   "arguments[0].dispatchEvent(new Event('input'))", editor)
    browser.wait(lambda: rows(browser, ".ad-backdrop mark"), "the syntax error's line is not marked")
    line = browser.script("const t = arguments[0].value; return t.slice(0, t.indexOf('oops')).split('\\n').length", editor)
    assert [m.get_attribute("data-line") for m in rows(browser, ".ad-backdrop mark")] == [str(line)]
    browser.script("arguments[0].scrollTop = (arguments[1] - 5) * 20", editor, line)
    offset = """const t = arguments[0], m = document.querySelector('.ad-backdrop mark');
        return m.getBoundingClientRect().top - (t.getBoundingClientRect().top + 10 + (arguments[1] - 1) * 20 - t.scrollTop)"""
    browser.wait(lambda: abs(browser.script(offset, editor, line)) < 1, "the mark is not on its line")
    assert "oops" in browser.script("return document.querySelector('.ad-backdrop mark').textContent")


def preview_of(browser, definition):
    editor = browser.wait(lambda: browser.driver.find_element(By.ID, "definition-editor"))
    browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
                   editor, json.dumps(definition, indent=2))


def test_preview_refuses_repeats_past_the_servers_limit(browser):
    """The preview draws unsaved text, so it applies the server's limit on what repeats add (20,000
    components): nested minimums of 150 × 150 took seconds to draw, and a "min" of 100,000,000 crashed the tab."""
    signed_in(browser)
    go(browser, "#/new")
    d = browser.driver
    preview = d.find_element(By.ID, "preview")

    def group(gid, minimum, components, **extra):
        return {"group": {"id": gid, "title": gid, "repeat": {"min": minimum, **extra}, "components": components}}

    text = {"text": {"id": "a", "title": "A"}}
    for components in ([group("outer", 150, [group("inner", 150, [text], max=150)], max=150)],
                       [group("g", 100_000_000, [text], max=100_000_000)]):
        preview_of(browser, {"id": "big", "title": "Too big", "components": components})
        refusal = browser.wait(lambda: preview.find_elements(By.CSS_SELECTOR, ".fh-refused"), "no refusal in the preview")[0]
        assert "20,000" in refusal.text and "min" in refusal.text
        assert not preview.find_elements(By.CSS_SELECTOR, ".fh-instance")

    # A "min" above "max", which is 100 when not given, is refused by the server (badBounds): not drawn.
    preview_of(browser, {"id": "inverse", "title": "Inverse", "components": [group("many", 150, [text])]})
    refusal = browser.wait(lambda: [r for r in preview.find_elements(By.CSS_SELECTOR, ".fh-refused") if "many" in r.text],
                           "no refusal of min above max")[0]
    assert "above its" in refusal.text
    assert not preview.find_elements(By.CSS_SELECTOR, ".fh-instance")

    # Within the limit the preview draws as before; without "max" a repeat stops at 100 items, as the server.
    preview_of(browser, {"id": "ok", "title": "Fits", "components": [group("g", 100, [text])]})
    browser.wait(lambda: len(preview.find_elements(By.CSS_SELECTOR, ".fh-instance")) == 100, "the repeat was not drawn")
    assert not preview.find_element(By.CSS_SELECTOR, ".fh-add").is_enabled()
    assert "(100–100)" in preview.find_element(By.CSS_SELECTOR, ".fh-repeat-count").text
    assert not preview.find_elements(By.CSS_SELECTOR, ".fh-refused")


def test_values_with_bidi_controls_cannot_reorder_what_the_console_shows(browser, server):
    """U+202E in a value reversed the text after it in the values column; the previews and the stored
    values show such controls as escapes, isolated, and cut long previews between characters."""
    server.put_form({"id": "console-bidi", "title": "Bidi", "components": [
        {"text": {"id": "name", "title": "Name"}}, {"text": {"id": "iban", "title": "IBAN"}}, {"text": {"id": "mood", "title": "Mood"}}]})
    values = {"name": "Ana \u202e", "iban": "DE12 3456 7890", "mood": "\U0001F600" * 100}
    receipt = submit(server, "console-bidi", values)
    signed_in(browser)
    go(browser, "#/forms/console-bidi/submissions")
    browser.wait(lambda: rows(browser, "tr[data-submission-id]"), "submission not listed")
    # Cut by code points: no half of a surrogate pair before the ellipsis (checked in the page, since
    # such text cannot even be handed back to the test).
    assert browser.script("return /[\\uD800-\\uDBFF]\u2026$/.test(document.querySelector('td.ad-values summary').textContent)") is False
    summary = browser.script("return document.querySelector('td.ad-values summary').textContent")
    assert summary.startswith('{"name":"Ana \\u202E","iban":"DE12 3456 7890","mood":"\U0001F600')
    assert summary.endswith("\u2026")
    assert browser.script("return getComputedStyle(document.querySelector('td.ad-values summary')).unicodeBidi") == "isolate"

    browser.click(f'tr[data-submission-id="{receipt["id"]}"] .ad-submission-open')
    detail = browser.wait(lambda: rows(browser, "#submission-values"), "submission details not shown")[0]
    assert "\u202e" not in detail.text and '"Ana \\u202E"' in detail.text
    assert json.loads(detail.text) == values
    assert browser.script("return getComputedStyle(arguments[0]).unicodeBidi", detail) == "isolate"

