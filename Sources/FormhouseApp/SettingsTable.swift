/// The Markdown table of every setting that docs/configuration.md holds between its markers, made
/// from ``AppConfiguration/settings`` so that the page cannot drift from the code.
public enum SettingsTable {
    public static let begin = "<!-- settings:begin -->"
    public static let end = "<!-- settings:end -->"

    /// One row per setting, in declaration order, with the defaults the server embeds.
    public static var markdown: String {
        let defaults = AppConfiguration()
        var lines = [
            "| key (JSON) | environment | flag | type | default | allowed | what it does |",
            "|---|---|---|---|---|---|---|",
        ]
        for setting in AppConfiguration.settings {
            let cells = [
                code(setting.key),
                code(setting.environmentName),
                setting.flag.map { code("--" + $0) } ?? "—",
                typeName(setting),
                shown(setting.show(defaults)),
                setting.bounds.isEmpty ? "any" : setting.bounds,
                escaped(setting.summary),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `document` with the text between its markers replaced by ``markdown``; nil when it lacks them.
    public static func update(_ document: String) -> String? {
        guard let first = document.range(of: begin), let last = document.range(of: end),
              first.upperBound <= last.lowerBound else { return nil }
        return String(document[..<first.upperBound]) + "\n" + markdown + String(document[last.lowerBound...])
    }

    private static func typeName(_ setting: Setting) -> String {
        setting.isSecret ? setting.kind.name + ", **secret**" : setting.kind.name
    }

    private static func code(_ text: String) -> String { "`" + text + "`" }

    private static func shown(_ value: String) -> String { value == "none" ? value : code(value) }

    /// A summary is plain text for `--help`; in a table cell `*` would start emphasis and `|` a cell.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "*", with: "\\*").replacingOccurrences(of: "|", with: "\\|")
    }
}
