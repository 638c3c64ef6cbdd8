// TEMPORARY shim so FormEngine builds before the real linear-time FormRegex lands; the lead replaces
// this file with the real module on merge.
import Foundation

/// A compiled regular expression that matches whole strings.
public struct Pattern: Sendable, Hashable {
    /// The pattern as written.
    public let source: String
    private let caseInsensitive: Bool
    private let box: Box

    private final class Box: @unchecked Sendable {
        let regex: NSRegularExpression
        init(_ regex: NSRegularExpression) { self.regex = regex }
    }

    /// Compiles `source`; throws when it is not a valid pattern.
    public init(_ source: String, caseInsensitive: Bool = false) throws(PatternError) {
        self.source = source
        self.caseInsensitive = caseInsensitive
        do {
            let regex = try NSRegularExpression(pattern: "^(?:" + source + ")$",
                                                options: caseInsensitive ? [.caseInsensitive] : [])
            box = Box(regex)
        } catch {
            throw PatternError(offset: 0, message: "invalid pattern: \(error)")
        }
    }

    /// Whether the whole of `string` matches.
    public func matches(_ string: String) -> Bool {
        let range = NSRange(string.startIndex..., in: string)
        return box.regex.firstMatch(in: string, options: [], range: range) != nil
    }

    /// Whether the whole of `string` matches.
    public func matches(_ string: Substring) -> Bool { matches(String(string)) }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool {
        lhs.source == rhs.source && lhs.caseInsensitive == rhs.caseInsensitive
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(caseInsensitive)
    }
}

/// Why a pattern did not compile.
public struct PatternError: Error, Sendable, Equatable {
    public var offset: Int
    public var message: String
}
