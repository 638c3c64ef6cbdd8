"""The console offers each admin token only what its role and forms allow (GET /v1/admin/whoami):
an owner everything, an editor its forms' edit controls, a viewer reading, an exporter its exports;
a 403 that comes back anyway is shown with the server's detail."""

import json

from selenium.webdriver.common.by import By

from conftest import ADMIN_TOKEN, ROLE_TOKENS
from forms import simple
from test_console import go, rows, sign_in, submit

EDITED, OTHER = "roles-edit", "roles-other"


def token(name):
    return ROLE_TOKENS[name]["token"]


def prepare(server):
    """The two forms the scoped tokens are about, with a submission each; the ids of those."""
    server.put_form(simple(EDITED, "Edited form"))
    server.put_form(simple(OTHER, "Other form"))
    return submit(server, EDITED, {"name": "Ed Person"})["id"], submit(server, OTHER, {"name": "Other Person"})["id"]


def present(browser, selector):
    return bool(rows(browser, selector))


def signed_in_as(browser, secret, panel):
    """Signs in with `secret`, waits for the panel with id `panel`, and returns the header's (name, role, forms)."""
    sign_in(browser, secret)
    browser.wait(lambda: present(browser, f"#{panel}"), f"#{panel} not shown after sign-in")
    return browser.script(
        "const text = id => { const e = document.getElementById(id); return e ? e.textContent.trim() : null; };"
        "return [text('identity-name'), text('identity-role'), text('identity-forms')]")


def open_definition(browser, form_id):
    go(browser, f"#/forms/{form_id}/definition")
    editor = browser.wait(lambda: browser.driver.find_element(By.ID, "definition-editor"), "no definition shown")
    browser.wait(lambda: f'"{form_id}"' in editor.get_attribute("value"), "definition not loaded")
    return editor


def tabs(browser):
    return browser.script("return [...document.querySelectorAll('.ad-tabs [data-tab]')].map(a => a.dataset.tab)")


def listed_forms(browser):
    return browser.script("return [...document.querySelectorAll('tr[data-form-id]')].map(r => r.dataset.formId)")


def test_an_owner_of_the_plain_token_list_sees_every_control(browser):
    assert signed_in_as(browser, ADMIN_TOKEN, "forms-panel") == ["token-1", "owner", None]
    assert present(browser, "#new-form")


def test_owner_sees_every_control(role_browser, role_server):
    prepare(role_server)
    assert signed_in_as(role_browser, ADMIN_TOKEN, "forms-panel") == ["token-1", "owner", None]
    assert present(role_browser, "#new-form")
    role_browser.wait(lambda: {EDITED, OTHER} <= set(listed_forms(role_browser)), "the owner's forms not listed")
    assert role_browser.driver.find_element(By.CSS_SELECTOR, '[data-section="deliveries"]').is_displayed()
    open_definition(role_browser, OTHER)
    for selector in ("#save-definition", "#format-definition", "#definition-file", ".ad-delete-form"):
        assert present(role_browser, selector), selector
    assert tabs(role_browser) == ["definition", "versions", "submissions", "stats", "webhooks"]
    go(role_browser, f"#/forms/{OTHER}/webhooks")
    role_browser.wait(lambda: present(role_browser, "#webhook-url"), "an owner is not offered webhooks")


