/// Unicode general categories as bits, so a `\p{...}` item tests a scalar with one mask operation.
enum GeneralCategoryMask {
    static func bit(_ category: Unicode.GeneralCategory) -> UInt32 {
        1 << index(category)
    }

    static let letter: UInt32 = bits(.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter)
    static let casedLetter: UInt32 = bits(.uppercaseLetter, .lowercaseLetter, .titlecaseLetter)
    static let mark: UInt32 = bits(.nonspacingMark, .spacingMark, .enclosingMark)
    static let number: UInt32 = bits(.decimalNumber, .letterNumber, .otherNumber)
    static let decimalNumber: UInt32 = bits(.decimalNumber)
    static let connector: UInt32 = bits(.connectorPunctuation)
    static let punctuation: UInt32 = bits(
        .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
        .initialPunctuation, .finalPunctuation, .otherPunctuation)
    static let symbol: UInt32 = bits(.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol)
    static let separator: UInt32 = bits(.spaceSeparator, .lineSeparator, .paragraphSeparator)
    static let other: UInt32 = bits(.control, .format, .surrogate, .privateUse, .unassigned)

    /// The mask for a `\p{...}` name: a one- or two-letter category (`L`, `Lu`, `Nd`, `Lc`),
    /// or a major category's long name (`Letter`, `Number`, ...). Matching ignores case, `_`, `-` and spaces.
    static func named(_ name: String) -> UInt32? {
        let key = String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
        if let major = majors[key] { return major }
        for category in all where abbreviation(category).lowercased() == key {
            return bit(category)
        }
        return nil
    }

    private static let majors: [String: UInt32] = [
        "l": letter, "letter": letter, "lc": casedLetter, "casedletter": casedLetter,
        "m": mark, "mark": mark, "n": number, "number": number, "p": punctuation, "punctuation": punctuation,
        "s": symbol, "symbol": symbol, "z": separator, "separator": separator, "c": other, "other": other,
        "decimalnumber": decimalNumber, "digit": decimalNumber,
        "uppercaseletter": bits(.uppercaseLetter), "lowercaseletter": bits(.lowercaseLetter),
        "spaceseparator": bits(.spaceSeparator), "control": bits(.control),
    ]

    private static func bits(_ categories: Unicode.GeneralCategory...) -> UInt32 {
        categories.reduce(0) { $0 | bit($1) }
    }

    private static let all: [Unicode.GeneralCategory] = [
        .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber,
        .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
        .initialPunctuation, .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol,
        .modifierSymbol, .otherSymbol, .spaceSeparator, .lineSeparator, .paragraphSeparator,
        .control, .format, .surrogate, .privateUse, .unassigned,
    ]

    private static func index(_ category: Unicode.GeneralCategory) -> UInt32 {
        switch category {
        case .uppercaseLetter: 0
        case .lowercaseLetter: 1
        case .titlecaseLetter: 2
        case .modifierLetter: 3
        case .otherLetter: 4
        case .nonspacingMark: 5
        case .spacingMark: 6
        case .enclosingMark: 7
        case .decimalNumber: 8
        case .letterNumber: 9
        case .otherNumber: 10
        case .connectorPunctuation: 11
        case .dashPunctuation: 12
        case .openPunctuation: 13
        case .closePunctuation: 14
        case .initialPunctuation: 15
        case .finalPunctuation: 16
        case .otherPunctuation: 17
        case .mathSymbol: 18
        case .currencySymbol: 19
        case .modifierSymbol: 20
        case .otherSymbol: 21
        case .spaceSeparator: 22
        case .lineSeparator: 23
        case .paragraphSeparator: 24
        case .control: 25
        case .format: 26
        case .surrogate: 27
        case .privateUse: 28
        case .unassigned: 29
        @unknown default: 29
        }
    }

    private static func abbreviation(_ category: Unicode.GeneralCategory) -> String {
        let names = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                     "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
        return names[Int(index(category))]
    }
}
