import Foundation

/// Definitions and bodies the end-to-end tests share.
enum Fixtures {
    static let signup = #"""
    {"id": "signup", "responseFormat": "long", "title": "Sign up",
     "components": [
       {"text": {"id": "name", "title": "Your name", "required": true}},
       {"email": {"id": "mail", "title": "E-mail", "required": true}},
       {"integer": {"id": "age", "title": "Age", "minValue": 18, "maxValue": 120}},
       {"group": {"id": "address", "title": "Address", "components": [
         {"text": {"id": "line1", "title": "Line 1", "required": true}}]}}
     ]}
    """#

    /// Version 2 of `signup`: `age` becomes required.
    static let signupV2 = #"""
    {"id": "signup", "responseFormat": "long", "title": "Sign up",
     "components": [
       {"text": {"id": "name", "title": "Your name", "required": true}},
       {"email": {"id": "mail", "title": "E-mail", "required": true}},
       {"integer": {"id": "age", "title": "Age", "required": true, "minValue": 18, "maxValue": 120}},
       {"group": {"id": "address", "title": "Address", "components": [
         {"text": {"id": "line1", "title": "Line 1", "required": true}}]}}
     ]}
    """#

    static let validValues = #"{"values": {"name": "Ana", "mail": "ana@example.org", "age": 30, "address": {"line1": "Rua A, 1"}}}"#

    /// A valid values map whose `name` is `name`, JSON-escaped.
    static func values(name: String) -> String {
        let quoted = String(decoding: try! JSONSerialization.data(withJSONObject: [name], options: [.fragmentsAllowed]), as: UTF8.self).dropFirst().dropLast()
        return #"{"values": {"name": \#(quoted), "mail": "ana@example.org", "age": 30, "address": {"line1": "Rua A, 1"}}}"#
    }
}