def test_editor_of_one_form_edits_it_and_sees_no_other(role_browser, role_server):
    _, other_submission = prepare(role_server)
    d = role_browser.driver
    assert signed_in_as(role_browser, token("editor"), "forms-panel") == ["editor", "editor", f"form: {EDITED}"]
    # The server's list holds only its form; a new form's id could be one it does not reach.
    role_browser.wait(lambda: listed_forms(role_browser) == [EDITED], "the editor's list is not its one form")
    assert not present(role_browser, "#new-form")

    editor = open_definition(role_browser, EDITED)
    assert present(role_browser, ".ad-delete-form") and "webhooks" in tabs(role_browser)
    before = role_server.call("GET", f"/v1/admin/forms/{EDITED}")[2]["version"]
    text = editor.get_attribute("value").replace('"Edited form"', '"Edited by the editor"')
    role_browser.script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, text)
    d.find_element(By.ID, "save-definition").click()
    role_browser.wait(lambda: f"version {before + 1}" in d.find_element(By.ID, "flash").text, "the editor's save failed")
    saved = role_server.call("GET", f"/v1/admin/forms/{EDITED}")[2]
    assert saved["version"] == before + 1 and saved["title"] == "Edited by the editor"

    go(role_browser, f"#/forms/{EDITED}/webhooks")
    role_browser.wait(lambda: present(role_browser, "#webhook-url"), "an editor is not offered its form's webhooks")

    # Another form, even by its address, is not offered: no tabs, no calls, and the reason.
    go(role_browser, f"#/forms/{OTHER}/definition")
    unreachable = role_browser.wait(lambda: d.find_elements(By.ID, "form-unreachable"), "another form was opened")[0]
    assert "does not reach" in unreachable.text and not present(role_browser, ".ad-tabs")

    # A 403 the console could not foresee (a submission of another form, asked for by id) shows the server's detail.
    go(role_browser, f"#/forms/{EDITED}/submissions")
    lookup = role_browser.wait(lambda: d.find_element(By.ID, "submission-lookup"))
    lookup.send_keys(other_submission)
    lookup.submit()
    detail = f"Not allowed: Token 'editor' does not reach form '{OTHER}'."
    role_browser.wait(lambda: detail in d.find_element(By.ID, "submission-detail").text, "the refusal's detail is not shown")


def test_viewer_reads_and_changes_nothing(role_browser, role_server, receiver):
    ours, _ = prepare(role_server)
    d = role_browser.driver
    assert signed_in_as(role_browser, token("viewer"), "forms-panel") == ["viewer", "viewer", None]
    role_browser.wait(lambda: {EDITED, OTHER} <= set(listed_forms(role_browser)), "a viewer of every form does not list them")
    assert not present(role_browser, "#new-form")

    editor = open_definition(role_browser, EDITED)
    assert editor.get_attribute("readonly") is not None
    assert present(role_browser, "#read-only-note")
    for selector in ("#save-definition", "#format-definition", "#definition-file", ".ad-delete-form"):
        assert not present(role_browser, selector), selector
    assert tabs(role_browser) == ["definition", "versions", "submissions", "stats"]
    # Webhooks and a new form are an editor's: their addresses show what the viewer may see instead.
    go(role_browser, f"#/forms/{EDITED}/webhooks")
    role_browser.wait(lambda: present(role_browser, "#read-only-note"), "the webhooks address did not fall back")
    assert not present(role_browser, "#webhook-url")
    go(role_browser, "#/new")
    role_browser.wait(lambda: present(role_browser, "#forms-panel"), "#/new did not fall back to the forms")
    assert not present(role_browser, "#definition-editor")

    go(role_browser, f"#/forms/{EDITED}/submissions")
    role_browser.click(f'tr[data-submission-id="{ours}"] .ad-submission-open', "the viewer's submission is not listed")
    values = role_browser.wait(lambda: d.find_elements(By.ID, "submission-values"), "the submission did not open")[0]
    assert json.loads(values.text) == {"name": "Ed Person"}
    assert present(role_browser, "#download-csv")

    # Deliveries are read, not redelivered.
    status, _, _ = role_server.call("POST", f"/v1/admin/forms/{EDITED}/webhooks", {"url": receiver.url("/roles-viewer")})
    assert status == 201
    submission = submit(role_server, EDITED, {"name": "Hooked"})["id"]
    role_browser.wait(lambda: receiver.received("/roles-viewer"), "no delivery sent")
    go(role_browser, f"#/deliveries?formId={EDITED}")

    def delivery_row():
        found = [r for r in rows(role_browser, "tr[data-delivery-id]") if submission in r.text]
        if not found:
            role_browser.click("#refresh-deliveries")
        return found

    row = role_browser.wait(delivery_row, "the delivery is not listed")[0]
    row.find_element(By.CSS_SELECTOR, ".ad-details").click()
    role_browser.wait(lambda: present(role_browser, ".ad-attempt-log"), "the attempts are not shown")
    assert not present(role_browser, "#redeliver")


