import Foundation

/// What ICU (NSRegularExpression) says about a whole-string match; Foundation is used only in tests.
enum Reference {
    /// `\A(?:pattern)\z` rather than `^...$`, since ICU's `$` also matches before a final newline.
    static func matches(_ pattern: String, _ string: String, caseInsensitive: Bool = false) throws -> Bool {
        let expression = try NSRegularExpression(pattern: #"\A(?:"# + pattern + #")\z"#, options: caseInsensitive ? [.caseInsensitive] : [])
        let whole = NSRange(location: 0, length: (string as NSString).length)
        guard let match = expression.firstMatch(in: string, options: [], range: whole) else { return false }
        return match.range == whole
    }
}
