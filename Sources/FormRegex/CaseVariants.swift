/// The simple case forms of a scalar other than itself, used for case-insensitive membership.
struct CaseVariants: Sequence {
    private let values: [UInt32]

    init(_ scalar: Unicode.Scalar) {
        values = scalar.value < Self.cachedLimit ? Self.cached[Int(scalar.value)] : Self.compute(scalar)
    }

    func makeIterator() -> IndexingIterator<[UInt32]> {
        values.makeIterator()
    }

    /// The stdlib returns case mappings as Strings; computing them once for the scalars that forms
    /// mostly contain keeps compiling and matching case-insensitive patterns cheap.
    private static let cachedLimit: UInt32 = 0x250
    private static let cached: [[UInt32]] = (0..<cachedLimit).map { value in
        Unicode.Scalar(value).map(compute) ?? []
    }

    private static func compute(_ scalar: Unicode.Scalar) -> [UInt32] {
        let properties = scalar.properties
        let lower = single(properties.lowercaseMapping)
        let upper = single(properties.uppercaseMapping)
        let title = single(properties.titlecaseMapping)
        var values: [UInt32] = []
        for candidate in [lower, upper, title, upper.flatMap { single($0.properties.lowercaseMapping) }] {
            if let candidate, candidate != scalar, !values.contains(candidate.value) {
                values.append(candidate.value)
            }
        }
        return values
    }

    private static func single(_ mapping: String) -> Unicode.Scalar? {
        var iterator = mapping.unicodeScalars.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }
}