def test_exporter_sees_only_the_exports_of_its_forms(role_browser, role_server, downloads):
    ours, _ = prepare(role_server)
    d = role_browser.driver
    assert signed_in_as(role_browser, token("exporter"), "exports-panel") == ["exporter", "exporter", f"forms: {EDITED}, {OTHER}"]
    assert listed_forms(role_browser) == [EDITED, OTHER]
    assert not d.find_element(By.CSS_SELECTOR, '[data-section="deliveries"]').is_displayed()
    buttons = role_browser.script("return [...document.querySelectorAll('#app-view button')].map(b => b.textContent)")
    assert buttons == ["Download CSV", "Download NDJSON"] * 2

    target = downloads / f"{EDITED}-submissions.csv"
    target.unlink(missing_ok=True)
    d.find_element(By.CSS_SELECTOR, f'tr[data-form-id="{EDITED}"] .ad-export-csv').click()
    role_browser.wait(lambda: target.exists() and ours in target.read_text(), "the CSV was not downloaded")
    assert "Downloaded" in d.find_element(By.ID, "exports-status").text

    # What an exporter may not open is not drawn, whatever the address asks for.
    for fragment in (f"#/forms/{EDITED}/definition", "#/deliveries", "#/new"):
        go(role_browser, fragment)
        role_browser.wait(lambda: present(role_browser, "#exports-panel"), f"{fragment} did not fall back to the exports")
        assert not present(role_browser, "#definition-editor") and not present(role_browser, "#deliveries-table"), fragment


def test_exporter_of_every_form_names_the_form_to_export(role_browser, role_server, downloads):
    _, theirs = prepare(role_server)
    d = role_browser.driver
    assert signed_in_as(role_browser, token("exporter-all"), "exports-panel") == ["exporter-all", "exporter", None]
    # It may not list forms, so it names one.
    assert not present(role_browser, "tr[data-form-id]")
    target = downloads / f"{OTHER}-submissions.ndjson"
    target.unlink(missing_ok=True)
    d.find_element(By.ID, "export-form-id").send_keys(OTHER)
    d.find_element(By.CSS_SELECTOR, "#export-form .ad-export-ndjson").click()
    role_browser.wait(lambda: target.exists() and theirs in target.read_text(), "the NDJSON was not downloaded")
    ids = [json.loads(line)["id"] for line in target.read_text().splitlines() if line]
    assert theirs in ids


# Makes the first GET /v1/admin/whoami of each page claim the editor role: the console then offers
# what the token (a viewer) may not do, as if its role had been lowered since it signed in.
PROMOTED_ONCE = """
(() => {
  const realFetch = window.fetch;
  let promoted = false;
  window.fetch = async (input, init) => {
    const answer = await realFetch(input, init);
    if (promoted || !String(input).endsWith("/v1/admin/whoami")) return answer;
    promoted = true;
    const me = await answer.json();
    return new Response(JSON.stringify({ ...me, role: "editor" }), { status: 200, headers: { "Content-Type": "application/json" } });
  };
})();
"""


def test_a_refusal_after_the_role_changed_shows_its_detail_and_withdraws_the_controls(role_browser, role_server):
    prepare(role_server)
    d = role_browser.driver
    script = d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROMOTED_ONCE})["identifier"]
    try:
        assert signed_in_as(role_browser, token("viewer"), "forms-panel")[1] == "editor"
        open_definition(role_browser, EDITED)
        before = role_server.call("GET", f"/v1/admin/forms/{EDITED}")[2]["version"]
        d.find_element(By.ID, "save-definition").click()
        flash = d.find_element(By.ID, "flash")
        role_browser.wait(lambda: "Not allowed: Token 'viewer' is a viewer; this needs an editor." in flash.text,
                          "the refusal's detail is not shown")
        assert "changed since you signed in" in flash.text
        role_browser.wait(lambda: present(role_browser, "#read-only-note"), "the editor's controls were not withdrawn")
        assert not present(role_browser, "#save-definition")
        assert d.find_element(By.ID, "identity-role").text == "viewer"
        assert role_server.call("GET", f"/v1/admin/forms/{EDITED}")[2]["version"] == before
    finally:
        d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})
