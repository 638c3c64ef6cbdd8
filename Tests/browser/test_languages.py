"""The interface's own words follow the browser's languages: a Chromium asking for pt-BR gets the form
page's buttons, error summary and receipt in Portuguese beside the form's own texts and the server's
messages; es-MX gets Spanish, pt-PT the Brazilian texts, fr English; the console signs in and lists
forms in Spanish. Each language is a Chromium of its own, started with those languages."""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import ADMIN_TOKEN, Browser, new_chrome

FORM_ID = "browser-languages"
LOCALIZED = {
    "id": FORM_ID, "responseFormat": "long", "defaultLanguage": "en",
    "title": {"en": "Sign up", "pt-BR": "Inscrição", "es": "Inscripción"},
    "components": [
        {"text": {"id": "name", "title": {"en": "Name", "pt-BR": "Nome", "es": "Nombre"}, "required": True}},
        {"email": {"id": "mail", "title": {"en": "E-mail", "pt-BR": "E-mail", "es": "Correo"}, "required": True}},
        {"group": {"id": "children", "title": {"en": "Child", "pt-BR": "Filho", "es": "Hijo"},
                   "repeat": {"min": 1, "max": 3},
                   "components": [{"text": {"id": "first", "title": {"en": "First name", "pt-BR": "Primeiro nome", "es": "Nombre de pila"}}}]}},
    ],
}

# What each browser must show: the form's own texts (from the server), the interface's, the server's message.
EXPECTED = {
    "pt-BR": {"lang": "pt-BR", "title": "Inscrição", "label": "Nome", "submit": "Enviar", "add": "Adicionar Filho",
              "count": "1 item (1–3)", "summary": "Corrija 2 problemas", "required": "Este campo é obrigatório.",
              "receipt": "Obrigado! Recebemos suas respostas", "reference": "Protocolo", "again": "Enviar outra resposta",
              "date": r"^\d{1,2} de [a-zç]{3}\. de \d{4}, \d{2}:\d{2}:\d{2}$"},
    "es": {"lang": "es", "title": "Inscripción", "label": "Nombre", "submit": "Enviar", "add": "Agregar Hijo",
           "count": "1 elemento (1–3)", "summary": "Corrige 2 problemas", "required": "Este campo es obligatorio.",
           "receipt": "¡Gracias! Recibimos tus respuestas", "reference": "Referencia", "again": "Enviar otra respuesta",
           "date": r"^\d{1,2} [a-z]{3,4} \d{4}, \d{1,2}:\d{2}:\d{2}$"},
    "en": {"lang": "en", "title": "Sign up", "label": "Name", "submit": "Submit", "add": "Add Child",
           "count": "1 entry (1–3)", "summary": "Please fix 2 problems", "required": "This field is required.",
           "receipt": "Thank you — your answers were received", "reference": "Reference", "again": "Send another response",
           "date": r"^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$"},
}
# pt-PT: the interface and the server's messages read pt-BR for any Portuguese; the form's texts are
# looked up by the server as RFC 4647 says, where `pt` does not find `pt-BR`, so they are its default's.
EXPECTED["pt-PT"] = {**EXPECTED["pt-BR"], "lang": "en", "title": "Sign up", "label": "Name", "add": "Adicionar Child"}


@pytest.fixture(scope="module")
def browser_in(server, artifacts, downloads):
    """Opens (once per set of languages) a Chromium asking for `languages`, with empty storage; after the
    module, fails on any console error any of them logged."""
    drivers = {}

    def open_browser(languages):
        if languages not in drivers:
            drivers[languages] = new_chrome(downloads, languages)
        b = Browser(drivers[languages], server, artifacts)
        b.open("/")
        b.script("sessionStorage.clear(); localStorage.clear()")
        return b

    yield open_browser
    errors = {languages: Browser(driver, server, artifacts).console_errors() for languages, driver in drivers.items()}
    for driver in drivers.values():
        driver.quit()
    assert not any(errors.values()), f"browser console errors: {errors}"


@pytest.fixture(scope="module")
def localized(server):
    server.put_form(LOCALIZED)
    return FORM_ID


def field(browser, path):
    return browser.driver.find_element(By.CSS_SELECTOR, f'[data-path="{path}"]')


@pytest.mark.parametrize("languages, expected", [
    ("pt-BR,pt", "pt-BR"), ("es-MX,es", "es"), ("pt-PT", "pt-PT"), ("fr-FR,fr", "en"),
])
def test_form_page_speaks_the_browsers_language(browser_in, localized, languages, expected):
    b = browser_in(languages)
    want = EXPECTED[expected]
    d = b.driver
    b.open(f"/f/{localized}")
    submit = b.wait(lambda: d.find_elements(By.CSS_SELECTOR, "form.fh-form .fh-submit"), "form not rendered")[0]
    assert submit.text == want["submit"]
    assert d.find_element(By.CSS_SELECTOR, "h1.fh-title").text == want["title"]
    assert d.find_element(By.CSS_SELECTOR, '[data-path="name"] label').text.startswith(want["label"])
    assert d.find_element(By.CSS_SELECTOR, ".fh-add").text == want["add"]
    assert d.find_element(By.CSS_SELECTOR, ".fh-repeat-count").text == want["count"]
    assert b.script("return document.documentElement.lang") == want["lang"]

    submit.click()
    heading = b.wait(lambda: [h for h in d.find_elements(By.CSS_SELECTOR, "#summary h2") if h.is_displayed()], "no error summary")[0]
    assert heading.text == want["summary"]
    b.wait(lambda: field(b, "name").find_element(By.CSS_SELECTOR, ".fh-error").text == want["required"],
           f"the server's message is not in {expected}: {field(b, 'name').find_element(By.CSS_SELECTOR, '.fh-error').text!r}")

    field(b, "name").find_element(By.CSS_SELECTOR, "input").send_keys("Ana")
    field(b, "mail").find_element(By.CSS_SELECTOR, "input").send_keys("ana@example.org")
    b.click("form.fh-form .fh-submit")
    receipt = b.wait(lambda: [r for r in d.find_elements(By.ID, "receipt") if r.is_displayed()], "no receipt")[0]
    assert receipt.find_element(By.ID, "receipt-title").text == want["receipt"]
    names = [dt.text for dt in receipt.find_elements(By.CSS_SELECTOR, ".fh-facts > dt")]
    assert names[0] == want["reference"]
    received = receipt.find_elements(By.CSS_SELECTOR, ".fh-facts > dd")[1].text
    # The date written the language's way: "27 de nov. de 2026, 19:29:05", "27 nov 2026, 19:29:05", "Nov 27, 2026, 7:29:05 PM".
    assert re.match(want["date"], received), received
    assert receipt.find_element(By.CSS_SELECTOR, "button").text == want["again"]


