"""File inputs: a picture picked in the renderer is uploaded under a progress bar, previewed, submitted,
and downloaded from the console byte for byte; a file over the limit is refused in the browser without
being sent, one whose bytes belie its type is refused by the server, and an upload can be cancelled."""

import hashlib
import os
import struct
import zlib

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import ADMIN_TOKEN
from forms import PHOTO_MAX_SIZE, PHOTOS
from test_console import go, signed_in
from test_renderer import error_text, open_form, set_value, submit_and_read, wrapper


@pytest.fixture(scope="module")
def photos(server):
    server.put_form(PHOTOS)
    return PHOTOS["id"]


def png(width, height):
    """A real PNG: red rises from left to right, green from top to bottom, blue is 128 throughout."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 255 // (width - 1), y * 255 // (height - 1), 128))
                    for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def picker(browser, path):
    return wrapper(browser, path).find_element(By.CSS_SELECTOR, 'input[type="file"]')


def items(browser, path, state=None):
    found = wrapper(browser, path).find_elements(By.CSS_SELECTOR, ".fh-file-item")
    return [i for i in found if state is None or i.get_attribute("data-state") == state]


def uploads_sent(browser):
    return [u for u in browser.script("return performance.getEntriesByType('resource').map(e => e.name)") if "/uploads" in u]


def test_picture_is_uploaded_previewed_submitted_and_downloaded(browser, server, photos, tmp_path, downloads):
    # Not ASCII, so the name travels as filename*=UTF-8''… (RFC 8187).
    picture = tmp_path / "garden-shed-café.png"
    picture.write_bytes(png(16, 12))
    assert len(picture.read_bytes()) < 1024, "the sizes below are written in bytes"
    extra = [tmp_path / "receipt-1.png", tmp_path / "receipt-2.png"]
    for k, path in enumerate(extra):
        path.write_bytes(png(20 + k, 10))
    open_form(browser, photos)
    d = browser.driver
    set_value(browser, "name", "Ana Souza")

    # The picker is labelled, says what it takes, and ties its hint and error to itself.
    chooser = picker(browser, "photo")
    assert d.find_element(By.CSS_SELECTOR, f'label[for="{chooser.get_attribute("id")}"]').text.startswith("Photo")
    assert chooser.get_attribute("aria-required") == "true"
    assert chooser.get_attribute("accept") == "image/*"
    described = chooser.get_attribute("aria-describedby").split()
    assert "64 KB" in " ".join(d.find_element(By.ID, i).text for i in described)
    assert wrapper(browser, "photo").find_element(By.CSS_SELECTOR, ".fh-error").get_attribute("id") in described

    chooser.send_keys(str(picture))
    item = browser.wait(lambda: items(browser, "photo", "done"), "the picture was not uploaded")[0]
    progress = item.find_element(By.CSS_SELECTOR, "progress")
    assert progress.is_displayed()
    assert float(progress.get_attribute("value")) == float(progress.get_attribute("max")) > 0
    assert "Uploaded" in item.text and picture.name in item.text
    assert item.find_element(By.CSS_SELECTOR, ".fh-file-size").text == f"{len(picture.read_bytes())} bytes · image/png"

    # The preview is the picture itself: its size and, at its top right corner, red without green.
    canvas = browser.wait(lambda: item.find_elements(By.CSS_SELECTOR, "canvas.fh-file-preview"), "no preview")[0]
    assert canvas.get_attribute("role") == "img" and canvas.get_attribute("aria-label") == f"Preview of {picture.name}"
    assert (canvas.get_attribute("width"), canvas.get_attribute("height")) == ("16", "12")
    red, green, blue, alpha = browser.script("return Array.from(arguments[0].getContext('2d').getImageData(15, 0, 1, 1).data)", canvas)
    assert red > 240 and green < 15 and 115 < blue < 140 and alpha == 255

    # Several files at once where maxFiles allows them; the value is then an array.
    picker(browser, "documents").send_keys("\n".join(str(p) for p in extra))
    browser.wait(lambda: len(items(browser, "documents", "done")) == 2, "the documents were not uploaded")
    sent = uploads_sent(browser)
    assert len([u for u in sent if u.endswith("/uploads?field=photo")]) == 1, sent
    assert len([u for u in sent if u.endswith("/uploads?field=documents")]) == 2, sent

    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    receipt = browser.wait(lambda: d.find_element(By.ID, "receipt") if d.find_element(By.ID, "receipt").is_displayed() else None, "no receipt")
    assert picture.name in receipt.get_attribute("textContent")
    receipt_id = d.find_element(By.CSS_SELECTOR, ".fh-receipt-id").text

    status, _, stored = server.call("GET", f"/v1/admin/submissions/{receipt_id}")
    assert status == 200, stored
    photo = stored["values"]["photo"]
    assert photo["filename"] == picture.name and photo["contentType"] == "image/png"
    assert photo["size"] == len(picture.read_bytes()) and photo["sha256"] == hashlib.sha256(picture.read_bytes()).hexdigest()
    assert [f["sha256"] for f in stored["values"]["documents"]] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in extra]

    # In the console, the submission lists its files, and Download saves the very bytes sent.
    signed_in(browser)
    go(browser, f"#/forms/{photos}/submissions")
    browser.click(f'tr[data-submission-id="{receipt_id}"] .ad-submission-open', "submission not listed")
    row = browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, f'#submission-files tr[data-file-id="{photo["id"]}"]'), "no file row")[0]
    cells = [c.text for c in row.find_elements(By.CSS_SELECTOR, "td")]
    assert cells[:4] == ["photo", picture.name, "image/png", f"{photo['size']} bytes"]
    assert len(d.find_elements(By.CSS_SELECTOR, "#submission-files tr[data-file-id]")) == 3
    target = downloads / picture.name
    if target.exists():
        target.unlink()
    row.find_element(By.CSS_SELECTOR, ".ad-file-download").click()
    browser.wait(lambda: target.exists() and target.read_bytes() == picture.read_bytes(), "the download differs from the picture")
    assert "Downloaded" in d.find_element(By.CSS_SELECTOR, "#submission-files .ad-message").text
    urls = browser.script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert [u for u in urls if f"/v1/admin/files/{photo['id']}" in u]
    assert not [u for u in urls if ADMIN_TOKEN in u]


def test_a_file_over_max_size_is_refused_without_being_sent(browser, photos, tmp_path):
    big = tmp_path / "huge.png"
    big.write_bytes(png(8, 8) + os.urandom(PHOTO_MAX_SIZE))
    small = tmp_path / "small.png"
    small.write_bytes(png(8, 8))
    open_form(browser, photos)
    chooser = picker(browser, "photo")
    chooser.send_keys(str(big))
    browser.wait(lambda: "over the 64 KB limit" in error_text(browser, "photo"), "no size error")
    assert "huge.png" in error_text(browser, "photo")
    assert chooser.get_attribute("aria-invalid") == "true"
    assert not items(browser, "photo")

    # A file within the limit goes through and clears the error; it is the only upload the page made,
    # so the large one was never sent.
    chooser.send_keys(str(small))
    browser.wait(lambda: items(browser, "photo", "done"), "the small picture was not uploaded")
    browser.wait(lambda: error_text(browser, "photo") == "", "the size error stayed")
    assert len(browser.wait(lambda: uploads_sent(browser))) == 1


def test_the_server_refusing_a_type_shows_on_the_field_and_remove_clears_it(browser, photos, tmp_path):
    fake = tmp_path / "holiday.jpg"
    fake.write_text("This is a letter, not a picture.\n" * 20)
    open_form(browser, photos)
    d = browser.driver
    chooser = picker(browser, "photo")
    chooser.send_keys(str(fake))
    item = browser.wait(lambda: items(browser, "photo", "failed"), "the server did not refuse the upload")[0]
    message = error_text(browser, "photo")
    assert message.startswith("“holiday.jpg” was not uploaded: ") and len(message) > len("“holiday.jpg” was not uploaded: ")
    assert chooser.get_attribute("aria-invalid") == "true"
    assert not item.find_elements(By.CSS_SELECTOR, "canvas"), "text was drawn as a picture"
    buttons = {b.get_attribute("data-action"): b for b in item.find_elements(By.CSS_SELECTOR, "button")}
    assert buttons["retry"].is_displayed() and buttons["remove"].is_displayed() and not buttons["cancel"].is_displayed()

    buttons["remove"].click()
    browser.wait(lambda: not items(browser, "photo"), "Remove left the file")
    assert "holiday.jpg" not in error_text(browser, "photo")
    assert d.switch_to.active_element == chooser

    # Nothing was kept: the form is refused for the missing photo.
    set_value(browser, "name", "Bo")
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: d.find_element(By.ID, "summary").is_displayed(), "submission not refused")
    browser.wait(lambda: error_text(browser, "photo") != "", "no error for the missing photo")


def test_an_upload_in_progress_holds_the_submission_and_can_be_cancelled(browser, photos, tmp_path):
    slow = tmp_path / "slow.png"
    slow.write_bytes(png(8, 8) + os.urandom(48 * 1024))
    open_form(browser, photos)
    d = browser.driver
    set_value(browser, "name", "Cy")
    d.execute_cdp_cmd("Network.enable", {})
    try:
        # About six seconds for the file: time to press Submit and Cancel while it is on its way.
        d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 8 * 1024})
        picker(browser, "photo").send_keys(str(slow))
        item = browser.wait(lambda: items(browser, "photo", "uploading"), "the upload did not start")[0]
        d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
        summary = d.find_element(By.ID, "summary")
        browser.wait(lambda: summary.is_displayed() and "still uploading" in summary.text, "the submission did not wait")

        cancel = item.find_element(By.CSS_SELECTOR, 'button[data-action="cancel"]')
        assert cancel.get_attribute("aria-label") == "Cancel slow.png"
        assert item.get_attribute("data-state") == "uploading", "the upload ended before it could be cancelled"
        cancel.send_keys(Keys.ENTER)
        browser.wait(lambda: not items(browser, "photo"), "Cancel left the file")
        assert d.switch_to.active_element == picker(browser, "photo")
    finally:
        d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        d.execute_cdp_cmd("Network.disable", {})
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: error_text(browser, "photo") != "", "the cancelled photo counted as given")


def test_a_file_in_a_repeat_item_moves_with_it(browser, server, tmp_path):
    """Removing an earlier item moves a later item's file with it, and the submission stores it there:
    an upload is for the input whichever item it lands in, so the file is not sent again."""
    server.put_form({"id": "browser-repeat-files", "title": "Rooms", "components": [
        {"group": {"id": "rooms", "title": "Room", "repeat": {"min": 2, "max": 3}, "components": [
            {"file": {"id": "photo", "title": "Photo", "accept": ["image/*"]}}]}}]})
    pictures = [tmp_path / "kitchen.png", tmp_path / "bedroom.png"]
    for k, path in enumerate(pictures):
        path.write_bytes(png(10 + k, 10))
    open_form(browser, "browser-repeat-files")
    d = browser.driver
    for k, path in enumerate(pictures):
        picker(browser, f"rooms[{k}].photo").send_keys(str(path))
        browser.wait(lambda: items(browser, f"rooms[{k}].photo", "done"), f"{path.name} was not uploaded")
    wrapper(browser, "rooms").find_element(By.CSS_SELECTOR, ".fh-add").click()
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, '[data-path="rooms[2].photo"]'))
    wrapper(browser, "rooms[0]").find_element(By.CSS_SELECTOR, ".fh-remove").click()
    browser.wait(lambda: not d.find_elements(By.CSS_SELECTOR, '[data-path="rooms[2].photo"]'))
    moved = browser.wait(lambda: items(browser, "rooms[0].photo", "done"), "the bedroom's file did not move and arrive")[0]
    assert "bedroom.png" in moved.text and not items(browser, "rooms[1].photo")
    assert len(uploads_sent(browser)) == 2

    stored = submit_and_read(browser, server)
    assert stored["values"]["rooms"][0]["photo"]["sha256"] == hashlib.sha256(pictures[1].read_bytes()).hexdigest()
    assert "photo" not in stored["values"]["rooms"][1]


def test_the_consoles_preview_checks_and_shows_a_file_but_sends_nothing(browser, tmp_path):
    picture = tmp_path / "preview.png"
    picture.write_bytes(png(12, 12))
    signed_in(browser)
    go(browser, "#/new")
    d = browser.driver
    editor = browser.wait(lambda: d.find_element(By.ID, "definition-editor"))
    definition = {"title": "Files", "components": [{"file": {"id": "scan", "title": "Scan", "accept": ["image/*"], "maxSize": 100}}]}
    browser.script("arguments[0].value = JSON.stringify(arguments[1]); arguments[0].dispatchEvent(new Event('input'))", editor, definition)
    chooser = browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, '#preview [data-path="scan"] input[type="file"]'), "no file input in the preview")[0]
    chooser.send_keys(str(picture))
    browser.wait(lambda: "over the 100 bytes limit" in error_text(browser, "scan"), "the preview did not check maxSize")

    browser.script("arguments[0].value = arguments[0].value.replace('\"maxSize\":100', '\"maxSize\":4096'); arguments[0].dispatchEvent(new Event('input'))", editor)
    browser.wait(lambda: "4 KB" in wrapper(browser, "scan").text, "the preview did not take the new maxSize")
    picker(browser, "scan").send_keys(str(picture))
    item = browser.wait(lambda: items(browser, "scan", "kept"), "the picked file is not shown")[0]
    assert "Not sent" in item.text
    browser.wait(lambda: item.find_elements(By.CSS_SELECTOR, "canvas.fh-file-preview"), "no preview")
    assert error_text(browser, "scan") == ""
    assert not uploads_sent(browser)
