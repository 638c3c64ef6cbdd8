// Validations per second on one core: FormEngine (parse + validate) against a baseline of
// JSONSerialization plus one NSRegularExpression per field, measured in the same run.
// Run: swift run -c release EngineBenchmark
import FormEngine
import Foundation


let root: URL = {
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    if FileManager.default.fileExists(atPath: cwd.appendingPathComponent("config/forms").path) { return cwd }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}()

func load(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
        fatalError("cannot read \(path)")
    }
    return Array(data)
}

/// Runs `body` repeatedly for about `seconds` and returns calls per second.
func measure(seconds: Double = 1.5, _ body: () -> Bool) -> Double {
    var ok = true
    for _ in 0..<2_000 { ok = body() && ok }
    precondition(ok, "benchmark input is not valid")
    let clock = ContinuousClock()
    var iterations = 0
    let start = clock.now
    var elapsed = Duration.zero
    while elapsed < .milliseconds(Int(seconds * 1000)) {
        for _ in 0..<1_000 { ok = body() && ok }
        iterations += 1_000
        elapsed = clock.now - start
    }
    precondition(ok)
    let (s, attos) = elapsed.components
    return Double(iterations) / (Double(s) + Double(attos) / 1e18)
}

/// The baseline: JSONSerialization, then for every field of the form the NSRegularExpression a
/// Formworks client would run (the formworks profile's regex, or "anything" where it has none).
struct Baseline {
    let fields: [(path: [String], required: Bool, regex: NSRegularExpression)]

    init(_ definition: FormDefinition) {
        var fields: [(path: [String], required: Bool, regex: NSRegularExpression)] = []
        for component in definition.formworksProfile()["components"]?.arrayValue ?? [] {
            guard let object = component.objectValue, let props = object.values.first?.objectValue,
                  let id = props["id"]?.stringValue else { continue }
            var pattern = props["regex"]?.stringValue ?? ""
            if pattern.isEmpty {
                switch object.keys[0] {
                case "email": pattern = "[0-9a-z._%+-]+@[a-z0-9.-]+\\.[a-z]{2,64}"
                case "phonenumber": pattern = #"\(?\b([0-9]{2,3}|0((x|[0-9]){2,3}[0-9]{2}))\)?\s*[0-9]{4,5}[- ]*[0-9]{4}\b"#
                case "numerical": pattern = "[0-9]+"
                default: pattern = "[\\s\\S]*"
                }
            }
            let path = id.replacingOccurrences(of: "[", with: ".").replacingOccurrences(of: "]", with: "")
                .split(separator: ".").map(String.init)
            fields.append((path, props["required"]?.boolValue ?? false, try! NSRegularExpression(pattern: "^(?:" + pattern + ")$")))
        }
        self.fields = fields
    }

    func validate(_ bytes: [UInt8]) -> Bool {
        guard let body = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
        var values: [String: Any] = body["values"] as? [String: Any] ?? [:]
        if let components = body["components"] as? [[String: Any]] {
            for component in components {
                if let id = component["id"] as? String { values[id] = component["content"] }
            }
        }
        var valid = true
        for field in fields {
            var current: Any? = values
            for key in field.path {
                if let dictionary = current as? [String: Any] {
                    current = dictionary[key]
                } else if let array = current as? [Any], let index = Int(key) {
                    current = index < array.count ? array[index] : nil
                } else {
                    current = nil
                }
            }
            let text: String
            switch current {
            case let s as String: text = s
            case let n as NSNumber: text = n.stringValue
            default: text = ""
            }
            if text.isEmpty {
                if field.required { valid = false }
                continue
            }
            let range = NSRange(text.startIndex..., in: text)
            if field.regex.firstMatch(in: text, range: range) == nil {
                if debugBaseline { report("baseline rejects \(field.path) = \(text)") }
                valid = false
            }
        }
        return valid
    }
}

nonisolated(unsafe) var debugBaseline = false