def test_language_lookup_follows_rfc_4647(browser_in):
    b = browser_in("en-US")
    cases = [(["pt-BR"], "pt-BR"), (["es-MX"], "es"), (["pt"], "pt-BR"), (["pt-PT"], "pt-BR"), (["ES"], "es"),
             (["fr", "es-419"], "es"), (["fr"], "en"), (["zh-Hant-TW"], "en"), (["en-GB", "pt-BR"], "en"), ([], "en")]
    picked = b.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/js/i18n.js').then((m) => done(arguments[0].map((c) => m.pickLanguage(c))));",
        [c for c, _ in cases])
    assert picked == [want for _, want in cases]


def test_each_form_view_falls_back_to_its_own_default_language(browser_in):
    """Two forms on one page, in a browser whose language neither has: each reads its texts in its own
    default language, also when it draws later (an item added to a repeat after the other was drawn)."""
    b = browser_in("fr-FR,fr")
    titles = {"en": "Child", "pt-BR": "Filho"}
    inner = {"en": "First name", "pt-BR": "Primeiro nome"}

    def definition(default):
        return {"id": f"in-{default}", "defaultLanguage": default, "title": {"en": "Sign up", "pt-BR": "Inscrição"},
                "components": [{"group": {"id": "children", "title": titles, "repeat": {"min": 1, "max": 3},
                                          "components": [{"text": {"id": "first", "title": inner}}]}}]}

    labels = b.driver.execute_async_script(
        "const [portuguese, english, done] = arguments;"
        "import('/js/renderer.js').then((m) => {"
        "  const boxes = [document.createElement('div'), document.createElement('div')];"
        "  document.body.append(...boxes);"
        "  const first = m.renderForm(boxes[0], portuguese);"
        "  m.renderForm(boxes[1], english);"
        "  boxes[0].querySelector('.fh-add').click();"
        "  const read = (box) => [box.querySelector('.fh-title').textContent,"
        "    ...[...box.querySelectorAll('[data-path^=\"children\"] label')].map((l) => l.textContent.trim())];"
        "  done([read(boxes[0]), read(boxes[1])]);"
        "});",
        definition("pt-BR"), definition("en"))
    portuguese, english = labels
    assert portuguese[0] == "Inscrição" and english[0] == "Sign up"
    # Two items in the first form (one added after the second form was drawn), one in the second.
    assert [label for label in portuguese[1:] if label.startswith("Primeiro")] == ["Primeiro nome", "Primeiro nome"], portuguese
    assert [label for label in english[1:] if label.startswith("First")] == ["First name"], english
    assert not any(label.startswith("First") for label in portuguese[1:]), portuguese


def test_console_signs_in_and_lists_forms_in_spanish(browser_in, localized):
    b = browser_in("es-MX,es")
    d = b.driver
    b.open("/admin")
    token = d.find_element(By.ID, "token")
    b.wait(lambda: token.is_displayed(), "sign-in form not shown")
    assert d.find_element(By.ID, "signin-title").text == "Iniciar sesión"
    assert d.find_element(By.CSS_SELECTOR, 'label[for="token"]').text == "Token de administración"
    assert d.find_element(By.ID, "signin-button").text == "Iniciar sesión"
    assert b.script("return document.documentElement.lang") == "es"

    token.send_keys("not-the-right-token-at-all", Keys.ENTER)
    b.wait(lambda: d.find_element(By.ID, "signin-message").text == "No se aceptó ese token.", "no refusal in Spanish")
    token.clear()
    token.send_keys(ADMIN_TOKEN, Keys.ENTER)
    b.wait(lambda: d.find_elements(By.ID, "forms-panel"), "forms list not shown after sign-in")
    assert d.find_element(By.ID, "forms-title").text == "Formularios"
    headers = [th.text for th in d.find_elements(By.CSS_SELECTOR, "#forms-panel th")]
    assert headers[:4] == ["Formulario", "Versión", "Envíos", "Actualizado"]
    assert d.find_element(By.ID, "new-form").text == "Nuevo formulario"
    assert d.find_element(By.ID, "sign-out").text == "Cerrar sesión"
    assert [a.text for a in d.find_elements(By.CSS_SELECTOR, "#nav a")] == ["Formularios", "Entregas"]
    row = b.wait(lambda: [r for r in d.find_elements(By.CSS_SELECTOR, "#forms-panel tr") if FORM_ID in r.text], "the form is not listed")[0]
    assert "Abrir formulario" in row.text
