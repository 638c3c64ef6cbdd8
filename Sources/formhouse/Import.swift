import ArgumentParser
import FormEngine
import HTTPServer

/// `formhouse import hyperoslo FILE`: another library's form JSON as a Formhouse definition.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a form written for another library into a Formhouse definition and print it (pretty JSON), or print every part that cannot be carried over with its JSON Pointer into FILE.")

    /// The libraries whose forms can be imported.
    enum Source: String, ExpressibleByArgument, CaseIterable {
        case hyperoslo
    }

    @Argument(help: "The library the form was written for: hyperoslo (hyperoslo/Form).") var source: Source
    @Argument(help: "The form (JSON).") var file: String
    @Option(help: "The definition's id (none when not given).") var id: String?
    @Option(help: "The definition's title (the first group's title when not given).") var title: String?

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(file)
        } catch {
            print("\(file): cannot be read: \(error.reason)")
            throw ExitCode(1)
        }
        do throws(DefinitionErrors) {
            let definition = try HyperosloImport.definition(from: bytes, id: id, title: title)
            var text = ""
            Self.writePretty(definition, indent: "", to: &text)
            print(text)
        } catch {
            for problem in error.problems { print("\(file): \(problem.pointer): \(problem.message) [\(problem.code.rawValue)]") }
            throw ExitCode(1)
        }
    }

    /// JSON with two spaces of indent per level, members in the definition's order.
    static func writePretty(_ value: JSONValue, indent: String, to text: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            text += "[\n"
            for (i, item) in items.enumerated() {
                text += inner
                writePretty(item, indent: inner, to: &text)
                text += i == items.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let object) where !object.isEmpty:
            text += "{\n"
            for (i, member) in object.members.enumerated() {
                text += inner + String(decoding: JSONValue.string(member.key).serialized(), as: UTF8.self) + ": "
                writePretty(member.value, indent: inner, to: &text)
                text += i == object.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        default:
            text += String(decoding: value.serialized(), as: UTF8.self)
        }
    }
}