/// Prints and flushes at once, so a line survives a later crash.
func report(_ items: Any...) {
    let line = items.map { "\($0)" }.joined(separator: " ") + "\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}
let fiveFieldSnapshot = Array(#"""
{"components":[{"id":"name","title":"What is your name?","description":"Type your name.","required":true,"regex":"","placeholder":"Your name","content":"Ana Maria"},{"id":"email","title":"What is your e-mail?","description":"Type your e-mail.","required":true,"regex":"","placeholder":"youremail@example.org","content":"ana.maria@example.org"},{"id":"about","title":"Tell us a little bit about yourself","description":"We want to know more about you.","required":false,"regex":"","placeholder":"","content":"I build forms."},{"id":"text-what-is-your-mothers-name","title":"What is your mother's name?","description":"","required":false,"regex":"","placeholder":"","content":"Beatriz"},{"id":"phone","title":"What is your phone number?","description":"With area code.","required":true,"regex":"","placeholder":"(11) 91234-5678","content":"(11) 91234-5678"},{"id":"age","title":"How old are you?","description":"","required":true,"regex":"","placeholder":"30","content":"34"}]}
"""#.utf8)
let fiveFieldValues = Array(#"""
{"values":{"name":"Ana Maria","email":"ana.maria@example.org","about":"I build forms.","text-what-is-your-mothers-name":"Beatriz","phone":"(11) 91234-5678","age":"34"}}
"""#.utf8)
let fortyFieldValues = Array(#"""
{"values":{"firstName":"Ana","lastName":"Souza","email":"ana.souza@example.com","phone":"(11) 91234-5678","usPhone":"555-123-4567","birthDate":"1990-04-12","age":"35","pronouns":"other","pronounsOther":"ela/dela","password":"correct horse battery","address":{"line1":"Rua das Flores, 100","line2":"apto 12","city":"São Paulo","country":"BR","cep":"01310-100"},"ticket":"full","dinner":true,"diet":"other","dietNotes":"No peanuts, please.","guests":2,"donation":"25.50","badgeNumber":"004217","arrival":"2026-06-14","companions":[{"name":"Bia","email":"bia@example.com","child":false},{"name":"Caio","child":true,"age":9}],"work":{"company":"Formhouse","role":"Engineer","billingEmail":"billing@example.com","vatId":"BR12345678"},"heardFrom":"other","heardOther":"A podcast","referralCode":"AB12CD","comments":"Looking forward to it!","terms":true}}
"""#.utf8)

func definition(_ path: String) -> FormDefinition {
    do {
        return try FormDefinition(json: load(path))
    } catch {
        fatalError("\(path): \(error.problems)")
    }
}

let five = definition("config/forms/formworks-example.json")
let forty = definition("Benchmarks/forms/registration-40.json")

func engine(_ form: FormDefinition, _ body: [UInt8]) -> Bool {
    guard let submission = try? Submission(json: body) else { return false }
    return form.validate(submission).isValid
}

report("FormEngine benchmark: one core, parse + validate per call (release build)")
let cases: [(name: String, form: FormDefinition, body: [UInt8])] = [
    ("5-field form, Formworks snapshot", five, fiveFieldSnapshot),
    ("5-field form, values map", five, fiveFieldValues),
    ("40-field form, groups + conditions", forty, fortyFieldValues),
]
for item in cases {
    let baseline = Baseline(item.form)
    debugBaseline = true
    report(item.name, engine(item.form, item.body), baseline.validate(item.body))
    debugBaseline = false
    let parsed = try! Submission(json: item.body)
    report("  parse only", measure { (try? Submission(json: item.body)) != nil }, "validate only", measure { item.form.validate(parsed).isValid })
    let ours = measure { engine(item.form, item.body) }
    let theirs = measure { baseline.validate(item.body) }
    let line = String(format: "%-36@ %5d bytes  FormEngine %10.0f/s  baseline %9.0f/s  ratio %5.1fx",
                      item.name as NSString, item.body.count, ours, theirs, ours / theirs)
    report(line)
}
let submission = try! Submission(json: fortyFieldValues)
let validateOnly = measure { forty.validate(submission).isValid }
report(String(format: "40-field form, validate only (pre-parsed)  %10.0f/s", validateOnly))
let definitionBytes = load("Benchmarks/forms/registration-40.json")
let decode = measure(seconds: 0.5) { (try? FormDefinition(json: definitionBytes)) != nil }
report(String(format: "40-field definition decode + compile      %10.0f/s", decode))
