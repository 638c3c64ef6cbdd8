"""hyperoslo/Form's update and clear targets, dropdown defaults and first values, imported and then run
by the renderer: a dropdown starts on its default and a field on its value, choosing a value sets or
empties the fields its targets name, and what the person types afterwards is what is submitted."""

from selenium.webdriver.common.by import By

from test_renderer import control, error_text, open_form, set_value, submit_and_read

PLANS = [{"id": "plans", "title": "Plans", "sections": [{"id": "plans-0", "fields": [
    {"id": "plan", "title": "Plan", "type": "select", "values": [
        {"id": 0, "title": "Free", "default": True, "targets": [
            {"id": "seats", "type": "field", "action": "update", "target_value": 1},
            {"id": "coupon", "type": "field", "action": "clear"}]},
        {"id": 1, "title": "Team", "targets": [
            {"id": "coupon", "type": "field", "action": "update", "target_value": "TEAM10"}]}]},
    {"id": "seats", "title": "Seats", "type": "number", "value": 2},
    {"id": "coupon", "title": "Coupon", "type": "text"},
]}]}]


def test_imported_update_and_clear_targets_run_in_the_renderer(browser, server):
    status, _, body = server.call("PUT", "/v1/admin/forms/plans?from=hyperoslo", PLANS)
    assert status in (200, 201), body
    open_form(browser, "plans")
    d = browser.driver
    value = lambda path: control(browser, path).get_attribute("value")
    assert value("plan") == "0", "the default value is not chosen"
    assert value("seats") == "2", "the field's first value is not filled in"
    assert value("coupon") == ""

    set_value(browser, "plan", "1")
    browser.wait(lambda: value("coupon") == "TEAM10", "choosing Team did not fill the coupon in")
    assert value("seats") == "2"
    # The person may change what an update put in; their own change sets off nothing.
    set_value(browser, "coupon", "MINE")
    assert value("coupon") == "MINE" and value("plan") == "1"

    set_value(browser, "plan", "0")
    browser.wait(lambda: value("coupon") == "" and value("seats") == "1", "choosing Free did not clear the coupon and set the seats")
    set_value(browser, "seats", "3")
    stored = submit_and_read(browser, server)
    assert stored["values"] == {"plan": "0", "seats": 3}
    assert browser.console_errors() == []


ROOMS = {"id": "rooms", "title": "Rooms", "components": [
    {"select": {"id": "plan", "title": "Plan", "required": True, "options": [{"id": "free", "title": "Free"}, {"id": "team", "title": "Team"}]}},
    {"text": {"id": "coupon", "title": "Coupon", "updates": [{"when": {"field": "plan", "equals": "team"}, "value": "TEAM10"}]}},
    {"group": {"id": "rooms", "title": "Room", "repeat": {"min": 1, "max": 3}, "components": [
        {"text": {"id": "name", "title": "Name", "default": "Room"}}]}},
]}


def test_defaults_fill_new_items_only_and_updates_follow_a_fixed_answer(browser, server):
    server.put_form(ROOMS)
    open_form(browser, "rooms")
    d = browser.driver
    value = lambda path: control(browser, path).get_attribute("value")
    assert value("rooms[0].name") == "Room"
    # Emptied by the person, it stays empty when the repeat is drawn again for a new item.
    set_value(browser, "rooms[0].name", "")
    d.find_element(By.CSS_SELECTOR, '[data-path="rooms"] .fh-add').click()
    browser.wait(lambda: d.find_elements(By.CSS_SELECTOR, '[data-path="rooms[1].name"]'), "no second room")
    assert value("rooms[0].name") == "" and value("rooms[1].name") == "Room"
    # The server refused the empty plan; choosing one now still sets off its update.
    d.find_element(By.CSS_SELECTOR, ".fh-submit").click()
    browser.wait(lambda: error_text(browser, "plan") != "", "the empty plan was not refused")
    set_value(browser, "plan", "team")
    browser.wait(lambda: value("coupon") == "TEAM10", "choosing a plan after a refusal did not fill the coupon in")
    assert browser.console_errors() == []
