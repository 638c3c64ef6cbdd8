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

/// CPU time of the calling thread, so figures mean "per core" even on a busy machine.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs `body` in five rounds of about `seconds` of CPU time each and returns the best round's
/// calls per CPU-second (the best round is the one least disturbed by other work on the machine).
func measure(seconds: Double = 0.25, _ body: () -> Bool) -> Double {
    var ok = true
    for _ in 0..<2_000 { ok = body() && ok }
    precondition(ok, "benchmark input is not valid")
    var best = 0.0
    for _ in 0..<5 {
        var iterations = 0
        let start = threadCPUSeconds()
        var elapsed = 0.0
        while elapsed < seconds {
            for _ in 0..<500 { ok = body() && ok }
            iterations += 500
            elapsed = threadCPUSeconds() - start
        }
        best = max(best, Double(iterations) / elapsed)
    }
    precondition(ok)
    return best
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
            case let n as NSNumber where n.objCType.pointee == CChar(UInt8(ascii: "c")): text = n.boolValue ? "true" : "false"
            case let n as NSNumber: text = n.stringValue
            default: text = ""
            }
            if text.isEmpty {
                if field.required { valid = false }
                continue
            }
            let range = NSRange(text.startIndex..., in: text)
            if field.regex.firstMatch(in: text, range: range) == nil { valid = false }
        }
        return valid
    }
}

/// Prints and flushes at once, so a line survives a later crash.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let fiveFieldSnapshot = Array(#"""
{"components":[{"id":"name","title":"What is your name?","description":"Type your name.","required":true,"regex":"","placeholder":"Your name","content":"Ana Maria"},{"id":"email","title":"What is your e-mail?","description":"Type your e-mail.","required":true,"regex":"","placeholder":"youremail@example.org","content":"ana.maria@example.org"},{"id":"about","title":"Tell us a little bit about yourself","description":"We want to know more about you.","required":false,"regex":"","placeholder":"","content":"I build forms."},{"id":"text-what-is-your-mothers-name","title":"What is your mother's name?","description":"","required":false,"regex":"","placeholder":"","content":"Beatriz"},{"id":"phone","title":"What is your phone number?","description":"With area code.","required":true,"regex":"","placeholder":"(11) 91234-5678","content":"(11) 91234-5678"},{"id":"age","title":"How old are you?","description":"","required":true,"regex":"","placeholder":"30","content":"34"}]}
"""#.utf8)
let fiveFieldValues = Array(#"""
{"values":{"name":"Ana Maria","email":"ana.maria@example.org","about":"I build forms.","text-what-is-your-mothers-name":"Beatriz","phone":"(11) 91234-5678","age":"34"}}
"""#.utf8)
let fortyFieldValues = load("Benchmarks/forms/registration-40-values.json")

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

func rate(_ perSecond: Double) -> String {
    let digits = String(Int(perSecond.rounded()))
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return String(out.reversed()) + "/s"
}

func column(_ text: String, _ width: Int, left: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + pad : pad + text
}

report("FormEngine benchmark: calls per CPU-second on one core, release build")
report("baseline = JSONSerialization + one NSRegularExpression per field, same run")
report("")
report(column("case", 36, left: true) + column("bytes", 6) + column("FormEngine", 13) + column("baseline", 11)
       + column("ratio", 7) + column("parse only", 13) + column("validate only", 15))
let cases: [(name: String, form: FormDefinition, body: [UInt8])] = [
    ("5-field form, Formworks snapshot", five, fiveFieldSnapshot),
    ("5-field form, values map", five, fiveFieldValues),
    ("40-field form, groups + conditions", forty, fortyFieldValues),
]
for item in cases {
    let baseline = Baseline(item.form)
    precondition(engine(item.form, item.body) && baseline.validate(item.body), "\(item.name): body must be valid")
    let parsed = try! Submission(json: item.body)
    let ours = measure { engine(item.form, item.body) }
    let theirs = measure { baseline.validate(item.body) }
    let parseOnly = measure { (try? Submission(json: item.body)) != nil }
    let validateOnly = measure { item.form.validate(parsed).isValid }
    report(column(item.name, 36, left: true) + column(String(item.body.count), 6) + column(rate(ours), 13)
           + column(rate(theirs), 11) + column(String(format: "%.1fx", ours / theirs), 7)
           + column(rate(parseOnly), 13) + column(rate(validateOnly), 15))
}
let definitionBytes = load("Benchmarks/forms/registration-40.json")
let decode = measure(seconds: 0.2) { (try? FormDefinition(json: definitionBytes)) != nil }
report("")
report("40-field definition decode + compile: \(rate(decode)) (once per form version)")
