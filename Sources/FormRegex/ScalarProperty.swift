/// A Unicode property a class item can test, such as `\p{Lu}`, `\w` or `\s`.
enum ScalarProperty: Hashable, Sendable {
    /// General categories as a bit mask of `GeneralCategoryMask` bits.
    case categories(UInt32, negated: Bool)
    /// ICU's `\w`: alphabetic, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
    case word(negated: Bool)
    /// The Unicode White_Space property (ICU's `\s`).
    case whitespace(negated: Bool)
    case alphabetic(negated: Bool)
    /// ICU's `\h`: tab and space separators.
    case horizontalSpace(negated: Bool)
    /// ICU's `\v`: line feed, vertical tab, form feed, carriage return, NEL, LS and PS.
    case verticalSpace(negated: Bool)
    /// Every scalar (`\p{Any}`).
    case any(negated: Bool)

    func matches(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .categories(let mask, let negated):
            return (mask & GeneralCategoryMask.bit(scalar.properties.generalCategory) != 0) != negated
        case .word(let negated):
            return Self.isWord(scalar) != negated
        case .whitespace(let negated):
            return scalar.properties.isWhitespace != negated
        case .alphabetic(let negated):
            return scalar.properties.isAlphabetic != negated
        case .horizontalSpace(let negated):
            return (scalar.value == 0x09 || scalar.properties.generalCategory == .spaceSeparator) != negated
        case .verticalSpace(let negated):
            let value = scalar.value
            let vertical = (value >= 0x0A && value <= 0x0D) || value == 0x85 || value == 0x2028 || value == 0x2029
            return vertical != negated
        case .any(let negated):
            return !negated
        }
    }

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A)
                || (value >= 0x61 && value <= 0x7A) || value == 0x5F
        }
        if value == 0x200C || value == 0x200D { return true }
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        let bit = GeneralCategoryMask.bit(properties.generalCategory)
        return bit & (GeneralCategoryMask.mark | GeneralCategoryMask.decimalNumber | GeneralCategoryMask.connector) != 0
    }

    /// How a scalar takes part in `\b`. As in ICU, combining (Grapheme_Extend) and format (Cf)
    /// scalars are transparent: there is no boundary before one, and the scalar before a boundary
    /// is the last one that is not transparent.
    static func wordness(_ value: UInt32) -> Wordness {
        if value < 0x80 { return isWord(Unicode.Scalar(UInt8(value))) ? .word : .nonWord }
        guard let scalar = Unicode.Scalar(value) else { return .nonWord }
        let properties = scalar.properties
        if properties.isGraphemeExtend || properties.generalCategory == .format { return .transparent }
        return isWord(scalar) ? .word : .nonWord
    }
}
