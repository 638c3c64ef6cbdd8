"""Form definitions the browser tests upload: one uses every component type of docs/engine.md, one takes files."""

TOUR = {
    "id": "browser-tour",
    "responseFormat": "long",
    "title": "Every component",
    "style": {"accent": "#1B5E20FF", "background": "#E8F5E9FF", "componentRequired": "#C62828FF"},
    "components": [
        {"text": {"id": "name", "title": "Your name", "description": "As on your ID.", "required": True,
                  "placeholder": "Ana Souza"}},
        {"email": {"id": "mail", "title": "E-mail", "required": True, "placeholder": "you@example.org"}},
        {"multiline": {"id": "about", "title": "About you", "maxLength": 200}},
        {"numerical": {"id": "document", "title": "Document number"}},
        {"phonenumber": {"id": "phone", "title": "Phone (Brazil)"}},
        {"integer": {"id": "age", "title": "Age", "minValue": 18, "maxValue": 120}},
        {"decimal": {"id": "height", "title": "Height (m)", "maxDecimalPlaces": 2}},
        {"date": {"id": "birthday", "title": "Birthday", "minDate": "1900-01-01", "maxDate": "2030-12-31"}},
        {"select": {"id": "contact", "title": "Preferred contact", "options": [
            {"id": "mail", "title": "E-mail"}, {"id": "phone", "title": "Phone"}, {"id": "other", "title": "Other"}]}},
        {"text": {"id": "otherContact", "title": "Which other contact?", "required": True,
                  "visibleWhen": {"field": "contact", "equals": "other"}}},
        {"select": {"id": "topics", "title": "Topics", "multiple": True, "options": [
            {"id": "news", "title": "News"}, {"id": "events", "title": "Events"}]}},
        {"text": {"id": "eventCity", "title": "Events in which city?",
                  "visibleWhen": {"field": "topics", "equals": "events"}}},
        {"switch": {"id": "newsletter", "title": "Send me the newsletter"}},
        {"text": {"id": "frequency", "title": "How often?",
                  "visibleWhen": {"all": [{"field": "newsletter", "equals": True}, {"field": "mail", "notEmpty": True}]}}},
        {"count": {"id": "guests", "title": "Guests", "minValue": 0, "maxValue": 3}},
        {"password": {"id": "secret", "title": "Password", "minLength": 8}},
        {"section": {"title": "United States", "description": "Only if you live there.", "components": [
            {"usphone": {"id": "usPhone", "title": "US phone"}},
            {"usstate": {"id": "state", "title": "State", "visibleWhen": {"any": [
                {"field": "usPhone", "notEmpty": True}, {"field": "contact", "in": ["phone"]}]}}},
            {"text": {"id": "county", "title": "County", "visibleWhen": {"field": "state", "equals": "Texas"}}},
        ]}},
        {"group": {"id": "address", "title": "Address", "components": [
            {"text": {"id": "line1", "title": "Street", "required": True}},
            {"text": {"id": "city", "title": "City", "visibleWhen": {"field": "line1", "notEquals": "unknown"}}},
        ]}},
        {"group": {"id": "addresses", "title": "Other address", "repeat": {"min": 1, "max": 3}, "components": [
            {"text": {"id": "postcode", "title": "Postcode", "required": True, "regex": "[0-9]{5}"}},
        ]}},
    ],
}

INPUT_TYPES = ["text", "multiline", "email", "numerical", "phonenumber", "integer", "decimal", "date", "select",
               "switch", "count", "password", "usphone", "usstate"]


def simple(form_id, title="Simple form"):
    return {
        "id": form_id, "responseFormat": "long", "title": title,
        "components": [
            {"text": {"id": "name", "title": "Your name", "required": True}},
            {"email": {"id": "mail", "title": "E-mail"}},
        ],
    }


PHOTO_MAX_SIZE = 64 * 1024

PHOTOS = {
    "id": "browser-photos", "responseFormat": "long", "title": "Report damage",
    "components": [
        {"text": {"id": "name", "title": "Your name", "required": True}},
        {"file": {"id": "photo", "title": "Photo", "description": "A picture of the damage.", "required": True,
                  "accept": ["image/*"], "maxSize": PHOTO_MAX_SIZE, "maxFiles": 1}},
        {"file": {"id": "documents", "title": "Documents", "accept": ["image/*", "application/pdf"], "maxFiles": 3}},
    ],
}
